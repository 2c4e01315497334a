/**
 * Drafts: a starting definition derived from an operation's schemas, offered to an author and
 * never saved by itself. A draft is only handed out when its own check report is valid, so a
 * schema the deriver misreads yields "author this one" rather than a broken fixture.
 */
import type { JsonObject } from "../json.js";
import { isJsonObject } from "../json.js";
import type { SchemaValidator } from "../ports.js";
import { checkDefinition } from "./check.js";
import { deriveValue, type Provenance } from "./derive.js";
import { expressionOperator } from "./expressions.js";
import type { CheckReport, MockDefinition, OperationContract } from "./types.js";

export type DraftResult =
  | { ok: true; definition: MockDefinition; report: CheckReport }
  | {
      ok: false;
      /** JSON Pointer into the schema named by `schema` of the construct that could not be derived. */
      construct: string;
      message: string;
      schema: "input_schema" | "output_schema";
    };

export const DRAFT_VARIANT = "success";

/** The schema pointer that produced the deepest part of the value containing `instance`. */
function constructFor(provenance: Provenance, instance: string): string {
  let probe = instance;
  for (;;) {
    const at = provenance.get(probe);
    if (at !== undefined) return at;
    if (probe === "") return "";
    probe = probe.slice(0, probe.lastIndexOf("/"));
  }
}

/** The instance pointer of the first object in `value` that the engine would read as an expression. */
export function expressionLookalike(value: unknown, at = ""): string | null {
  if (value === null || typeof value !== "object") return null;
  if (expressionOperator(value) !== null) return at;
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value);
  for (const [key, child] of entries) {
    const found = expressionLookalike(child, `${at}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`);
    if (found !== null) return found;
  }
  return null;
}

/**
 * A `success` variant whose result is derived from the output schema, with one checked example
 * whose input is derived from the input schema. ok:false names the construct that blocked it.
 */
export async function generateDraft(contract: OperationContract, validator: SchemaValidator): Promise<DraftResult> {
  const outputProvenance: Provenance = new Map();
  const output = deriveValue(contract.output_schema, outputProvenance);
  if (!output.ok)
    return {
      ok: false,
      construct: output.construct,
      message: `output schema: ${output.message}`,
      schema: "output_schema",
    };
  const inputProvenance: Provenance = new Map();
  const input = deriveValue(contract.input_schema, inputProvenance);
  if (!input.ok)
    return { ok: false, construct: input.construct, message: `input schema: ${input.message}`, schema: "input_schema" };
  if (!isJsonObject(input.value)) {
    return {
      ok: false,
      construct: "",
      message: "input schema: tool arguments must be a JSON object, and this schema does not describe one",
      schema: "input_schema",
    };
  }
  const lookalike = expressionLookalike(output.value);
  if (lookalike !== null) {
    return {
      ok: false,
      construct: constructFor(outputProvenance, lookalike),
      message:
        "output schema: the derived result holds an object whose only key is an expression operator ($input, $state, $number, $dateAdd); author the mock",
      schema: "output_schema",
    };
  }
  const inputArgs: JsonObject = input.value;
  const definition: MockDefinition = {
    schema_version: 1,
    default_variant: DRAFT_VARIANT,
    variants: { [DRAFT_VARIANT]: { result: output.value } },
    examples: [{ variant: DRAFT_VARIANT, input: inputArgs, expected: output.value }],
  };
  const report = await checkDefinition(contract, definition, validator);
  if (report.valid) return { ok: true, definition, report };

  const failure = report.examples.find((e) => !e.passed)?.error;
  if (failure === undefined) {
    const first = report.errors[0];
    return {
      ok: false,
      construct: "",
      message: `the draft does not pass its check: ${first ? `${first.path}: ${first.message}` : "unknown reason"}`,
      schema: "output_schema",
    };
  }
  const inputPrefix = "/examples/0/input";
  if (failure.kind === "input_schema" || failure.kind === "tool_input_error" || failure.path.startsWith(inputPrefix)) {
    const instance = failure.path.startsWith(inputPrefix) ? failure.path.slice(inputPrefix.length) : "";
    return {
      ok: false,
      construct: constructFor(inputProvenance, instance),
      message: `input schema: the derived arguments do not validate: ${failure.message}`,
      schema: "input_schema",
    };
  }
  const resultPrefix = `/variants/${DRAFT_VARIANT}/result`;
  const instance = failure.path.startsWith(resultPrefix) ? failure.path.slice(resultPrefix.length) : "";
  return {
    ok: false,
    construct: constructFor(outputProvenance, instance),
    message: `output schema: the derived result does not validate: ${failure.message}`,
    schema: "output_schema",
  };
}
