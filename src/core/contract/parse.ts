/**
 * parseDefinition: turns untrusted input (a request body, a stored row) into a MockDefinition,
 * or into the complete list of what is wrong with it. It never stops at the first problem,
 * because an author fixing a fixture wants every error in one round trip, and it never throws.
 */
import { utf8Length } from "../utf8.js";
import type { JsonObject, JsonValue, Problem } from "../json.js";
import { isJsonObject, pointer } from "../json.js";
import { compileDefinition, type TemplateCache } from "./compile.js";
import { CONDITION_OPS, CONDITION_SOURCES } from "./conditions.js";
import { compileWrites } from "./writes.js";
import { compileCondition, isExpressionCondition } from "./conditions.js";
import { compileTemplate, VERSION_1, type TemplateContext } from "./expressions.js";
import { LIMITS, SCHEMA_VERSION, SCHEMA_VERSION_2, VARIANT_NAME } from "./limits.js";
import { pathProblem, splitPath } from "./paths.js";
import { readDatasetPin } from "../datasets/pin.js";
import type { MockDefinition } from "./types.js";
import { child, copyJson, describe, jsonTypeOf } from "./values.js";

export type ParseResult = { ok: true; definition: MockDefinition } | { ok: false; errors: Problem[] };

const ROOT_KEYS = ["schema_version", "default_variant", "initial_state", "dataset", "variants", "examples"] as const;
const VARIANT_KEYS = ["result", "set_state", "delay_ms", "rules"] as const;
const RULE_KEYS = ["when", "result", "set_state", "delay_ms"] as const;
const CONDITION_KEYS = ["source", "path", "op", "value"] as const;
const EXAMPLE_KEYS = ["variant", "input", "state", "expected"] as const;

/** Non-JSON problems are a caller's bug rather than an author's; a handful is enough to fix it. */
const MAX_NON_JSON_PROBLEMS = 20;

/**
 * Parses and checks a version-1 mock definition. On success the definition is a fresh copy
 * (later changes to `raw` do not reach it) and is already compiled for calls.
 *
 * @example
 * const parsed = parseDefinition(JSON.parse(body));
 * if (!parsed.ok) return problems(422, parsed.errors); // e.g. [{ path: "/variants/ok/delay_ms", message: "..." }]
 */
export function parseDefinition(raw: unknown): ParseResult {
  try {
    return parse(raw);
  } catch (error) {
    // Only reachable with hostile objects (throwing getters, proxies): JSON text never gets here.
    const reason = error instanceof Error ? error.message : describe(error);
    return { ok: false, errors: [{ path: "", message: `the definition could not be read as JSON: ${reason}` }] };
  }
}

function parse(raw: unknown): ParseResult {
  const nonJson: Problem[] = [];
  checkJson(raw, [], [], nonJson);
  if (nonJson.length > 0) return { ok: false, errors: nonJson };
  // From here on the checks read a private copy, so the copy that is returned is exactly what was
  // checked (even if the caller changes `raw` later) and its compiled templates can be kept.
  // SAFETY: checkJson found nothing that JSON text could not express.
  const copy = copyJson(raw as JsonValue);
  const templates: TemplateCache = new Map();

  const errors: Problem[] = [];
  const bytes = utf8Length(JSON.stringify(copy));
  if (bytes > LIMITS.maxDefinitionBytes) {
    errors.push({
      path: "",
      message: `expected at most ${LIMITS.maxDefinitionBytes} bytes of UTF-8 JSON; the definition is ${bytes} bytes`,
    });
  }
  if (!isJsonObject(copy)) {
    errors.push({ path: "", message: `expected a JSON object (the mock definition); got ${jsonTypeOf(copy)}` });
    return { ok: false, errors };
  }
  const root: JsonObject = copy;
  unknownKeys(root, "", ROOT_KEYS, errors);

  if (!Object.hasOwn(root, "schema_version")) {
    errors.push({ path: "/schema_version", message: `required: expected ${SCHEMA_VERSION} or ${SCHEMA_VERSION_2}` });
  } else if (root.schema_version !== SCHEMA_VERSION && root.schema_version !== SCHEMA_VERSION_2) {
    errors.push({
      path: "/schema_version",
      message: `expected ${SCHEMA_VERSION} or ${SCHEMA_VERSION_2}; got ${describe(root.schema_version)}`,
    });
  }
  // The rest is read as the version it says (version 1 when the version itself is wrong).
  const context: TemplateContext = root.schema_version === SCHEMA_VERSION_2 ? { version: 2, locals: [] } : VERSION_1;

  const variantNames = checkVariants(root, errors, templates, context);

  if (!Object.hasOwn(root, "default_variant")) {
    errors.push({ path: "/default_variant", message: "required: expected the name of one of the variants" });
  } else if (typeof root.default_variant !== "string") {
    errors.push({
      path: "/default_variant",
      message: `expected a variant name (string); got ${jsonTypeOf(root.default_variant)}`,
    });
  } else if (variantNames !== null && !variantNames.includes(root.default_variant)) {
    errors.push({
      path: "/default_variant",
      message: `expected the name of one of the variants (${variantNames.join(", ")}); got "${root.default_variant}"`,
    });
  }

  if (Object.hasOwn(root, "initial_state") && !isJsonObject(root.initial_state)) {
    errors.push({ path: "/initial_state", message: `expected an object; got ${jsonTypeOf(root.initial_state)}` });
  }
  if (Object.hasOwn(root, "dataset")) checkDatasetPin(root, errors);

  const exampled = checkExamples(root, variantNames, errors);
  if (variantNames !== null && exampled !== null) {
    for (const name of variantNames) {
      if (!exampled.has(name)) {
        errors.push({
          path: child("/variants", name),
          message: `expected at least one example with "variant": "${name}" (every variant needs a checked example)`,
        });
      }
    }
  }

  if (errors.length > 0) return { ok: false, errors };
  // SAFETY: every field was checked above against the MockDefinition shape.
  const definition = root as unknown as MockDefinition;
  compileDefinition(definition, templates);
  return { ok: true, definition };
}

/** Records a non-JSON problem at the current token path (a function, not a closure per node). */
function note(problems: Problem[], tokens: readonly string[], message: string): void {
  problems.push({ path: pointer(...tokens), message });
}

/**
 * Refuses anything JSON text could not have produced (undefined, functions, NaN, class
 * instances, holes, cycles) and nesting deep enough to threaten the recursive walks. The path is
 * kept as a stack of tokens and only turned into a pointer when there is something to report.
 */
function checkJson(value: unknown, tokens: string[], ancestors: object[], problems: Problem[]): void {
  if (problems.length >= MAX_NON_JSON_PROBLEMS) return;
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) note(problems, tokens, `expected a finite JSON number; got ${String(value)}`);
    return;
  }
  if (typeof value !== "object") {
    note(problems, tokens, `expected a JSON value; got ${typeof value}`);
    return;
  }
  // The ancestors are a short array (the nesting bound keeps it under 64), cheaper than a Set.
  if (ancestors.includes(value)) {
    note(problems, tokens, "expected a JSON value; this object contains itself");
    return;
  }
  if (tokens.length >= LIMITS.maxNesting) {
    note(problems, tokens, `expected at most ${LIMITS.maxNesting} levels of nesting`);
    return;
  }
  ancestors.push(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      tokens.push(String(i));
      if (!(i in value)) note(problems, tokens, "expected a JSON value; the array has a hole here");
      else checkJson(value[i], tokens, ancestors, problems);
      tokens.pop();
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      note(problems, tokens, "expected a plain JSON object; got an instance of a class");
    } else {
      // SAFETY: a plain object, read as a record.
      const record = value as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        tokens.push(key);
        checkJson(record[key], tokens, ancestors, problems);
        tokens.pop();
      }
    }
  }
  ancestors.pop();
}

function unknownKeys(record: JsonObject, at: string, allowed: readonly string[], errors: Problem[]): void {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) {
      errors.push({ path: child(at, key), message: `unknown key "${key}"; expected only ${allowed.join(", ")}` });
    }
  }
}

function countProblem(what: string, min: number, max: number, found: number): string | null {
  if (found >= min && found <= max) return null;
  return `expected ${min === 0 ? "at most" : `${min} to`} ${max} ${what}; found ${found}`;
}

/** Checks /variants; answers the variant names when /variants is an object (for cross-checks). */
function checkVariants(
  root: JsonObject,
  errors: Problem[],
  templates: TemplateCache,
  context: TemplateContext,
): string[] | null {
  if (!Object.hasOwn(root, "variants")) {
    errors.push({ path: "/variants", message: "required: expected an object of named variants" });
    return null;
  }
  const variants = root.variants;
  if (!isJsonObject(variants)) {
    errors.push({ path: "/variants", message: `expected an object of named variants; got ${jsonTypeOf(variants)}` });
    return null;
  }
  const names = Object.keys(variants);
  const count = countProblem("variants", LIMITS.minVariants, LIMITS.maxVariants, names.length);
  if (count !== null) errors.push({ path: "/variants", message: count });
  for (const name of names) {
    const at = child("/variants", name);
    if (!VARIANT_NAME.test(name)) {
      errors.push({
        path: at,
        message: `expected a variant name of 1 to 64 characters from A-Z a-z 0-9 _ . -; got ${describe(name)}`,
      });
    }
    checkVariant(variants[name], at, errors, templates, context);
  }
  return names;
}

/** Compiles a template for its problems, and keeps the compiled form for compileDefinition. */
function checkTemplate(
  value: JsonValue | undefined,
  at: string,
  errors: Problem[],
  templates: TemplateCache,
  context: TemplateContext,
): void {
  const template = compileTemplate(value, at, errors, 0, context);
  if (value !== null && typeof value === "object") templates.set(value, template);
}

function checkVariant(
  variant: unknown,
  at: string,
  errors: Problem[],
  templates: TemplateCache,
  context: TemplateContext,
): void {
  if (!isJsonObject(variant)) {
    errors.push({
      path: at,
      message: `expected a variant object {result, set_state?, delay_ms?, rules?}; got ${jsonTypeOf(variant)}`,
    });
    return;
  }
  unknownKeys(variant, at, VARIANT_KEYS, errors);
  if (!Object.hasOwn(variant, "result")) {
    errors.push({ path: `${at}/result`, message: "required: expected the result template (any JSON value)" });
  } else {
    checkTemplate(variant.result, `${at}/result`, errors, templates, context);
  }
  if (Object.hasOwn(variant, "set_state"))
    checkSetState(variant.set_state, `${at}/set_state`, errors, templates, context);
  if (Object.hasOwn(variant, "delay_ms")) checkDelay(variant.delay_ms, `${at}/delay_ms`, errors);
  if (Object.hasOwn(variant, "rules")) {
    const rules = variant.rules;
    if (!Array.isArray(rules)) {
      errors.push({ path: `${at}/rules`, message: `expected an array of rules; got ${jsonTypeOf(rules)}` });
      return;
    }
    const count = countProblem("rules per variant", 0, LIMITS.maxRulesPerVariant, rules.length);
    if (count !== null) errors.push({ path: `${at}/rules`, message: count });
    for (const [index, rule] of rules.entries()) checkRule(rule, `${at}/rules/${index}`, errors, templates, context);
  }
}

function checkRule(
  rule: unknown,
  at: string,
  errors: Problem[],
  templates: TemplateCache,
  context: TemplateContext,
): void {
  if (!isJsonObject(rule)) {
    errors.push({
      path: at,
      message: `expected a rule object {when, result?, set_state?, delay_ms?}; got ${jsonTypeOf(rule)}`,
    });
    return;
  }
  unknownKeys(rule, at, RULE_KEYS, errors);
  if (!Object.hasOwn(rule, "when")) {
    errors.push({ path: `${at}/when`, message: "required: expected an array of 1 to 20 conditions" });
  } else if (!Array.isArray(rule.when)) {
    errors.push({
      path: `${at}/when`,
      message: `expected an array of 1 to 20 conditions; got ${jsonTypeOf(rule.when)}`,
    });
  } else {
    const count = countProblem(
      "conditions",
      LIMITS.minConditionsPerRule,
      LIMITS.maxConditionsPerRule,
      rule.when.length,
    );
    if (count !== null) errors.push({ path: `${at}/when`, message: count });
    rule.when.forEach((condition, index) => {
      const conditionAt = `${at}/when/${index}`;
      // Version 2 adds {"expr": "..."}; compiling it reports its problems.
      if (context.version === 2 && isExpressionCondition(condition))
        compileCondition(condition, 2, conditionAt, errors);
      else checkCondition(condition, conditionAt, errors, context);
    });
  }
  if (Object.hasOwn(rule, "result")) checkTemplate(rule.result, `${at}/result`, errors, templates, context);
  if (Object.hasOwn(rule, "set_state")) checkSetState(rule.set_state, `${at}/set_state`, errors, templates, context);
  if (Object.hasOwn(rule, "delay_ms")) checkDelay(rule.delay_ms, `${at}/delay_ms`, errors);
}

function checkCondition(condition: unknown, at: string, errors: Problem[], context: TemplateContext): void {
  if (!isJsonObject(condition)) {
    const shapes = context.version === 2 ? '{source, path, op, value} or {"expr": "..."}' : "{source, path, op, value}";
    errors.push({ path: at, message: `expected a condition object ${shapes}; got ${jsonTypeOf(condition)}` });
    return;
  }
  unknownKeys(condition, at, CONDITION_KEYS, errors);
  const { source, path, op } = condition;
  if (!Object.hasOwn(condition, "source")) {
    errors.push({ path: `${at}/source`, message: 'required: expected "input" or "state"' });
  } else if (typeof source !== "string" || !CONDITION_SOURCES.has(source)) {
    errors.push({ path: `${at}/source`, message: `expected "input" or "state"; got ${describe(source)}` });
  }
  if (!Object.hasOwn(condition, "path")) {
    errors.push({ path: `${at}/path`, message: 'required: expected a dot-separated path ("" for the whole value)' });
  } else if (typeof path !== "string") {
    errors.push({ path: `${at}/path`, message: `expected a dot-separated path string; got ${jsonTypeOf(path)}` });
  } else {
    const problem = pathProblem(path, true);
    if (problem !== null) errors.push({ path: `${at}/path`, message: problem });
  }
  let opKnown = false;
  if (!Object.hasOwn(condition, "op")) {
    errors.push({ path: `${at}/op`, message: "required: expected one of eq, ne, in, exists" });
  } else if (typeof op !== "string" || !CONDITION_OPS.has(op)) {
    errors.push({ path: `${at}/op`, message: `expected one of eq, ne, in, exists; got ${describe(op)}` });
  } else {
    opKnown = true;
  }
  if (!Object.hasOwn(condition, "value")) {
    const expected = op === "in" ? "an array" : op === "exists" ? "a boolean" : "a JSON value to compare with";
    errors.push({ path: `${at}/value`, message: `required: expected ${expected}` });
  } else if (opKnown && op === "in" && !Array.isArray(condition.value)) {
    errors.push({ path: `${at}/value`, message: `expected an array for op "in"; got ${jsonTypeOf(condition.value)}` });
  } else if (opKnown && op === "exists" && typeof condition.value !== "boolean") {
    errors.push({
      path: `${at}/value`,
      message: `expected true or false for op "exists"; got ${jsonTypeOf(condition.value)}`,
    });
  }
}

function checkSetState(
  setState: unknown,
  at: string,
  errors: Problem[],
  templates: TemplateCache,
  context: TemplateContext,
): void {
  if (context.version === 2) {
    // Version 2: an ordered list of writes; compiling it reports every problem.
    compileWrites(setState, at, errors);
    return;
  }
  if (!isJsonObject(setState)) {
    errors.push({
      path: at,
      message: `expected an object of state paths to value templates; got ${jsonTypeOf(setState)}`,
    });
    return;
  }
  const usable = new Map<string, string[]>();
  for (const key of Object.keys(setState)) {
    const keyAt = child(at, key);
    const problem = pathProblem(key, false);
    if (problem !== null) errors.push({ path: keyAt, message: problem });
    else usable.set(key, splitPath(key));
    checkTemplate(setState[key], keyAt, errors, templates, context);
  }
  // All keys are applied after rendering, so "a" and "a.b" together would make the outcome
  // depend on key order: refuse the pair and name the shorter key.
  for (const [key, segments] of usable) {
    for (let length = 1; length < segments.length; length++) {
      const prefix = segments.slice(0, length).join(".");
      if (usable.has(prefix)) {
        errors.push({
          path: child(at, key),
          message: `expected keys that are not prefixes of one another; "${prefix}" already sets a value containing "${key}"`,
        });
        break;
      }
    }
  }
}

function checkDelay(delay: unknown, at: string, errors: Problem[]): void {
  if (typeof delay !== "number" || !Number.isInteger(delay) || delay < LIMITS.minDelayMs || delay > LIMITS.maxDelayMs) {
    errors.push({
      path: at,
      message: `expected an integer number of milliseconds from ${LIMITS.minDelayMs} to ${LIMITS.maxDelayMs}; got ${describe(delay)}`,
    });
  }
}

/** Checks /examples; answers the set of variants that have an example, or null when unknown. */
/**
 * A version-2 definition may start its tool from a stored dataset version instead of initial_state.
 * The dataset is not read when the definition is checked (parsing is pure, and the content may be
 * megabytes), so every example must carry the `state` it runs against: an example checks the rules,
 * and its state holds the few records it needs. Whether the version exists is the save's to check.
 */
function checkDatasetPin(root: JsonObject, errors: Problem[]): void {
  if (root.schema_version !== SCHEMA_VERSION_2) {
    errors.push({ path: "/dataset", message: `a dataset pin needs "schema_version": ${SCHEMA_VERSION_2}` });
    return;
  }
  const read = readDatasetPin(root.dataset, "/dataset");
  if ("problems" in read) errors.push(...read.problems);
  if (Object.hasOwn(root, "initial_state"))
    errors.push({
      path: "/initial_state",
      message: "give either initial_state or dataset (the tool's starting state), not both",
    });
  if (!Array.isArray(root.examples)) return;
  root.examples.forEach((example, index) => {
    if (isJsonObject(example) && !Object.hasOwn(example, "state"))
      errors.push({
        path: `/examples/${index}/state`,
        message:
          "required with a dataset pin: the state this example runs against (the dataset is not read when a definition is checked)",
      });
  });
}

function checkExamples(root: JsonObject, variantNames: string[] | null, errors: Problem[]): Set<string> | null {
  if (!Object.hasOwn(root, "examples")) {
    errors.push({ path: "/examples", message: "required: expected an array of 1 to 100 checked examples" });
    return null;
  }
  const examples = root.examples;
  if (!Array.isArray(examples)) {
    errors.push({
      path: "/examples",
      message: `expected an array of 1 to 100 checked examples; got ${jsonTypeOf(examples)}`,
    });
    return null;
  }
  const count = countProblem("examples", LIMITS.minExamples, LIMITS.maxExamples, examples.length);
  if (count !== null) errors.push({ path: "/examples", message: count });
  const exampled = new Set<string>();
  examples.forEach((example, index) => {
    const at = `/examples/${index}`;
    if (!isJsonObject(example)) {
      errors.push({
        path: at,
        message: `expected an example object {variant, input, state?, expected}; got ${jsonTypeOf(example)}`,
      });
      return;
    }
    unknownKeys(example, at, EXAMPLE_KEYS, errors);
    if (!Object.hasOwn(example, "variant")) {
      errors.push({ path: `${at}/variant`, message: "required: expected the name of the variant this example checks" });
    } else if (typeof example.variant !== "string") {
      errors.push({
        path: `${at}/variant`,
        message: `expected a variant name (string); got ${jsonTypeOf(example.variant)}`,
      });
    } else if (variantNames !== null && !variantNames.includes(example.variant)) {
      errors.push({
        path: `${at}/variant`,
        message: `expected the name of one of the variants; there is no variant "${example.variant}"`,
      });
    } else {
      exampled.add(example.variant);
    }
    if (!Object.hasOwn(example, "input")) {
      errors.push({ path: `${at}/input`, message: "required: expected the arguments object of the example call" });
    } else if (!isJsonObject(example.input)) {
      errors.push({ path: `${at}/input`, message: `expected an arguments object; got ${jsonTypeOf(example.input)}` });
    }
    if (Object.hasOwn(example, "state") && !isJsonObject(example.state)) {
      errors.push({
        path: `${at}/state`,
        message: `expected an object (the pre-call state); got ${jsonTypeOf(example.state)}`,
      });
    }
    if (!Object.hasOwn(example, "expected")) {
      errors.push({ path: `${at}/expected`, message: "required: expected the exact result the call must render" });
    }
  });
  return exampled;
}
