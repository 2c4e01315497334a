/**
 * Keeps docs/mock-definition.md honest: its worked example must check, behave as its table says,
 * and its limits must be the engine's.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkDefinition, executeCall, initialState, LIMITS } from "../../../src/core/contract/index.js";
import type { OperationContract } from "../../../src/core/contract/index.js";
import type { JsonObject } from "../../../src/core/json.js";
import { parsed, validator } from "./helpers.js";

const doc = readFileSync(fileURLToPath(new URL("../../../docs/mock-definition.md", import.meta.url)), "utf8");

/** The JSON a worked-example block puts in a shell variable: `NAME='{...}'` in the sh block after the marker. */
function block(name: string): unknown {
  const start = doc.indexOf(`<!-- docs-example: ${name} -->`);
  if (start < 0) throw new Error(`no docs example "${name}"`);
  const open = doc.indexOf("```sh\n", start) + "```sh\n".length;
  const text = doc.slice(open, doc.indexOf("\n```", open));
  return JSON.parse(text.slice(text.indexOf("'") + 1, text.lastIndexOf("'")));
}

/** The contract block holds an inline tool's fields; the hash covers them under the engine's names. */
function contractOf(fields: unknown): OperationContract {
  // SAFETY: the block is an object with the inline tool's fields; checkDefinition would fail loudly otherwise.
  const tool = fields as {
    name: string;
    operation_id: string;
    description: string;
    input_schema: JsonObject;
    output_schema: JsonObject;
  };
  expect(Object.keys(tool).sort()).toEqual(["description", "input_schema", "name", "operation_id", "output_schema"]);
  return {
    tool: tool.name,
    operation: tool.operation_id,
    description: tool.description,
    input_schema: tool.input_schema,
    output_schema: tool.output_schema,
  };
}

const contract = contractOf(block("contract"));
const raw = block("definition");

describe("docs/mock-definition.md", () => {
  it("has a worked example that checks, with the hash the page shows", async () => {
    const report = await checkDefinition(contract, raw, validator);
    expect(report.valid).toBe(true);
    expect(doc).toContain(report.contract_hash);
  });

  it("behaves as the call table says", () => {
    const definition = parsed(raw);
    const args: JsonObject = { patient_id: "P-1", from_date: "2025-03-01", deposit: "25.00" };
    const call = (a: JsonObject, state: JsonObject) =>
      executeCall({
        input_schema: contract.input_schema,
        output_schema: contract.output_schema,
        definition,
        args: a,
        state,
        validator,
      });
    const start = initialState(definition);
    const first = call({ ...args, deposit: 25 }, start);
    expect(first.kind === "tool_input_error" && first.details).toEqual(
      validator.validate(contract.input_schema, { ...args, deposit: 25 }),
    );
    const second = call({ ...args, deposit: "25,00" }, start);
    expect(second.kind === "tool_input_error" && second.details).toEqual([
      { path: "/deposit", message: expect.stringContaining('got "25,00"') },
    ]);
    const afterThird = { next_reference: "APT-1001", booked: true, last_booking: { patient_id: "P-1" } };
    expect(call(args, start)).toEqual({
      kind: "result",
      result: { status: 201, data: { reference: "APT-1001", starts_at: "2025-03-08T09:00:00.000Z", deposit: 25 } },
      state: afterThird,
      state_changed: true,
      variant: "success",
      rule: null,
      delay_ms: 250,
    });
    expect(call(args, afterThird)).toEqual({
      kind: "result",
      result: { status: 409, error: "already booked" },
      state: afterThird,
      state_changed: false,
      variant: "success",
      rule: 1,
      delay_ms: 250,
    });
  });

  it("states the engine's limits", () => {
    const fmt = (n: number) => n.toLocaleString("en-US");
    expect(doc).toContain(`| whole definition, as compact UTF-8 JSON | ${fmt(LIMITS.maxDefinitionBytes)} bytes |`);
    expect(doc).toContain(`| variants | ${LIMITS.minVariants} to ${LIMITS.maxVariants} |`);
    expect(doc).toContain(`| rules per variant | at most ${LIMITS.maxRulesPerVariant} |`);
    expect(doc).toContain(`| conditions per rule | ${LIMITS.minConditionsPerRule} to ${LIMITS.maxConditionsPerRule} |`);
    expect(doc).toContain(
      `| examples | ${LIMITS.minExamples} to ${LIMITS.maxExamples}, and at least one per variant |`,
    );
    expect(doc).toContain(`| \`delay_ms\` | integer ${LIMITS.minDelayMs} to ${fmt(LIMITS.maxDelayMs)} |`);
    expect(doc).toContain(
      `| \`$dateAdd\` \`days\` / \`hours\` | integers −${-LIMITS.minDays} to ${LIMITS.maxDays} / −${-LIMITS.minHours} to ${LIMITS.maxHours} |`,
    );
    expect(doc).toContain(`| nesting depth | ${LIMITS.maxNesting} levels`);
  });

  it("has a version-2 worked example that checks and cancels as the text says", async () => {
    const start = doc.indexOf("<!-- docs-example: v2-definition -->");
    const open = doc.indexOf("```json\n", start) + "```json\n".length;
    const rawV2: unknown = JSON.parse(doc.slice(open, doc.indexOf("\n```", open)));
    const anything: OperationContract = {
      tool: "orders",
      operation: "cancel_pending_order",
      description: "Cancels an order.",
      input_schema: { type: "object" },
      output_schema: {},
    };
    const report = await checkDefinition(anything, rawV2, validator);
    expect({ valid: report.valid, errors: report.errors }).toEqual({ valid: true, errors: [] });
    const definition = parsed(rawV2);
    const cancel = (state: JsonObject) =>
      executeCall({
        input_schema: { type: "object" },
        output_schema: {},
        definition,
        args: { order_id: "#W1" },
        state,
        validator,
      });
    const first = cancel(initialState(definition));
    if (first.kind !== "result") throw new Error(JSON.stringify(first));
    expect(first.state.users).toEqual({
      ada: { payment_methods: { gift_card_1: { balance: 90.14 }, credit_card_1: {} } },
    });
    expect(cancel(first.state)).toMatchObject({
      kind: "result",
      result: "Error: non-pending order cannot be cancelled",
      state_changed: false,
    });
  });

  it("states the version-2 limits", () => {
    const fmt = (n: number) => n.toLocaleString("en-US");
    expect(doc).toContain(`| characters in one expression | ${fmt(LIMITS.maxExpressionLength)} |`);
    expect(doc).toContain(`| syntax-tree nodes in one expression | ${LIMITS.maxExpressionNodes} |`);
    expect(doc).toContain(`| macros nested in one expression | ${LIMITS.maxMacroNesting} |`);
    expect(doc).toContain(`| writes in one \`set_state\`, counting those inside \`for_each\` | ${LIMITS.maxWrites} |`);
    expect(doc).toContain(`| \`for_each\` nesting | ${LIMITS.maxForEachNesting} |`);
    expect(doc).toContain(`| cost budget per call | ${fmt(LIMITS.costBudget)} units |`);
  });
});
