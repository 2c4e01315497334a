/**
 * Property-based tests: the engine's promises that must hold for every input, not just for the
 * hand-picked cases of the other files.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileCondition, conditionHolds } from "../../../src/core/contract/conditions.js";
import { dateAdd } from "../../../src/core/contract/datetime.js";
import { checkDefinition, executeCall, parseDefinition } from "../../../src/core/contract/index.js";
import type { MockDefinition } from "../../../src/core/contract/index.js";
import { canonicalJson, jsonEqual } from "../../../src/core/json.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import { contract, parsed, validator } from "./helpers.js";

const RUNS = 200;

/** fast-check's jsonValue, typed as the project's JsonValue. */
function jsonArb(constraints: Parameters<typeof fc.jsonValue>[0] = {}): fc.Arbitrary<JsonValue> {
  // SAFETY: fc.jsonValue only produces values JSON text can express; its type merely allows
  // undefined object members, which it never generates.
  return fc.jsonValue(constraints).map((value) => value as JsonValue);
}

/** A deep copy of `value` with every object's keys in a permuted order. */
function reorder(value: JsonValue, seed: number): JsonValue {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item, i) => reorder(item, seed + i));
  const keys = Object.keys(value);
  // SAFETY: the index is taken modulo keys.length.
  const rotated = keys.map((_, i) => keys[(i + seed) % keys.length] as string).reverse();
  const out: JsonObject = {};
  // SAFETY: key is an own key of value (a permutation of its keys).
  for (const key of rotated)
    Object.defineProperty(out, key, {
      value: reorder(value[key] as JsonValue, seed + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}

describe("jsonEqual and canonicalJson", () => {
  it("jsonEqual is symmetric", () => {
    fc.assert(
      fc.property(jsonArb(), jsonArb(), (a, b) => jsonEqual(a, b) === jsonEqual(b, a)),
      { numRuns: RUNS },
    );
  });

  it("jsonEqual ignores key order, and canonicalJson agrees", () => {
    fc.assert(
      fc.property(jsonArb(), fc.nat(), (value, seed) => {
        const shuffled = reorder(value, seed);
        return (
          jsonEqual(value, shuffled) && jsonEqual(shuffled, value) && canonicalJson(value) === canonicalJson(shuffled)
        );
      }),
      { numRuns: RUNS },
    );
  });

  it("canonicalJson is equal exactly for jsonEqual values", () => {
    fc.assert(
      fc.property(jsonArb(), jsonArb(), (a, b) => jsonEqual(a, b) === (canonicalJson(a) === canonicalJson(b))),
      { numRuns: RUNS },
    );
    fc.assert(
      fc.property(jsonArb(), (a) => {
        const copy: unknown = JSON.parse(JSON.stringify(a));
        return jsonEqual(a, copy) && canonicalJson(a) === canonicalJson(copy);
      }),
      { numRuns: RUNS },
    );
  });
});

const validDefinition: JsonObject = {
  schema_version: 1,
  default_variant: "ok",
  initial_state: { reference: "R-1", list: [1, 2] },
  variants: {
    ok: {
      result: {
        reference: { $state: "reference" },
        total: { $number: { $input: "amount" } },
        due: { $dateAdd: { value: { $input: "d" }, days: 1 } },
      },
      set_state: { "a.b": { $input: "x" } },
      delay_ms: 5,
      rules: [{ when: [{ source: "input", path: "x", op: "in", value: [1, 2] }], result: null, delay_ms: 0 }],
    },
    other: { result: [1, { $input: "" }] },
  },
  examples: [
    { variant: "ok", input: { amount: "1", d: "2024-01-01" }, expected: null },
    { variant: "other", input: {}, state: {}, expected: [1, {}] },
  ],
};

/** Every container in `root` with the pointer-less path to it, for picking mutation targets. */
function containers(root: JsonValue): Array<JsonObject | JsonValue[]> {
  const found: Array<JsonObject | JsonValue[]> = [];
  const walk = (value: JsonValue) => {
    if (value === null || typeof value !== "object") return;
    found.push(value);
    for (const child of Array.isArray(value) ? value : Object.values(value)) walk(child);
  };
  walk(root);
  return found;
}

const KEYS = [
  "schema_version",
  "default_variant",
  "variants",
  "examples",
  "rules",
  "when",
  "result",
  "set_state",
  "delay_ms",
  "op",
  "value",
  "path",
  "$input",
  "$state",
  "$number",
  "$dateAdd",
  "days",
  "__proto__",
  "x",
];

const mutation = fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.constantFrom(...KEYS), jsonArb({ maxDepth: 2 }));

function mutate(base: JsonObject, mutations: Array<[number, number, string, JsonValue]>): JsonValue {
  // SAFETY: a JSON round trip of a JSON object.
  const doc = JSON.parse(JSON.stringify(base)) as JsonObject;
  for (const [pick, op, key, value] of mutations) {
    const all = containers(doc);
    const target = all[pick % all.length];
    if (target === undefined) continue;
    if (Array.isArray(target)) {
      const index = target.length === 0 ? 0 : pick % target.length;
      if (op === 1) target.splice(index, 1);
      else if (op === 2) target.push(value);
      else target[index] = value;
    } else {
      const keys = Object.keys(target);
      // SAFETY: keys is non-empty here and the index is taken modulo its length.
      const existing = keys.length === 0 ? key : (keys[pick % keys.length] as string);
      if (op === 1) delete target[existing];
      else
        Object.defineProperty(target, op === 2 ? key : existing, {
          value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
  }
  return doc;
}

describe("parseDefinition never throws", () => {
  function answersProperly(raw: unknown): boolean {
    const result = parseDefinition(raw);
    if (result.ok) return typeof result.definition === "object";
    return (
      result.errors.length > 0 &&
      result.errors.every((e) => typeof e.message === "string" && (e.path === "" || e.path.startsWith("/")))
    );
  }

  it("on random JSON", () => {
    fc.assert(fc.property(jsonArb(), answersProperly), { numRuns: RUNS * 2 });
  });

  it("on random JavaScript values", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withDate: true,
          withMap: true,
          withNullPrototype: true,
          withTypedArray: true,
          withSparseArray: true,
        }),
        answersProperly,
      ),
      { numRuns: RUNS },
    );
  });

  it("on random mutations of a valid definition", () => {
    expect(parseDefinition(validDefinition).ok).toBe(true);
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 6 }), (mutations) =>
        answersProperly(mutate(validDefinition, mutations)),
      ),
      { numRuns: RUNS * 3 },
    );
  });
});

describe("checked definitions keep rendering their examples", () => {
  const argsArb = fc.record({
    s: fc.string({ maxLength: 8 }),
    n: fc.oneof(
      fc.integer({ min: -1000, max: 1000 }),
      fc.tuple(fc.nat(9999), fc.nat(99)).map(([a, b]) => `${a}.${b}`),
    ),
    d: fc
      .tuple(fc.integer({ min: 1000, max: 8000 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }))
      .map(([y, m, day]) => `${y}-${String(m).padStart(2, "0")}-${String(day).padStart(2, "0")}`),
    o: fc.dictionary(fc.constantFrom("p", "q"), fc.integer(), { maxKeys: 2 }),
  });
  const literal = jsonArb({ maxDepth: 1 }).filter((v) => !JSON.stringify(v).includes('"$'));
  const { template } = fc.letrec<{ template: JsonValue; leaf: JsonValue }>((tie) => ({
    leaf: fc.oneof(
      literal,
      fc.constantFrom<JsonValue>(
        { $input: "s" },
        { $input: "o" },
        { $input: "" },
        { $state: "k" },
        { $state: "" },
        { $number: { $input: "n" } },
        { $number: "2.50" },
        { $dateAdd: { value: { $input: "d" }, days: 30, hours: -3 } },
        { $dateAdd: { value: { $dateAdd: { value: { $input: "d" }, days: -1 } }, hours: 24 } },
      ),
    ),
    template: fc.oneof(
      { depthSize: "small", maxDepth: 3 },
      tie("leaf"),
      fc.array(tie("template"), { maxLength: 3 }),
      fc.dictionary(fc.constantFrom("a", "b", "c", "d"), tie("template"), { maxKeys: 3 }),
    ),
  }));
  const variantArb = fc.record({
    result: template,
    set_state: fc.option(fc.dictionary(fc.constantFrom("k", "x.y", "z"), template, { maxKeys: 2 }), { nil: undefined }),
    rules: fc.array(
      fc.record({
        when: fc.array(
          fc
            .record({
              source: fc.constantFrom("input", "state"),
              path: fc.constantFrom("s", "o.p", "k", "missing"),
              op: fc.constantFrom("eq", "ne", "exists"),
              value: fc.constantFrom<JsonValue>(true, false, "", 1),
            })
            .map((c) =>
              c.op === "exists" ? { ...c, value: c.value === true } : { ...c, value: c.value === true ? "x" : c.value },
            ),
          { minLength: 1, maxLength: 2 },
        ),
        result: template,
      }),
      { maxLength: 3 },
    ),
  });
  const definitionArb = fc.record({
    variants: fc.dictionary(fc.constantFrom("ok", "err", "slow"), variantArb, { minKeys: 1, maxKeys: 3 }),
    k: jsonArb({ maxDepth: 1 }),
    inputs: fc.array(argsArb, { minLength: 1, maxLength: 3 }),
  });

  it("after a JSON round trip", async () => {
    const simple = contract({ type: "object" }, true);
    await fc.assert(
      fc.asyncProperty(definitionArb, async ({ variants, k, inputs }) => {
        const names = Object.keys(variants);
        const draft: JsonObject = {
          schema_version: 1,
          // SAFETY: variants has at least one key (minKeys: 1).
          default_variant: names[0] as string,
          initial_state: { k },
          // SAFETY: fast-check builds JSON-only records; undefined set_state is dropped by the JSON round trip below.
          variants: JSON.parse(JSON.stringify(variants)) as JsonObject,
          examples: [],
        };
        // Render each example once to learn its expected result; the property is that it stays so.
        const expectedFor = (definition: MockDefinition, variant: string, input: JsonObject): JsonValue | undefined => {
          const outcome = executeCall({
            input_schema: { type: "object" },
            output_schema: true,
            definition,
            variant,
            args: input,
            state: { k },
            validator,
          });
          return outcome.kind === "result" ? outcome.result : undefined;
        };
        const provisional = parseDefinition({
          ...draft,
          examples: names.map((variant) => ({ variant, input: {}, expected: null })),
        });
        if (!provisional.ok) throw new Error(JSON.stringify(provisional.errors));
        const examples: JsonObject[] = [];
        for (const variant of names) {
          for (const input of inputs) {
            const expected = expectedFor(provisional.definition, variant, input);
            if (expected !== undefined) examples.push({ variant, input, expected });
          }
        }
        fc.pre(names.every((name) => examples.some((e) => e.variant === name)));
        const raw = { ...draft, examples };
        const report = await checkDefinition(simple, raw, validator);
        expect(report.valid).toBe(true);

        const again = parsed(JSON.parse(JSON.stringify(raw)));
        for (const example of again.examples) {
          const outcome = executeCall({
            input_schema: { type: "object" },
            output_schema: true,
            definition: again,
            variant: example.variant,
            args: example.input,
            state: example.state ?? { k },
            validator,
          });
          expect(outcome.kind === "result" && jsonEqual(outcome.result, example.expected)).toBe(true);
        }
        expect(await checkDefinition(simple, JSON.parse(JSON.stringify(raw)), validator)).toEqual(report);
      }),
      { numRuns: 100 },
    );
  });
});

describe("rule selection", () => {
  it("is the first rule whose conditions all hold, with or without the rule index", () => {
    const conditionArb = fc
      .record({
        source: fc.constantFrom("input", "state"),
        path: fc.constantFrom("id", "kind", "n", "missing", "o.x"),
        op: fc.constantFrom("eq", "eq", "eq", "ne", "in", "exists"),
        value: fc.constantFrom<JsonValue>("a", "b", "c", 1, 1.0, "1", null, true),
      })
      .map((c) =>
        c.op === "in" ? { ...c, value: [c.value, "b"] } : c.op === "exists" ? { ...c, value: c.value === true } : c,
      );
    const valueArb = fc.constantFrom<JsonValue>("a", "b", "c", 1, "1", null, true, { x: "a" });
    const inputArb = fc.dictionary(fc.constantFrom("id", "kind", "n", "o"), valueArb, { maxKeys: 4 });
    fc.assert(
      fc.property(
        fc.array(fc.array(conditionArb, { minLength: 1, maxLength: 3 }), { minLength: 0, maxLength: 30 }),
        inputArb,
        inputArb,
        (whens, input, state) => {
          const rules = whens.map((when, i) => ({ when, result: i }));
          const definition = parsed({
            schema_version: 1,
            default_variant: "v",
            variants: { v: { result: "none", rules } },
            examples: [{ variant: "v", input: {}, expected: "none" }],
          });
          const naive = whens.findIndex((when) => when.every((c) => conditionHolds(compileCondition(c), input, state)));
          const outcome = executeCall({
            input_schema: true,
            output_schema: true,
            definition,
            args: input,
            state,
            validator,
          });
          expect(outcome).toEqual({
            kind: "result",
            result: naive === -1 ? "none" : naive,
            state,
            state_changed: false,
            variant: "v",
            rule: naive === -1 ? null : naive,
            delay_ms: 0,
          });
        },
      ),
      { numRuns: RUNS * 2 },
    );
  });
});

describe("$dateAdd agrees with an independent calendar", () => {
  it("for any date in years 1..9999 and any allowed offset", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        fc.integer({ min: -3660, max: 3660 }),
        fc.integer({ min: -24, max: 24 }),
        (year, month, day, days, hours) => {
          // The oracle: Date with setUTCFullYear (which, unlike Date.UTC, keeps years below 100).
          const start = new Date(0);
          start.setUTCFullYear(year, month - 1, day);
          start.setUTCHours(0, 0, 0, 0);
          const written = `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
          const validDate = start.getUTCDate() === day;
          const result = dateAdd(written, days, hours);
          if (!validDate) return !result.ok;
          const end = new Date(start.getTime() + (days * 24 + hours) * 3_600_000);
          const endYear = end.getUTCFullYear();
          if (endYear < 1 || endYear > 9999) return !result.ok;
          const expected = `${String(endYear).padStart(4, "0")}${end.toISOString().slice(end.toISOString().indexOf("-", 1))}`;
          return result.ok && result.value === expected;
        },
      ),
      { numRuns: RUNS * 5 },
    );
  });
});
