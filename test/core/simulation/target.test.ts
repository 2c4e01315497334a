import { describe, expect, it } from "vitest";
import type { MockDefinition } from "../../../src/core/contract/types.js";
import type { PinnedOperation, PinnedTool } from "../../../src/core/simulation/setup.js";
import { indexTargets, resolveTarget } from "../../../src/core/simulation/target.js";

const definition: MockDefinition = {
  schema_version: 1,
  default_variant: "ok",
  variants: { ok: { result: {} } },
  examples: [],
};

function op(tool_name: string, tool_id: string | null, operation_id: string, function_name: string): PinnedOperation {
  return {
    function_name,
    tool_id,
    tool_name,
    operation_id,
    description: "",
    input_schema: true,
    output_schema: true,
    annotations: null,
    revision: 1,
    contract_hash: "h",
    variant: "ok",
    definition,
  };
}

const getInvoice = op("invoices", "tool_1", "get_invoice", "invoices__get_invoice");
const hold = op("invoices", "tool_1", "place_on_hold", "invoices__place_on_hold");
const weather = op("weather", null, "weather", "weather");
const tools: PinnedTool[] = [
  {
    tool_id: "tool_1",
    tool_name: "invoices",
    operation_ids: ["get_invoice", "place_on_hold", "pay"],
    initial_state: {},
  },
  { tool_id: null, tool_name: "weather", operation_ids: ["weather"], initial_state: {} },
];
const index = indexTargets([getInvoice, hold, weather], tools);

describe("resolveTarget", () => {
  it("finds an operation by function name, by tool name or id with operation_id, or by a tool with one pinned operation", () => {
    expect(resolveTarget(index, "invoices__get_invoice", undefined)).toEqual({
      kind: "operation",
      operation: getInvoice,
    });
    expect(resolveTarget(index, "invoices", "place_on_hold")).toEqual({ kind: "operation", operation: hold });
    expect(resolveTarget(index, "tool_1", "get_invoice")).toEqual({ kind: "operation", operation: getInvoice });
    expect(resolveTarget(index, "weather", undefined)).toEqual({ kind: "operation", operation: weather });
  });

  it("fails closed on anything not pinned, telling unknown tools, unknown operations and unpinned operations apart", () => {
    expect(resolveTarget(index, "payments", undefined)).toEqual({
      kind: "harness_error",
      harness_kind: "unknown_tool",
      message:
        'no tool named "payments" is pinned in this attempt, so the call was not forwarded anywhere; the attempt\'s tools: invoices__get_invoice, invoices__place_on_hold, weather',
      details: [{ path: "/tool", message: "expected one of: invoices__get_invoice, invoices__place_on_hold, weather" }],
    });
    expect(resolveTarget(index, "invoices", "pay")).toEqual({
      kind: "harness_error",
      harness_kind: "missing_definition",
      message:
        'operation "pay" of tool "invoices" is not pinned in this simulation, so there is no definition to answer it; nothing was forwarded',
      details: [
        { path: "/operation_id", message: 'not pinned; pinned operations of "invoices": get_invoice, place_on_hold' },
      ],
    });
    expect(resolveTarget(index, "invoices", "refund")).toEqual({
      kind: "harness_error",
      harness_kind: "unknown_operation",
      message: 'tool "invoices" has no operation "refund"; nothing was forwarded',
      details: [{ path: "/operation_id", message: "expected one of: get_invoice, place_on_hold, pay" }],
    });
  });

  it("names the function name an unknown tool most likely meant: the operation id's, or the nearest spelling", () => {
    const hint = (tool: string) => {
      const target = resolveTarget(index, tool, undefined);
      return target.kind === "harness_error" ? { kind: target.harness_kind, details: target.details } : target;
    };
    const expected = (meant: string) => ({
      kind: "unknown_tool",
      details: [
        {
          path: "/tool",
          message: `did you mean "${meant}"? expected one of: invoices__get_invoice, invoices__place_on_hold, weather`,
        },
      ],
    });
    expect([hint("get_invoice"), hint("invoices__get_invoce"), hint("Weather_")]).toEqual([
      expected("invoices__get_invoice"),
      expected("invoices__get_invoice"),
      expected("weather"),
    ]);
    const unknown = resolveTarget(index, "get_invoice", undefined);
    expect(unknown.kind === "harness_error" ? unknown.message : unknown).toBe(
      'no tool named "get_invoice" is pinned in this attempt, so the call was not forwarded anywhere; did you mean "invoices__get_invoice"? the attempt\'s tools: invoices__get_invoice, invoices__place_on_hold, weather',
    );
  });

  it("asks for operation_id when a tool has several pinned operations", () => {
    expect(resolveTarget(index, "invoices", undefined)).toEqual({
      kind: "ambiguous",
      message: 'tool "invoices" has several pinned operations (get_invoice, place_on_hold); name one in operation_id',
      operation_ids: ["get_invoice", "place_on_hold"],
    });
  });
});
