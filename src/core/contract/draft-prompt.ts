/**
 * The prompt that turns an author's instructions into a draft mock definition (seed 003,
 * `action: "generate"` with `instructions`), in one place with its version. The model only
 * proposes: its answer goes through checkDefinition like any authored definition, and a draft is
 * never saved by itself. The contract is passed as JSON data; the instructions are the author's
 * (someone allowed to manage the tool) and are meant to be followed.
 */
import { isJsonObject, type JsonObject } from "../json.js";
import type { ChatMessage } from "../ports.js";
import { LIMITS, VARIANT_NAME } from "./limits.js";
import type { OperationContract } from "./types.js";

/** Bump on any change to the instructions, the format statement or the response schema. */
export const DRAFT_PROMPT_VERSION = "mock-draft/1";

/** A compact statement of docs/mock-definition.md: what the model must produce and what the checker enforces. */
const FORMAT = `A mock definition (version 1) is one JSON object:
{"schema_version": 1, "default_variant": "<name>", "initial_state": {...} (optional), "variants": {"<name>": <variant>, ...}, "examples": [<example>, ...]}
- Variant names match ${VARIANT_NAME.source}; 1 to ${LIMITS.maxVariants} variants; default_variant names one of them.
- A variant is one way the tool behaves (success, not_found, outage, ...): {"result": <template>, "set_state": {"<path>": <template>} (optional), "delay_ms": <integer ${LIMITS.minDelayMs}..${LIMITS.maxDelayMs}> (optional), "rules": [<rule>, ... (at most ${LIMITS.maxRulesPerVariant})] (optional)}.
- A rule: {"when": [<condition>, ... (1 to ${LIMITS.maxConditionsPerRule})], "result"?, "set_state"?, "delay_ms"?}. Rules are tried in order; the first whose conditions all hold decides; what it leaves out comes from the variant.
- A condition: {"source": "input" | "state", "path": "<dot.separated.path>", "op": "eq" | "ne" | "in" | "exists", "value": <literal>}. "in" takes an array, "exists" takes true or false. Paths use dots; digit segments index arrays; "" is the whole value.
- A template is literal JSON, except an object with exactly one of these keys, which is an expression: {"$input": "<path>"} (the argument at path), {"$state": "<path>"} (the state before the call), {"$number": <template>} (a number from a number or a plain decimal string), {"$dateAdd": {"value": <template with a YYYY-MM-DD date or an RFC 3339 timestamp>, "days": <integer ${LIMITS.minDays}..${LIMITS.maxDays}>, "hours": <integer ${LIMITS.minHours}..${LIMITS.maxHours}>}} (a UTC timestamp like 2025-03-08T09:00:00.000Z: the written date at midnight plus the offsets). There are no other expressions: no string templates, no arithmetic, no code.
- set_state writes after the call (all values are rendered against the state before it); no key may be a prefix path of another.
- An example: {"variant": "<name>", "input": {<arguments>}, "state": {...} (optional, default initial_state), "expected": <the exact rendered result>}. Every variant needs at least one example; 1 to ${LIMITS.maxExamples} examples.
- Every object is closed: no keys other than the ones above.
The checker runs every example: the input must validate against the input schema, the rendered result against the output schema, and it must equal "expected" exactly. Write each "expected" as the literal value the variant renders for that input (expressions already evaluated).`;

const SYSTEM = [
  "You write mock definitions for toolproof, which tests AI agents against simulated tools.",
  "A mock definition stands in for one tool operation: it plays back results an author wrote down, checked against the operation's JSON Schemas.",
  FORMAT,
  "The user message is JSON data with the operation's contract (its description, input_schema and output_schema) and the author's instructions: the behaviours the mock should have (variants, rules that react to particular arguments or to earlier calls, latency).",
  "Follow the instructions within the format. Give each variant an example, and one example for each rule, with inputs that satisfy the input schema and results that satisfy the output schema.",
  "Answer with only the definition's JSON object: no prose, no code fence.",
].join("\n\n");

export function draftMessages(contract: OperationContract, instructions: string): ChatMessage[] {
  const body: JsonObject = {
    contract: {
      tool: contract.tool,
      operation: contract.operation,
      description: contract.description,
      input_schema: contract.input_schema,
      output_schema: contract.output_schema,
    },
    instructions,
  };
  return [
    { role: "system", content: SYSTEM },
    { role: "user", content: JSON.stringify(body, null, 2) },
  ];
}

const TEMPLATE = { description: "Literal JSON, or a one-key expression object ($input, $state, $number, $dateAdd)." };
const DELAY = { type: "integer", minimum: LIMITS.minDelayMs, maximum: LIMITS.maxDelayMs };
const SET_STATE = { type: "object", description: "State paths mapped to templates." };

/**
 * The response format for endpoints with structured output. Not strict (OpenAI's strict mode
 * needs every object closed and typed, and results and states are any JSON): it guides the answer,
 * endpoints that constrain decoding to a schema (vLLM, Ollama, LM Studio) follow it as it is, and
 * the checker decides either way.
 */
export const DRAFT_RESPONSE_FORMAT: { name: string; schema: JsonObject; strict: false } = {
  name: "mock_definition",
  strict: false,
  schema: {
    type: "object",
    required: ["schema_version", "default_variant", "variants", "examples"],
    additionalProperties: false,
    properties: {
      schema_version: { type: "integer", enum: [1] },
      default_variant: { type: "string" },
      initial_state: { type: "object" },
      variants: {
        type: "object",
        minProperties: 1,
        maxProperties: LIMITS.maxVariants,
        propertyNames: { pattern: VARIANT_NAME.source },
        additionalProperties: { $ref: "#/$defs/variant" },
      },
      examples: { type: "array", minItems: 1, maxItems: LIMITS.maxExamples, items: { $ref: "#/$defs/example" } },
    },
    $defs: {
      variant: {
        type: "object",
        required: ["result"],
        additionalProperties: false,
        properties: {
          result: TEMPLATE,
          set_state: SET_STATE,
          delay_ms: DELAY,
          rules: { type: "array", maxItems: LIMITS.maxRulesPerVariant, items: { $ref: "#/$defs/rule" } },
        },
      },
      rule: {
        type: "object",
        required: ["when"],
        additionalProperties: false,
        properties: {
          when: {
            type: "array",
            minItems: 1,
            maxItems: LIMITS.maxConditionsPerRule,
            items: { $ref: "#/$defs/condition" },
          },
          result: TEMPLATE,
          set_state: SET_STATE,
          delay_ms: DELAY,
        },
      },
      condition: {
        type: "object",
        required: ["source", "path", "op", "value"],
        additionalProperties: false,
        properties: {
          source: { type: "string", enum: ["input", "state"] },
          path: { type: "string" },
          op: { type: "string", enum: ["eq", "ne", "in", "exists"] },
          value: { description: "A literal; an array for in, a boolean for exists." },
        },
      },
      example: {
        type: "object",
        required: ["variant", "input", "expected"],
        additionalProperties: false,
        properties: {
          variant: { type: "string" },
          input: { type: "object" },
          state: { type: "object" },
          expected: { description: "The exact result the variant renders for this input." },
        },
      },
    },
  },
};

export type DraftAnswer = { ok: true; definition: JsonObject } | { ok: false; problem: string };

/** A fenced ```json block around the whole answer, which chat models produce even when told not to. */
const FENCED_JSON = /^```(?:json)?[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

/**
 * The model's answer as a candidate definition: a JSON object (optionally in one fenced block),
 * or why it is not one. Whether it is a valid definition is the checker's to say.
 */
export function parseDraftAnswer(raw: string | null): DraftAnswer {
  if (raw === null || raw.trim() === "") return { ok: false, problem: "the model gave no answer" };
  const trimmed = raw.trim();
  let value: unknown;
  try {
    value = JSON.parse(FENCED_JSON.exec(trimmed)?.[1] ?? trimmed);
  } catch {
    return { ok: false, problem: "the model's answer is not JSON" };
  }
  if (!isJsonObject(value)) return { ok: false, problem: "the model's answer is JSON but not an object" };
  return { ok: true, definition: value };
}
