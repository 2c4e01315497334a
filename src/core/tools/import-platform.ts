/**
 * Platform operations arrive as parameter lists (the shape workflow platforms and CRM adapters
 * publish). They are normalized to JSON Schema so the same contracts, mocks and checks apply:
 * options become enums, operation-level and field-level required flags are both honoured, declared
 * coercions fix a field's type, and a native response envelope stays part of the output schema —
 * stripping it would let bare JSON pass while breaking workflow paths such as data.records[0].
 */
import type { JsonObject, JsonValue, Problem } from "../json.js";
import { pointer } from "../json.js";
import type { JsonSchema } from "../ports.js";
import type { ImportResult } from "./import-mcp.js";
import type { OperationSpec } from "./types.js";
import { setOwn } from "../contract/values.js";

type PlatformParameterType =
  | "string"
  | "number"
  | "integer"
  | "boolean"
  | "object"
  | "array"
  | "date"
  | "datetime"
  | "json";
export const PLATFORM_PARAMETER_TYPES: readonly PlatformParameterType[] = [
  "string",
  "number",
  "integer",
  "boolean",
  "object",
  "array",
  "date",
  "datetime",
  "json",
];

type Coercion = "object" | "string";

/** Fields whose runtime type the adapters fix regardless of how a parameter list declares them. */
const DEFAULT_COERCIONS: Readonly<Record<string, Coercion>> = {
  sfdc_field_mapping: "object",
  async_options: "string",
};

interface PlatformParameter {
  name: string;
  type: PlatformParameterType;
  description?: string | undefined;
  required?: boolean | undefined;
  options?: JsonValue[] | undefined;
}

interface PlatformResponse {
  /** The native envelope's status (200 for reads, 201 for created records); with `data` below. */
  status?: number | undefined;
  /** Schema of the envelope's `data` when `status` is given, else the whole response's schema. */
  schema: JsonSchema;
}

interface PlatformOperation {
  operation_id: string;
  description: string;
  required?: string[] | undefined;
  parameters: PlatformParameter[];
  response?: PlatformResponse | undefined;
}

interface PlatformImportRequest {
  name: string;
  description: string;
  output_schema?: JsonSchema | undefined;
  coerce?: Record<string, Coercion> | undefined;
  operations: PlatformOperation[];
}

export function toolFromPlatformOperations(request: PlatformImportRequest): ImportResult {
  const problems: Problem[] = [];
  const coercions = { ...DEFAULT_COERCIONS, ...request.coerce };
  const operations: OperationSpec[] = request.operations.map((operation, index) =>
    normalizeOperation(operation, coercions, (...tokens) => pointer("operations", index, ...tokens), problems),
  );
  if (problems.length > 0) return { ok: false, problems };
  return {
    ok: true,
    tool: {
      name: request.name,
      description: request.description,
      kind: "platform",
      output_schema: request.output_schema,
      operations,
      source: { format: "platform", coerce: coercions },
    },
  };
}

function normalizeOperation(
  operation: PlatformOperation,
  coercions: Record<string, Coercion>,
  at: (...tokens: Array<string | number>) => string,
  problems: Problem[],
): OperationSpec {
  const properties: JsonObject = {};
  const required: string[] = [];
  operation.parameters.forEach((parameter, index) => {
    if (Object.hasOwn(properties, parameter.name)) {
      problems.push({ path: at("parameters", index, "name"), message: `duplicate parameter "${parameter.name}"` });
    }
    // setOwn and hasOwn: a parameter may be called "__proto__", and it must stay a property of
    // the schema rather than become its prototype (or read Object.prototype as a coercion).
    setOwn(
      properties,
      parameter.name,
      parameterSchema(parameter, Object.hasOwn(coercions, parameter.name) ? coercions[parameter.name] : undefined),
    );
    if (parameter.required) required.push(parameter.name);
  });
  (operation.required ?? []).forEach((name, index) => {
    if (!Object.hasOwn(properties, name)) {
      problems.push({ path: at("required", index), message: `names no parameter of this operation: "${name}"` });
    } else if (!required.includes(name)) {
      required.push(name);
    }
  });
  const input: JsonObject = { type: "object", properties, additionalProperties: false };
  if (required.length > 0) input.required = required;
  return {
    operation_id: operation.operation_id,
    description: operation.description,
    input_schema: input,
    output_schema: operation.response ? responseSchema(operation.response) : undefined,
  };
}

function parameterSchema(parameter: PlatformParameter, coercion: Coercion | undefined): JsonObject {
  const schema: JsonObject = coercion ? { type: coercion } : typeSchema(parameter.type);
  if (parameter.description) schema.description = parameter.description;
  if (parameter.options && parameter.options.length > 0) schema.enum = parameter.options;
  return schema;
}

function typeSchema(type: PlatformParameterType): JsonObject {
  switch (type) {
    case "date":
      return { type: "string", format: "date" };
    case "datetime":
      return { type: "string", format: "date-time" };
    case "json":
      return {};
    default:
      return { type };
  }
}

function responseSchema(response: PlatformResponse): JsonSchema {
  if (response.status === undefined) return response.schema;
  return {
    type: "object",
    properties: { status: { const: response.status }, data: response.schema },
    required: ["status", "data"],
    additionalProperties: false,
  };
}

/**
 * Where a place in an imported operation's stored field was in the client's request, so a problem
 * names the field the client sent: the output schema is `response.schema` (inside the envelope's
 * `data` when a status is given), the input schema is built from `parameters`.
 */
export function platformFieldPointer(
  request: PlatformImportRequest,
  index: number,
  field: "operation_id" | "input_schema" | "output_schema",
  inner: string,
): string {
  const operation = request.operations[index];
  if (field === "operation_id") return pointer("operations", index, "operation_id");
  if (field === "input_schema") return pointer("operations", index, "parameters");
  if (operation?.response === undefined) return pointer("operations", index, "response");
  const envelopeData = "/properties/data";
  const inSchema =
    operation.response.status === undefined
      ? inner
      : inner === envelopeData || inner.startsWith(`${envelopeData}/`)
        ? inner.slice(envelopeData.length)
        : undefined;
  // Outside `data` is the envelope toolproof built: the response as a whole is the nearest field.
  if (inSchema === undefined) return pointer("operations", index, "response");
  return `${pointer("operations", index, "response", "schema")}${inSchema}`;
}
