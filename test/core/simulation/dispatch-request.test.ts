import { describe, expect, it } from "vitest";
import { parseDispatchText } from "../../../src/core/simulation/dispatch-request.js";

describe("parseDispatchText", () => {
  it("accepts the four fields", () => {
    expect(parseDispatchText('{"tool":"crm","operation_id":"get","arguments":{"id":1},"call_id":"c-1"}')).toEqual({
      ok: true,
      request: { tool: "crm", operation_id: "get", arguments: { id: 1 }, call_id: "c-1" },
    });
    expect(parseDispatchText('{"tool":"crm","arguments":{}}')).toEqual({ ok: true, request: { tool: "crm", arguments: {} } });
  });

  it("names every bad field", () => {
    expect(parseDispatchText('{"tool":"","operation_id":7,"arguments":[1],"call_id":"","extra":true}')).toEqual({
      ok: false,
      problems: [
        { path: "/extra", message: 'unknown field "extra"' },
        { path: "/tool", message: "expected a string of 1 to 200 characters" },
        { path: "/operation_id", message: "expected a string of 1 to 200 characters" },
        { path: "/call_id", message: "expected a string of 1 to 200 characters" },
        { path: "/arguments", message: "expected a JSON object" },
      ],
    });
    expect(parseDispatchText("{}")).toEqual({
      ok: false,
      problems: [
        { path: "/tool", message: "required" },
        { path: "/arguments", message: "required: the tool's arguments as a JSON object ({} when it takes none)" },
      ],
    });
  });

  it("refuses what is not a JSON object", () => {
    expect(parseDispatchText("[1]")).toEqual({ ok: false, problems: [{ path: "", message: "expected a JSON object {tool, operation_id?, arguments, call_id?}" }] });
    expect(parseDispatchText("{")).toEqual({ ok: false, malformed: expect.stringMatching(/^the request body is not valid JSON: /) });
  });
});
