import { describe, expect, it, vi } from "vitest";
import { EXPECTED_DATE } from "../../../src/core/contract/datetime.js";
import { EXPECTED_NUMBER } from "../../../src/core/contract/expressions.js";
import { executeCall, parseDefinition } from "../../../src/core/contract/index.js";
import type { CallOutcome } from "../../../src/core/contract/index.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import { runExample } from "../../../src/core/contract/examples.js";
import { acceptAll, parsed, rawDefinition, request, unparsed } from "./helpers.js";

/** Renders `result` (a template) for one call with `args` and `state`, through executeCall. */
function run(result: JsonValue, args: JsonObject = {}, state: JsonObject = {}): CallOutcome {
  return executeCall(request(parsed(rawDefinition(result)), args, { state }));
}

function ok(result: JsonValue, state: JsonObject = {}): CallOutcome {
  return { kind: "result", result, state, state_changed: false, variant: "ok", rule: null, delay_ms: 0 };
}

function toolInputError(
  argument: string,
  pointer: string,
  operator: string,
  expected: string,
  got: string,
): CallOutcome {
  const message = `argument "${argument}" must be ${expected} (it feeds ${operator}); got ${got}`;
  return { kind: "tool_input_error", message, details: [{ path: pointer, message }], variant: "ok", rule: null };
}

function harness(kind: string, message: string, path: string): CallOutcome {
  // SAFETY: test helper; kind is always one of the HarnessErrorKind strings used below.
  return {
    kind: "harness_error",
    harness_kind: kind as "bad_literal",
    message,
    details: [{ path, message }],
    variant: "ok",
    rule: null,
  };
}

const dateExpectation = (reason: string) => `${EXPECTED_DATE} in years 0001..9999 (${reason})`;
const BAD_DATE_FORMAT = `expected ${EXPECTED_DATE}`;

describe("$input and $state", () => {
  const args: JsonObject = { s: "text", n: 1.5, b: false, z: null, o: { a: [1, { b: 2 }] }, list: ["x"] };
  it.each<[string, JsonValue, JsonValue]>([
    ["a string", { $input: "s" }, "text"],
    ["a number", { $input: "n" }, 1.5],
    ["a boolean", { $input: "b" }, false],
    ["null", { $input: "z" }, null],
    ["an object", { $input: "o" }, { a: [1, { b: 2 }] }],
    ["a nested value by index", { $input: "o.a.1.b" }, 2],
    ["an array element", { $input: "list.0" }, "x"],
    ["the whole arguments", { $input: "" }, args],
    ["from the state", { $state: "counter" }, 7],
    ["the whole state", { $state: "" }, { counter: 7 }],
    [
      "inside literals",
      { a: [{ $input: "s" }, "lit"], b: { c: { $state: "counter" } } },
      { a: ["text", "lit"], b: { c: 7 } },
    ],
  ])("keeps the JSON type of %s", (_name, template, expected) => {
    expect(run(template, args, { counter: 7 })).toEqual(ok(expected, { counter: 7 }));
  });

  it("copies referenced containers, so the result never aliases the arguments or the state", () => {
    const args: JsonObject = { o: { a: 1 } };
    const state: JsonObject = { o: { b: 2 } };
    const outcome = run({ x: { $input: "o" }, y: { $state: "o" } }, args, state);
    if (outcome.kind !== "result") throw new Error("expected a result");
    expect(outcome.result).toEqual({ x: { a: 1 }, y: { b: 2 } });
    // SAFETY: the result was just asserted to be this shape.
    const result = outcome.result as { x: JsonObject; y: JsonObject };
    expect(result.x).not.toBe(args.o);
    expect(result.y).not.toBe(state.o);
  });

  it.each<[string, JsonValue, JsonObject, JsonObject, CallOutcome]>([
    [
      "a missing argument",
      { x: { $input: "missing" } },
      {},
      {},
      harness("missing_reference", '$input "missing" does not resolve in the arguments', "/variants/ok/result/x"),
    ],
    [
      "a missing nested argument",
      [{ $input: "a.b" }],
      { a: { c: 1 } },
      {},
      harness("missing_reference", '$input "a.b" does not resolve in the arguments', "/variants/ok/result/0"),
    ],
    [
      "an index past the end",
      { $input: "a.3" },
      { a: [1] },
      {},
      harness("missing_reference", '$input "a.3" does not resolve in the arguments', "/variants/ok/result"),
    ],
    [
      "a missing state key",
      { $state: "nope" },
      {},
      {},
      harness("missing_reference", '$state "nope" does not resolve in the pre-call state', "/variants/ok/result"),
    ],
    [
      "a prototype property",
      { $state: "toString" },
      {},
      {},
      harness("missing_reference", '$state "toString" does not resolve in the pre-call state', "/variants/ok/result"),
    ],
  ])("is a harness error for %s", (_name, template, args, state, expected) => {
    expect(run(template, args, state)).toEqual(expected);
  });
});

describe("$number", () => {
  it.each<[JsonValue, number]>([
    [12, 12],
    [-0.5, -0.5],
    ["1.50", 1.5],
    ["0", 0],
    ["-3", -3],
    ["-0.25", -0.25],
    ["120.50", 120.5],
    ["12345678901234567890", 12345678901234567000],
  ])("converts %j to %j", (value, expected) => {
    expect(run({ n: { $number: { $input: "v" } } }, { v: value })).toEqual(ok({ n: expected }));
  });

  it.each<[JsonValue]>([
    ["1e3"],
    ["0x10"],
    [" 1"],
    ["1 "],
    [""],
    [true],
    [false],
    ["+1"],
    ["NaN"],
    ["Infinity"],
    ["-Infinity"],
    [null],
    [{}],
    [[1]],
    ["1."],
    [".5"],
    ["1,5"],
    ["007"],
    ["-"],
    ["1".repeat(400)],
  ])("refuses %j from the arguments as a tool input error", (value) => {
    const got = JSON.stringify(value).length > 80 ? `${JSON.stringify(value).slice(0, 77)}...` : JSON.stringify(value);
    expect(run({ n: { $number: { $input: "v" } } }, { v: value })).toEqual(
      toolInputError("v", "/v", "$number", EXPECTED_NUMBER, got),
    );
  });

  it("names a nested argument by its path and pointer", () => {
    expect(run({ $number: { $input: "order.lines.0.amount" } }, { order: { lines: [{ amount: "1e3" }] } })).toEqual(
      toolInputError("order.lines.0.amount", "/order/lines/0/amount", "$number", EXPECTED_NUMBER, '"1e3"'),
    );
  });

  it("refuses a bad value from the state as a harness error (bad_literal)", () => {
    const message = `$number expects ${EXPECTED_NUMBER}; the state value at "amount" is "0x10"`;
    expect(run({ total: { $number: { $state: "amount" } } }, {}, { amount: "0x10" })).toEqual(
      harness("bad_literal", message, "/variants/ok/result/total/$number"),
    );
  });

  it("refuses a bad literal at save time and, if the parser was skipped, as a harness error at call time", () => {
    const raw = rawDefinition({ total: { $number: "1e3" } });
    const message = `$number expects ${EXPECTED_NUMBER}; got "1e3"`;
    expect(parseDefinition(raw)).toEqual({
      ok: false,
      errors: [{ path: "/variants/ok/result/total/$number", message }],
    });
    expect(executeCall(request(unparsed(raw), {}))).toEqual(
      harness("bad_literal", message, "/variants/ok/result/total/$number"),
    );
  });

  it("folds a good literal and nests", () => {
    expect(run({ a: { $number: "2.50" }, b: { $number: { $number: { $input: "v" } } } }, { v: "3" })).toEqual(
      ok({ a: 2.5, b: 3 }),
    );
  });
});

describe("$dateAdd", () => {
  it.each<[string, number, number, string]>([
    ["2024-02-28", 1, 0, "2024-02-29T00:00:00.000Z"],
    ["2023-02-28", 1, 0, "2023-03-01T00:00:00.000Z"],
    ["2024-12-31", 1, 0, "2025-01-01T00:00:00.000Z"],
    ["2025-03-01", 7, 16, "2025-03-08T16:00:00.000Z"],
    ["2025-03-01", 0, -24, "2025-02-28T00:00:00.000Z"],
    ["2025-03-01", 0, 24, "2025-03-02T00:00:00.000Z"],
    ["2025-03-01", -1, 1, "2025-02-28T01:00:00.000Z"],
    ["2000-01-01", 3660, 0, "2010-01-08T00:00:00.000Z"],
    ["2000-01-01", -3660, 0, "1989-12-24T00:00:00.000Z"],
    ["0050-03-01", 0, 0, "0050-03-01T00:00:00.000Z"],
    ["0050-03-01", 1, 5, "0050-03-02T05:00:00.000Z"],
    ["0050-03-01", -3660, 0, "0040-02-22T00:00:00.000Z"],
    ["0001-01-01", 0, 0, "0001-01-01T00:00:00.000Z"],
    ["9999-12-31", 0, 23, "9999-12-31T23:00:00.000Z"],
    ["1900-02-28", 1, 0, "1900-03-01T00:00:00.000Z"],
    ["2000-02-28", 1, 0, "2000-02-29T00:00:00.000Z"],
    // Timestamps: the calendar date as written, at midnight UTC; the time and offset are ignored.
    ["2025-03-01T10:00:00Z", 7, 16, "2025-03-08T16:00:00.000Z"],
    ["2025-03-01T01:30:00+05:00", 0, 0, "2025-03-01T00:00:00.000Z"],
    ["2025-03-01T22:00:00-05:00", 0, 0, "2025-03-01T00:00:00.000Z"],
    ["2025-03-01T22:00:00.123456-05:30", 1, 0, "2025-03-02T00:00:00.000Z"],
    ["2025-03-01T22:00Z", 0, 0, "2025-03-01T00:00:00.000Z"],
    ["2025-03-01t22:00:00z", 0, 0, "2025-03-01T00:00:00.000Z"],
    ["2016-12-31T23:59:60Z", 0, 0, "2016-12-31T00:00:00.000Z"],
  ])("%s plus %d days %d hours is %s", (value, days, hours, expected) => {
    expect(run({ at: { $dateAdd: { value: { $input: "d" }, days, hours } } }, { d: value })).toEqual(
      ok({ at: expected }),
    );
  });

  it.each<[JsonValue, number, number, string]>([
    ["9999-12-31", 1, 0, "the result falls in year 10000, outside 0001..9999"],
    ["9999-12-31T12:00:00Z", 0, 24, "the result falls in year 10000, outside 0001..9999"],
    ["0001-01-01", 0, -1, "the result falls in year 0, outside 0001..9999"],
    ["0000-12-31", 1, 0, "year 0000 is outside 0001..9999"],
    ["2023-02-29", 0, 0, "2023-02-29 is not a calendar date"],
    ["2023-02-30", 0, 0, "2023-02-30 is not a calendar date"],
    ["2024-13-01", 0, 0, "2024-13-01 is not a calendar date"],
    ["2024-04-31", 0, 0, "2024-04-31 is not a calendar date"],
    ["2024-00-10", 0, 0, "2024-00-10 is not a calendar date"],
    ["2024-1-01", 0, 0, BAD_DATE_FORMAT],
    ["20240101", 0, 0, BAD_DATE_FORMAT],
    ["2024-01-01T10:00:00", 0, 0, BAD_DATE_FORMAT],
    ["2024-01-01 10:00:00Z", 0, 0, BAD_DATE_FORMAT],
    ["2024-01-01T25:00:00Z", 0, 0, BAD_DATE_FORMAT],
    ["2024-01-01T10:00:00+0500", 0, 0, BAD_DATE_FORMAT],
    ["2024-01-01T10:00:00.Z", 0, 0, BAD_DATE_FORMAT],
    ["2024-01-01Z", 0, 0, BAD_DATE_FORMAT],
    ["tomorrow", 0, 0, BAD_DATE_FORMAT],
    ["", 0, 0, BAD_DATE_FORMAT],
    [20240101, 0, 0, BAD_DATE_FORMAT],
    [null, 0, 0, BAD_DATE_FORMAT],
  ])("refuses %j (+%d days, %d hours) from the arguments as a tool input error", (value, days, hours, reason) => {
    expect(run({ $dateAdd: { value: { $input: "d" }, days, hours } }, { d: value })).toEqual(
      toolInputError("d", "/d", "$dateAdd", dateExpectation(reason), JSON.stringify(value)),
    );
  });

  it("refuses a bad value from the state as a harness error (bad_literal)", () => {
    const message = `$dateAdd expects ${dateExpectation("2023-02-30 is not a calendar date")}; the state value at "start" is "2023-02-30"`;
    expect(run({ $dateAdd: { value: { $state: "start" }, days: 1 } }, {}, { start: "2023-02-30" })).toEqual(
      harness("bad_literal", message, "/variants/ok/result/$dateAdd/value"),
    );
  });

  it("refuses a literal out of range at save time, and as a harness error without the parser", () => {
    const raw = rawDefinition({ $dateAdd: { value: "9999-12-31", days: 1 } });
    const message = '$dateAdd: the result falls in year 10000, outside 0001..9999; got "9999-12-31"';
    expect(parseDefinition(raw)).toEqual({
      ok: false,
      errors: [{ path: "/variants/ok/result/$dateAdd/value", message }],
    });
    expect(executeCall(request(unparsed(raw), {}))).toEqual(
      harness("bad_literal", message, "/variants/ok/result/$dateAdd/value"),
    );
  });

  it("folds a literal date, defaults days and hours to 0, and nests", () => {
    expect(
      run(
        {
          a: { $dateAdd: { value: "2024-02-28", days: 1 } },
          b: { $dateAdd: { value: { $dateAdd: { value: { $input: "d" }, days: 1 } }, hours: 2 } },
          c: { $dateAdd: { value: { $input: "d" } } },
        },
        { d: "2024-02-28T23:00:00+02:00" },
      ),
    ).toEqual(ok({ a: "2024-02-29T00:00:00.000Z", b: "2024-02-29T02:00:00.000Z", c: "2024-02-28T00:00:00.000Z" }));
  });

  it("never reads the wall clock (or uses Date at all)", () => {
    const definition = parsed(rawDefinition({ $dateAdd: { value: { $input: "d" }, days: 1 } }));
    const clockless = new Proxy(Date, {
      construct() {
        throw new Error("Date was constructed");
      },
      apply() {
        throw new Error("Date was called");
      },
      get(target, property, receiver) {
        if (property === "now" || property === "UTC" || property === "parse")
          throw new Error(`Date.${String(property)} was read`);
        // SAFETY: forwarding every other property of Date unchanged.
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    vi.stubGlobal("Date", clockless);
    try {
      expect(executeCall(request(definition, { d: "2024-02-28" }))).toEqual(ok("2024-02-29T00:00:00.000Z"));
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe("provenance of a refused value", () => {
  it.each<[string, JsonValue, JsonObject, JsonObject, CallOutcome["kind"]]>([
    ["$number of $input", { $number: { $input: "v" } }, { v: "x" }, {}, "tool_input_error"],
    ["$dateAdd of $input", { $dateAdd: { value: { $input: "v" } } }, { v: "x" }, {}, "tool_input_error"],
    ["$number of $state", { $number: { $state: "v" } }, {}, { v: "x" }, "harness_error"],
    ["$dateAdd of $state", { $dateAdd: { value: { $state: "v" } } }, {}, { v: "x" }, "harness_error"],
  ])("%s is a %s", (_name, template, args, state, kind) => {
    expect(run(template, args, state).kind).toBe(kind);
  });

  it("a whole-arguments reference names the arguments", () => {
    const message = `the arguments must be ${EXPECTED_NUMBER} (it feeds $number); got {"v":1}`;
    expect(run({ $number: { $input: "" } }, { v: 1 })).toEqual({
      kind: "tool_input_error",
      message,
      details: [{ path: "", message }],
      variant: "ok",
      rule: null,
    });
  });
});

describe("constant folding", () => {
  const literalOnly: JsonValue = { n: { $number: "12.50" }, d: { $dateAdd: { value: "2025-03-01", days: 7 } } };

  it("evaluates expressions whose operands are all literals, in objects and arrays, rather than copying them", () => {
    expect(run(literalOnly)).toEqual(ok({ n: 12.5, d: "2025-03-08T00:00:00.000Z" }));
    expect(run([{ $number: "1" }, "x", [{ $dateAdd: { value: "2025-03-01", hours: 1 } }]])).toEqual(
      ok([1, "x", ["2025-03-01T01:00:00.000Z"]]),
    );
    // A folded key named "__proto__" stays a key of the rendered object.
    const protoKey = JSON.parse('{"__proto__": {"$number": "2"}, "keep": {"a": 1}}') as JsonValue;
    const rendered = run(protoKey);
    expect(rendered.kind === "result" && Object.keys(rendered.result as object)).toEqual(["__proto__", "keep"]);
    expect(rendered.kind === "result" && JSON.stringify(rendered.result)).toBe('{"__proto__":2,"keep":{"a":1}}');
  });

  it("never hands out the folded literal itself: each call gets its own copy", () => {
    const definition = parsed(rawDefinition(literalOnly));
    const first = executeCall(request(definition, {}));
    if (first.kind !== "result") throw new Error("expected a result");
    (first.result as JsonObject).n = 0;
    expect(executeCall(request(definition, {}))).toEqual(ok({ n: 12.5, d: "2025-03-08T00:00:00.000Z" }));
  });

  it("refuses a definition whose example expects the unevaluated expression objects", () => {
    const raw = { ...rawDefinition(literalOnly), examples: [{ variant: "ok", input: {}, expected: literalOnly }] };
    expect(checkDefinitionSync(raw)).toEqual({
      kind: "mismatch",
      path: "/examples/0/expected/n",
      message: 'expected {"$number":"12.50"} but the call rendered 12.5',
      details: [{ path: "/examples/0/expected/n", message: 'expected {"$number":"12.50"} but the call rendered 12.5' }],
    });
  });
});

/** The first example's error, through the real example runner. */
function checkDefinitionSync(raw: JsonObject): unknown {
  const definition = parsed(raw);
  return runExample(
    { tool: "t", operation: "t", description: "", input_schema: true, output_schema: true },
    definition,
    0,
    acceptAll,
  ).error;
}
