import { describe, expect, it } from "vitest";
import { FUNCTION_NAME, functionName } from "../../../src/core/simulation/tool-names.js";

describe("functionName", () => {
  it.each([
    // [tool name, operation id, operations of the tool, expected]
    ["weather", "get", 1, "weather"],
    ["calendar", "book", 2, "calendar__book"],
    ["crm.v2", "get user", 3, "crm_v2__get_user"],
    ["", "", 1, "tool_050c5d1f"],
  ])("%s / %s with %i operation(s) is %s", (tool, operation, count, expected) => {
    expect(functionName(tool, operation, count)).toBe(expected);
  });

  it("shortens long names to 64 characters, keeping two long names with one prefix apart", () => {
    const tool = "a".repeat(40);
    const first = functionName(tool, `${"b".repeat(30)}_one`, 2);
    const second = functionName(tool, `${"b".repeat(30)}_two`, 2);
    expect({
      first: first.length,
      second: second.length,
      differ: first !== second,
      valid: FUNCTION_NAME.test(first) && FUNCTION_NAME.test(second),
    }).toEqual({
      first: 64,
      second: 64,
      differ: true,
      valid: true,
    });
    expect(functionName(tool, `${"b".repeat(30)}_one`, 2)).toBe(first);
  });
});
