/** Which operations a real-tools run treats as writes. */
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../../src/core/policy/index.js";
import { writeReason } from "../../../src/core/policy/real-writes.js";

describe("writeReason", () => {
  const names = (function_name: string, operation_id = function_name, tool_name = function_name) => ({
    function_name,
    operation_id,
    tool_name,
  });

  it("uses the default write verbs without a policy", () => {
    expect([
      writeReason(null, names("invoices__place_invoice_on_hold", "place_invoice_on_hold", "invoices")),
      writeReason(null, names("get_invoice")),
    ]).toEqual(['"place_invoice_on_hold" starts with the write verb "place_"', null]);
  });

  it("uses the policy's write verbs and its always_require tools", () => {
    const parsed = parsePolicy({ write_verbs: ["hold_"], tools: { lookup: "always_require" } });
    if (!parsed.ok) throw new Error("policy did not parse");
    expect([
      writeReason(parsed.policy, names("hold_it")),
      writeReason(parsed.policy, names("place_it")),
      writeReason(parsed.policy, names("lookup")),
    ]).toEqual([
      '"hold_it" starts with the write verb "hold_"',
      null,
      'the policy says "lookup" must always require approval',
    ]);
  });
});
