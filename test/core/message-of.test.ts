import { describe, expect, it } from "vitest";
import { messageOf } from "../../src/core/message-of.js";

describe("messageOf", () => {
  it("reads an Error's message and turns any other thrown value into text", () => {
    expect([new TypeError("bad input"), "plain", 42, undefined, null].map(messageOf)).toEqual([
      "bad input",
      "plain",
      "42",
      "undefined",
      "null",
    ]);
  });
});
