/**
 * Injection variants: from an operation's current definition, a new variant whose results carry a
 * prompt-injection payload in a free-text field of the output schema (a note, a description, a
 * name), so a suite can measure whether the agent follows text that arrives in a tool result.
 *
 * The variant copies a base variant (its rules, state writes and delays) and changes, in each
 * result template, one string field: a literal string gets the payload appended (when maxLength
 * allows, else replaced), an optional field the result lacks is added, an expression ($input,
 * $state, version 2's $expr) is replaced by the payload. Fields are tried best first (literal text, then a missing
 * note-like field, then expressions; note/description/name-like keys first within each), and a
 * template keeps an edit only when every example that renders it still validates against the
 * output schema: the engine's own call algorithm decides, not a guess about anyOf branches.
 * Templates no example exercises are left as they are, since nothing could show they still
 * validate. The base variant's examples are copied to the new variant with the injected results as
 * `expected`, and the whole draft goes through checkDefinition like any other. Pure; never saves.
 */
import { isJsonObject, pointer, type JsonObject, type JsonValue, type Problem } from "../json.js";
import type { SchemaValidator } from "../ports.js";
import { executeCall, initialState } from "../contract/call.js";
import { checkDefinition } from "../contract/check.js";
import { expressionOperator } from "../contract/expressions.js";
import { LIMITS, VARIANT_NAME } from "../contract/limits.js";
import { parseDefinition } from "../contract/parse.js";
import type { CheckReport, Example, MockDefinition, OperationContract, Variant } from "../contract/types.js";
import { copyJson } from "../contract/values.js";
import { catalogueText, type AttackStyle, type AttackTarget } from "./catalogue.js";
import { describePath, stringFields, type StringField } from "./string-fields.js";

export type PayloadSource = { style: AttackStyle; target: AttackTarget } | { text: string; target?: AttackTarget };

interface InjectRequest {
  contract: OperationContract;
  /** The operation's current definition (its latest revision). */
  definition: MockDefinition;
  payload: PayloadSource;
  /** The variant to copy; the definition's default variant when absent. */
  base_variant?: string;
  /** The new variant's name; `injected_<style>` (or `injected` for an authored payload) when absent. An existing one of that name is derived again. */
  variant?: string;
  /** A JSON Pointer into the result: inject there only. */
  field?: string;
}

/** One result template that carries the payload. */
interface InjectedField {
  /** JSON Pointer into the draft definition of the result template. */
  template: string;
  /** JSON Pointer into the result of the field that carries the payload. */
  field: string;
  /** How: appended to literal text, added as a missing optional field, or replacing the value. */
  how: "appended" | "added" | "replaced";
}

interface Injection {
  variant: string;
  base_variant: string;
  style: AttackStyle | "custom";
  payload: string;
  target: AttackTarget | null;
  fields: InjectedField[];
}

type InjectResult =
  | { ok: true; definition: MockDefinition; report: CheckReport; injection: Injection }
  | { ok: false; code: "not_injectable" | "invalid_request"; message: string; problems: Problem[] };

/** Keys whose text a reader expects to be prose, tried first. */
const PROSE_KEYS = [
  "note",
  "notes",
  "description",
  "comment",
  "comments",
  "memo",
  "message",
  "details",
  "summary",
  "remarks",
  "text",
  "body",
  "content",
  "title",
  "name",
];

const SEPARATOR = "\n\n";

interface Template {
  at: string;
  rule: number | null;
  value: JsonValue;
}

interface Placement {
  field: StringField;
  concrete: string[];
  how: InjectedField["how"];
  value: string;
}

export async function injectVariant(request: InjectRequest, validator: SchemaValidator): Promise<InjectResult> {
  const { contract, definition } = request;
  const payload =
    "text" in request.payload ? request.payload.text : catalogueText(request.payload.style, request.payload.target);
  const style = "text" in request.payload ? "custom" : request.payload.style;
  const target = request.payload.target ?? null;
  const baseName = request.base_variant ?? definition.default_variant;
  const name = request.variant ?? (style === "custom" ? "injected" : `injected_${style}`);
  const invalid = (path: string, message: string): InjectResult => ({
    ok: false,
    code: "invalid_request",
    message,
    problems: [{ path, message }],
  });

  const base = Object.hasOwn(definition.variants, baseName) ? definition.variants[baseName] : undefined;
  if (base === undefined)
    return invalid(
      "/base_variant",
      `the definition has no variant "${baseName}"; it defines ${Object.keys(definition.variants).join(", ")}`,
    );
  if (!VARIANT_NAME.test(name))
    return invalid(
      "/variant",
      `a variant name is 1 to 64 letters, digits, "_", "." or "-"; got ${JSON.stringify(name)}`,
    );
  if (name === baseName)
    return invalid("/variant", `the injection variant needs a name of its own, not the base variant's ("${baseName}")`);
  // Deriving again replaces a variant of that name; the default variant is what every simulation gets, so never that.
  if (name === definition.default_variant)
    return invalid(
      "/variant",
      `"${name}" is the definition's default variant; name the injection variant something else`,
    );

  const survey = stringFields(contract.output_schema);
  let fields = survey.fields.filter((field) => fits(field, payload));
  if (request.field !== undefined) {
    const wanted = request.field;
    fields = fields.filter((field) => matches(field.path, wanted));
    if (fields.length === 0) {
      const offered = [
        ...new Set(survey.fields.filter((field) => fits(field, payload)).map((field) => describePath(field.path))),
      ];
      return invalid(
        "/field",
        `no string field at ${wanted} can carry the payload; the fields that can are ${offered.length > 0 ? offered.join(", ") : "none"}`,
      );
    }
  }
  if (fields.length === 0) return notInjectable(survey.fields, survey.rejected, payload);

  const templates = templatesOf(base, `/variants/${pointerName(name)}`);
  const baseExamples = definition.examples.filter((example) => example.variant === baseName);
  // Per template, the candidate placements best first, and which one is being tried.
  const options = templates.map((template) => placements(template.value, fields, payload));
  const chosen = options.map(() => 0);
  // Templates with a placement that every example through them validated with.
  let outcome: { variant: Variant; examples: Example[]; used: Set<number> } | null = null;
  for (let round = 0; round <= options.reduce((sum, o) => sum + o.length, 0) + 1; round++) {
    const variant = buildVariant(base, templates, options, chosen);
    const draft = withVariant(definition, name, variant, []);
    const examples: Example[] = [];
    const used = new Set<number>();
    let failedTemplate: number | null = null;
    for (const example of baseExamples) {
      const call = executeCall({
        input_schema: contract.input_schema,
        output_schema: contract.output_schema,
        definition: draft,
        variant: name,
        args: example.input,
        state: example.state ?? initialState(definition),
        validator,
      });
      // A rule without a result of its own renders the variant's.
      const index = Math.max(
        0,
        templates.findIndex((t) => t.rule === call.rule),
      );
      if (
        call.kind === "harness_error" &&
        call.harness_kind === "output_schema" &&
        index >= 0 &&
        (options[index]?.length ?? 0) > (chosen[index] ?? 0)
      ) {
        failedTemplate = index;
        break;
      }
      if (call.kind !== "result") continue;
      if (index >= 0 && (options[index]?.length ?? 0) > (chosen[index] ?? 0)) used.add(index);
      examples.push({
        variant: name,
        input: copyJson(example.input),
        ...(example.state === undefined ? {} : { state: copyJson(example.state) }),
        expected: call.result,
      });
    }
    if (failedTemplate !== null) {
      // This placement breaks the schema for this template: try its next one.
      chosen[failedTemplate] = (chosen[failedTemplate] ?? 0) + 1;
      continue;
    }
    outcome = { variant, examples, used };
    break;
  }
  if (outcome === null || outcome.used.size === 0) {
    return {
      ok: false,
      code: "not_injectable",
      message: `no result of variant "${baseName}" that its examples exercise can carry the payload and still validate against the output schema`,
      problems: templates.map((template) => ({
        path: template.at.replace(`/variants/${pointerName(name)}`, `/variants/${pointerName(baseName)}`),
        message: `none of the string fields ${fields.map((f) => describePath(f.path)).join(", ")} can be set in this result without breaking the output schema, or no example renders it`,
      })),
    };
  }
  // Only the templates the examples vouched for keep their edit.
  const kept = chosen.map((choice, index) => (outcome.used.has(index) ? choice : Number.POSITIVE_INFINITY));
  const variant = buildVariant(base, templates, options, kept);
  const final = withVariant(definition, name, variant, outcome.examples);
  const limit = limitProblem(final);
  if (limit !== null) return invalid(limit.path, limit.message);
  const parsed = parseDefinition(final);
  if (!parsed.ok)
    return {
      ok: false,
      code: "invalid_request",
      message: "the derived definition does not parse; see details",
      problems: parsed.errors,
    };
  const report = await checkDefinition(contract, parsed.definition, validator);
  const injected: InjectedField[] = [];
  templates.forEach((template, index) => {
    const placement = options[index]?.[kept[index] ?? Number.POSITIVE_INFINITY];
    if (placement) injected.push({ template: template.at, field: pointer(...placement.concrete), how: placement.how });
  });
  return {
    ok: true,
    definition: parsed.definition,
    report,
    injection: { variant: name, base_variant: baseName, style, payload, target, fields: injected },
  };
}

function pointerName(name: string): string {
  return pointer(name).slice(1);
}

function fits(field: StringField, payload: string): boolean {
  const length = [...payload].length;
  return length >= field.minLength && (field.maxLength === null || length <= field.maxLength);
}

/** A field path ("*" for items) against a pointer the author gave ("/items/0/note"). */
function matches(path: readonly string[], wanted: string): boolean {
  const tokens =
    wanted === ""
      ? []
      : wanted
          .slice(1)
          .split("/")
          .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  return (
    tokens.length === path.length &&
    path.every((segment, i) => segment === tokens[i] || (segment === "*" && /^(0|[1-9][0-9]*)$/.test(tokens[i] ?? "")))
  );
}

function templatesOf(variant: Variant, at: string): Template[] {
  const templates: Template[] = [{ at: `${at}/result`, rule: null, value: variant.result }];
  (variant.rules ?? []).forEach((rule, index) => {
    if (rule.result !== undefined)
      templates.push({ at: `${at}/rules/${index}/result`, rule: index, value: rule.result });
  });
  return templates;
}

/** Where a template can take the payload, best first. */
function placements(template: JsonValue, fields: readonly StringField[], payload: string): Placement[] {
  const found: Array<Placement & { rank: number }> = [];
  fields.forEach((field, order) => {
    const placement = placementIn(template, field, payload);
    if (placement === null) return;
    const key = field.path.at(-1) ?? "";
    // Prose-like keys first, identifiers last: a payload in an id would break the agent's next call, not test it.
    const lower = key.toLowerCase();
    const prose = PROSE_KEYS.includes(lower)
      ? PROSE_KEYS.indexOf(lower)
      : /(^|_)id$|Id$/.test(key)
        ? PROSE_KEYS.length + 1
        : PROSE_KEYS.length;
    const kind = placement.how === "appended" ? 0 : placement.how === "added" ? 1 : 2;
    found.push({ ...placement, rank: kind * 10_000 + prose * 100 + order });
  });
  const seen = new Set<string>();
  return found
    .sort((a, b) => a.rank - b.rank)
    .filter((p) => {
      const key = p.concrete.join("\u0000");
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}

/**
 * A template the payload may replace: a version-1 operator, or version 2's {"$expr": ...}. (In a
 * version-1 definition that object is data, and an object never validates as the string field it
 * would stand in: the examples the draft is checked with would refuse it.)
 */
function isExpression(value: unknown): boolean {
  if (expressionOperator(value) !== null) return true;
  return isJsonObject(value) && Object.keys(value).length === 1 && Object.hasOwn(value, "$expr");
}

function placementIn(template: JsonValue, field: StringField, payload: string): Placement | null {
  if (field.path.length === 0) return null;
  let node: JsonValue = template;
  const concrete: string[] = [];
  for (let i = 0; i < field.path.length - 1; i++) {
    const segment = field.path[i] ?? "";
    if (segment === "*") {
      if (!Array.isArray(node) || node.length === 0) return null;
      concrete.push("0");
      node = node[0] as JsonValue;
    } else if (/^[0-9]+$/.test(segment) && Array.isArray(node)) {
      const item = node[Number(segment)];
      if (item === undefined) return null;
      concrete.push(segment);
      node = item;
    } else {
      if (!isJsonObject(node) || isExpression(node) || !Object.hasOwn(node, segment)) return null;
      concrete.push(segment);
      node = node[segment] as JsonValue;
    }
  }
  const last = field.path.at(-1) ?? "";
  if (last === "*" || !isJsonObject(node) || isExpression(node)) return null;
  concrete.push(last);
  if (!Object.hasOwn(node, last)) return field.required ? null : { field, concrete, how: "added", value: payload };
  const current = node[last];
  if (typeof current === "string") {
    const appended = current + SEPARATOR + payload;
    const room = field.maxLength === null || [...appended].length <= field.maxLength;
    return { field, concrete, how: room ? "appended" : "replaced", value: room ? appended : payload };
  }
  if (isExpression(current)) return { field, concrete, how: "replaced", value: payload };
  return null;
}

function buildVariant(
  base: Variant,
  templates: readonly Template[],
  options: readonly Placement[][],
  chosen: readonly number[],
): Variant {
  const variant: Variant = copyJson(base as unknown as JsonObject) as unknown as Variant;
  templates.forEach((template, index) => {
    const placement = options[index]?.[chosen[index] ?? Number.POSITIVE_INFINITY];
    if (!placement) return;
    const edited = setAt(copyJson(template.value), placement.concrete, placement.value);
    if (template.rule === null) variant.result = edited;
    else {
      const rule = variant.rules?.[template.rule];
      if (rule) rule.result = edited;
    }
  });
  return variant;
}

function setAt(value: JsonValue, path: readonly string[], text: string): JsonValue {
  let node: JsonValue = value;
  for (let i = 0; i < path.length - 1; i++) node = (node as Record<string, JsonValue>)[path[i] ?? ""] as JsonValue;
  // SAFETY: placementIn walked this same path and found an object (or array) at every step.
  (node as Record<string, JsonValue>)[path.at(-1) ?? ""] = text;
  return value;
}

/** The definition with `name` set to `variant` (replacing any earlier derivation and its examples). */
function withVariant(definition: MockDefinition, name: string, variant: Variant, examples: Example[]): MockDefinition {
  const kept = definition.examples.filter((example) => example.variant !== name);
  return {
    ...definition,
    variants: { ...definition.variants, [name]: variant },
    examples: [...kept.map((example) => copyJson(example as unknown as JsonObject) as unknown as Example), ...examples],
  };
}

function limitProblem(definition: MockDefinition): Problem | null {
  const variants = Object.keys(definition.variants).length;
  if (variants > LIMITS.maxVariants)
    return {
      path: "/variant",
      message: `the definition would have ${variants} variants, more than the ${LIMITS.maxVariants} allowed; derive into an existing injection variant's name instead`,
    };
  if (definition.examples.length > LIMITS.maxExamples) {
    return {
      path: "/base_variant",
      message: `copying the base variant's examples would give ${definition.examples.length} examples, more than the ${LIMITS.maxExamples} allowed`,
    };
  }
  return null;
}

function notInjectable(all: readonly StringField[], rejected: readonly Problem[], payload: string): InjectResult {
  const length = [...payload].length;
  const tooShort = all.map((field) => ({
    path: `/output_schema${field.schema}`,
    message: `the string at ${describePath(field.path)} allows ${field.minLength} to ${field.maxLength ?? "any"} characters; the payload has ${length}`,
  }));
  const problems = [...rejected.map((p) => ({ path: `/output_schema${p.path}`, message: p.message })), ...tooShort];
  return {
    ok: false,
    code: "not_injectable",
    message:
      "the output schema has no string field that can carry the payload (free text without enum, const, format or pattern, long enough for it)",
    problems:
      problems.length > 0
        ? problems
        : [{ path: "/output_schema", message: "the output schema declares no string field" }],
  };
}
