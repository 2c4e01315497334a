import { describe, expect, it } from "vitest";
import { compileCondition } from "../../../src/core/contract/conditions.js";
import { buildRuleIndex, candidateRules } from "../../../src/core/contract/rule-index.js";
import type { JsonValue } from "../../../src/core/json.js";

const eq = (path: string, value: JsonValue) => compileCondition({ source: "input", path, op: "eq", value });
const exists = (path: string) => compileCondition({ source: "input", path, op: "exists", value: true });

describe("rule index", () => {
  const rules = [
    { when: [eq("id", "a")] },
    { when: [eq("id", 1)] },
    { when: [exists("other")] },
    { when: [eq("id", "1"), exists("x")] },
    { when: [eq("id", "a"), eq("kind", "k")] },
    { when: [eq("id", null)] },
    { when: [eq("kind", "k")] },
  ];
  const index = buildRuleIndex(rules);

  it("indexes the path most rules test with eq", () => {
    expect(index?.segments).toEqual(["id"]);
    expect(index?.fromState).toBe(false);
  });

  it.each<[string, JsonValue, number[]]>([
    ["a", { id: "a" }, [0, 2, 4, 6]],
    ["the number 1 (1.0 is the same number)", { id: 1.0 }, [1, 2, 6]],
    ['the string "1"', { id: "1" }, [2, 3, 6]],
    ["null", { id: null }, [2, 5, 6]],
    ["a value no rule names", { id: "zzz" }, [2, 6]],
    ["a missing path", {}, [2, 6]],
    ["an object", { id: { a: 1 } }, [2, 6]],
  ])("keeps rule order and only drops rules that cannot match, for %s", (_name, input, expected) => {
    if (index === null) throw new Error("expected an index");
    expect(candidateRules(index, input, {})).toEqual(expected);
  });

  it("is not built for a handful of rules", () => {
    expect(
      buildRuleIndex([{ when: [eq("id", "a")] }, { when: [eq("id", "b")] }, { when: [eq("id", "c")] }]),
    ).toBeNull();
    expect(buildRuleIndex([])).toBeNull();
  });
});
