/**
 * The demo invoices tool grown large, for tests of what a stored row can hold: `lookups` copies of
 * get_invoice beside its two operations, each definition reshaped by the caller (its state padded
 * with ~94 KB of invoices, say).
 */
import { DEMO_TOOLS } from "../../scripts/local/demo-tools.js";

/** Invoices added by paddedState: ~94 KB of JSON. */
const PADDING_INVOICES = 590;

type Definition = Record<string, unknown>;

/** The definition's initial state with PADDING_INVOICES more invoices. */
export function paddedState(definition: Definition): Definition {
  const state = definition.initial_state as { invoices: Record<string, unknown> };
  const invoices: Record<string, unknown> = { ...state.invoices };
  for (let i = 0; i < PADDING_INVOICES; i++) {
    invoices[`INV-${String(20_000 + i)}`] = {
      supplier: `Padding Supplier Number ${i} With A Long Trading Name Ltd`,
      amount: 1000 + i,
      currency: "USD",
      status: "received",
      hold_reason: null,
    };
  }
  return { invoices };
}

/** The definition starting from paddedState. */
export function padded(definition: Definition): Definition {
  return { ...definition, initial_state: paddedState(definition) };
}

/** The invoices tool's spec with `lookups` copies of get_invoice (lookup_1...), and each operation's definition through `reshape`. */
export function invoicesWithLookups(
  lookups: number,
  reshape: (definition: Definition) => Definition,
): { spec: Record<string, unknown>; definitions: Record<string, Definition>; operationIds: string[] } {
  const invoices = DEMO_TOOLS.find((tool) => tool.tool.name === "invoices");
  if (!invoices) throw new Error("the demo tools have no invoices tool");
  const getInvoice = invoices.tool.operations.find((operation) => operation.operation_id === "get_invoice");
  const getDefinition = invoices.definitions.get_invoice;
  if (!getInvoice || !getDefinition) throw new Error("the invoices tool has no get_invoice");
  const copies = Array.from({ length: lookups }, (_, i) => `lookup_${i + 1}`);
  return {
    spec: {
      ...invoices.tool,
      operations: [...invoices.tool.operations, ...copies.map((id) => ({ ...getInvoice, operation_id: id }))],
    },
    definitions: Object.fromEntries([
      ...Object.entries(invoices.definitions).map(([operation, definition]) => [operation, reshape(definition)]),
      ...copies.map((id) => [id, reshape(getDefinition)]),
    ]),
    operationIds: [...invoices.tool.operations.map((operation) => operation.operation_id), ...copies],
  };
}
