import { describe, expect, it } from "vitest";
import { compileCondition, conditionHolds } from "../../../src/core/contract/conditions.js";
import { executeCall } from "../../../src/core/contract/index.js";
import type { Condition } from "../../../src/core/contract/index.js";
import type { JsonObject } from "../../../src/core/json.js";
import { acceptAll, parsed, request } from "./helpers.js";

const input: JsonObject = {
  id: "P-1",
  count: 1,
  flag: false,
  nothing: null,
  patient: { name: "Ada", tags: ["x", "y"] },
  list: [1, 2],
};
const state: JsonObject = { booked: true, slots: { a: { n: 1.0 } } };

type Row = [op: Condition["op"], source: Condition["source"], path: string, value: Condition["value"], holds: boolean];

describe("conditions", () => {
  it.each<Row>([
    // eq: deep JSON equality
    ["eq", "input", "id", "P-1", true],
    ["eq", "input", "id", "P-2", false],
    ["eq", "input", "count", 1.0, true],
    ["eq", "input", "count", "1", false],
    ["eq", "input", "flag", false, true],
    ["eq", "input", "flag", null, false],
    ["eq", "input", "nothing", null, true],
    ["eq", "input", "patient", { tags: ["x", "y"], name: "Ada" }, true],
    ["eq", "input", "patient", { name: "Ada" }, false],
    ["eq", "input", "list", [1, 2], true],
    ["eq", "input", "list", [2, 1], false],
    ["eq", "input", "patient.tags.1", "y", true],
    ["eq", "input", "missing", null, false],
    ["eq", "state", "slots.a", { n: 1 }, true],
    ["eq", "state", "", { booked: true, slots: { a: { n: 1 } } }, true],
    // ne: a missing path never equals anything, so ne holds
    ["ne", "input", "id", "P-2", true],
    ["ne", "input", "id", "P-1", false],
    ["ne", "input", "count", "1", true],
    ["ne", "input", "missing", null, true],
    ["ne", "input", "missing", "anything", true],
    ["ne", "state", "booked", true, false],
    // in: holds when the value deep-equals one item
    ["in", "input", "id", ["P-0", "P-1"], true],
    ["in", "input", "id", ["P-0"], false],
    ["in", "input", "id", [], false],
    ["in", "input", "count", ["1", 1.0], true],
    ["in", "input", "patient.tags", [["x", "y"]], true],
    ["in", "input", "missing", [null], false],
    ["in", "input", "nothing", [null], true],
    // exists: null resolves
    ["exists", "input", "id", true, true],
    ["exists", "input", "nothing", true, true],
    ["exists", "input", "nothing", false, false],
    ["exists", "input", "missing", true, false],
    ["exists", "input", "missing", false, true],
    ["exists", "input", "list.1", true, true],
    ["exists", "input", "list.2", true, false],
    ["exists", "state", "booked", true, true],
    ["exists", "state", "slots.b", false, true],
    ["exists", "input", "toString", true, false],
  ])("%s on %s %j against %j holds: %s", (op, source, path, value, holds) => {
    expect(conditionHolds(compileCondition({ source, path, op, value }), input, state)).toBe(holds);
  });

  it.each<[string, unknown]>([
    ["an unknown op", { source: "input", path: "id", op: "gt", value: 1 }],
    ["an unknown source", { source: "env", path: "id", op: "eq", value: "P-1" }],
    ["in with a non-array value", { source: "input", path: "id", op: "in", value: "P-1" }],
    ["exists with a non-boolean value", { source: "input", path: "id", op: "exists", value: 1 }],
    ["a non-string path", { source: "input", path: 3, op: "eq", value: "P-1" }],
    ["not an object at all", "eq"],
  ])("never raises and never holds for %s (a definition that skipped the parser)", (_name, raw) => {
    expect(conditionHolds(compileCondition(raw), input, state)).toBe(false);
  });

  it("selects the first rule whose every condition holds", () => {
    const definition = parsed({
      schema_version: 1,
      default_variant: "ok",
      variants: {
        ok: {
          result: "default",
          rules: [
            {
              when: [
                { source: "input", path: "id", op: "eq", value: "P-1" },
                { source: "state", path: "booked", op: "exists", value: true },
              ],
              result: "first",
            },
            { when: [{ source: "input", path: "id", op: "eq", value: "P-1" }], result: "second" },
            { when: [{ source: "input", path: "id", op: "ne", value: "P-9" }], result: "third" },
          ],
        },
      },
      examples: [{ variant: "ok", input: {}, expected: "third" }],
    });
    const outcome = (args: JsonObject, st: JsonObject) =>
      executeCall(request(definition, args, { state: st, validator: acceptAll }));
    expect(outcome({ id: "P-1" }, { booked: false })).toEqual({
      kind: "result",
      result: "first",
      state: { booked: false },
      state_changed: false,
      variant: "ok",
      rule: 0,
      delay_ms: 0,
    });
    expect(outcome({ id: "P-1" }, {})).toEqual({
      kind: "result",
      result: "second",
      state: {},
      state_changed: false,
      variant: "ok",
      rule: 1,
      delay_ms: 0,
    });
    expect(outcome({ id: "P-2" }, {})).toEqual({
      kind: "result",
      result: "third",
      state: {},
      state_changed: false,
      variant: "ok",
      rule: 2,
      delay_ms: 0,
    });
    expect(outcome({ id: "P-9" }, {})).toEqual({
      kind: "result",
      result: "default",
      state: {},
      state_changed: false,
      variant: "ok",
      rule: null,
      delay_ms: 0,
    });
  });
});
