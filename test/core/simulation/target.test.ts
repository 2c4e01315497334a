import { describe, expect, it } from "vitest";
import type { MockDefinition } from "../../../src/core/contract/types.js";
import type { PinnedOperation, PinnedTool } from "../../../src/core/simulation/setup.js";
import { indexTargets, resolveTarget } from "../../../src/core/simulation/target.js";

const definition: MockDefinition = { schema_version: 1, default_variant: "ok", variants: { ok: { result: {} } }, examples: [] };

function op(tool_name: string, tool_id: string | null, operation_id: string, function_name: string): PinnedOperation {
  return { function_name, tool_id, tool_name, operation_id, description: "", input_schema: true, output_schema: true, annotations: null, revision: 1, contract_hash: "h", variant: "ok", definition };
}

const getInvoice = op("invoices", "tool_1", "get_invoice", "invoices__get_invoice");
const hold = op("invoices", "tool_1", "place_on_hold", "invoices__place_on_hold");
const weather = op("weather", null, "weather", "weather");
const tools: PinnedTool[] = [
  { tool_id: "tool_1", tool_name: "invoices", operation_ids: ["get_invoice", "place_on_hold", "pay"], initial_state: {} },
  { tool_id: null, tool_name: "weather", operation_ids: ["weather"], initial_state: {} },
];
const index = indexTargets([getInvoice, hold, weather], tools);

describe("resolveTarget", () => {
  it("finds an operation by function name, by tool name or id with operation_id, or by a tool with one pinned operation", () => {
    expect(resolveTarget(index, "invoices__get_invoice", undefined)).toEqual({ kind: "operation", operation: getInvoice });
    expect(resolveTarget(index, "invoices", "place_on_hold")).toEqual({ kind: "operation", operation: hold });
    expect(resolveTarget(index, "tool_1", "get_invoice")).toEqual({ kind: "operation", operation: getInvoice });
    expect(resolveTarget(index, "weather", undefined)).toEqual({ kind: "operation", operation: weather });
  });

  it("fails closed on anything not pinned, telling unknown tools, unknown operations and unpinned operations apart", () => {
    expect(resolveTarget(index, "payments", undefined)).toEqual({
      kind: "harness_error",
      harness_kind: "unknown_tool",
      message: 'no tool named "payments" is pinned in this attempt; the call was not forwarded anywhere',
    });
    expect(resolveTarget(index, "invoices", "pay")).toEqual({
      kind: "harness_error",
      harness_kind: "missing_definition",
      message: 'operation "pay" of tool "invoices" is not pinned in this simulation, so there is no definition to answer it; nothing was forwarded',
    });
    expect(resolveTarget(index, "invoices", "refund")).toEqual({ kind: "harness_error", harness_kind: "unknown_operation", message: 'tool "invoices" has no operation "refund"; nothing was forwarded' });
  });

  it("asks for operation_id when a tool has several pinned operations", () => {
    expect(resolveTarget(index, "invoices", undefined)).toEqual({
      kind: "ambiguous",
      message: 'tool "invoices" has several pinned operations (get_invoice, place_on_hold); name one in operation_id',
      operation_ids: ["get_invoice", "place_on_hold"],
    });
  });
});
