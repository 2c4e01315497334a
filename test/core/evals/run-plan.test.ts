import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import { planRun } from "../../../src/core/evals/run-plan.js";
import type { Suite } from "../../../src/core/evals/suite-types.js";
import type { JsonObject } from "../../../src/core/json.js";
import { operationKey, type LibraryTool, type ToolLibrary } from "../../../src/core/simulation/library.js";

const validator = createRuntimeValidator();
const input: JsonObject = { type: "object", properties: { id: { type: "string" } } };

function definition(variants: string[], initial_state: JsonObject): JsonObject {
  return {
    schema_version: 1,
    default_variant: variants[0] ?? "ok",
    initial_state,
    variants: Object.fromEntries(variants.map((v) => [v, { result: {} }])),
    examples: variants.map((variant) => ({ variant, input: {}, expected: {} })),
  };
}

const invoices: LibraryTool = {
  id: "tool_inv",
  name: "invoices",
  operations: [
    {
      operation_id: "get",
      description: "Return one invoice.",
      input_schema: input,
      output_schema: { type: "object" },
      contract_hash: "h-get",
    },
    {
      operation_id: "hold",
      description: "Hold one invoice.",
      input_schema: input,
      output_schema: { type: "object" },
      contract_hash: "h-hold",
    },
  ],
};
const state: JsonObject = { invoices: { "INV-1": "open" }, audit: [] };

/** The library answers revision 7 of each operation, or nothing when `stale`. */
function library(stale = false): ToolLibrary & { pinReads: number } {
  const lib = {
    pinReads: 0,
    toolsById: async (ids: readonly string[]) => new Map(ids.includes(invoices.id) ? [[invoices.id, invoices]] : []),
    toolIdsByName: async () => new Map<string, string>(),
    pinCandidates: async () => {
      lib.pinReads++;
      const rows = invoices.operations.map((op) => ({
        tool_id: invoices.id,
        operation_id: op.operation_id,
        revision: 7,
        contract_hash: op.contract_hash,
      }));
      return {
        pinnable: new Map(
          stale
            ? []
            : rows.map((row) => [
                operationKey(row.tool_id, row.operation_id),
                { ...row, definition: definition(["success", "not_found"], state) },
              ]),
        ),
        newest: new Map(
          rows.map((row) => [operationKey(row.tool_id, row.operation_id), { ...row, contract_hash: "old" }]),
        ),
      };
    },
  };
  return lib;
}

const suite: Pick<Suite, "agent" | "scenarios"> = {
  agent: {
    kind: "builtin",
    connection: "m",
    parameters: {},
    instructions: "i",
    tools: [
      { tool_id: "tool_inv", operation_id: "get" },
      { tool_id: "tool_inv", operation_id: "hold", approval_mode: "always_require" },
    ],
    max_iterations: 4,
    max_function_calls: 6,
  },
  scenarios: [
    { id: "lookup", query: "What is INV-1?", expect: "invoices__get", forbid: ["invoices__hold"] },
    {
      id: "lost",
      query: "What is INV-1?",
      expect: "invoices__get",
      forbid: [],
      variants: { invoices__get: "not_found" },
      initial_state: { invoices: { invoices: {} } },
    },
  ],
};

describe("planRun", () => {
  it("pins once for the run, and gives each scenario its own variants and starting state over the same revisions", async () => {
    const lib = library();
    const planned = await planRun(suite, { library: lib, validator });
    if (!planned.ok) throw new Error(JSON.stringify(planned.refusal));
    const { plan } = planned;
    expect(lib.pinReads).toBe(1);
    expect(plan.tools).toEqual([
      { name: "invoices__get", description: "Return one invoice.", parameters: input },
      { name: "invoices__hold", description: "Hold one invoice.", parameters: input },
    ]);
    expect(plan.scenarios.map((s) => s.scenario)).toEqual([
      { id: "lookup", query: "What is INV-1?", expect: "invoices__get", forbid: ["invoices__hold"] },
      { id: "lost", query: "What is INV-1?", expect: "invoices__get", forbid: [] },
    ]);
    const pins = (i: number) => plan.scenarios[i]?.pinned.map((p) => [p.function_name, p.revision, p.variant]);
    expect([pins(0), pins(1)]).toEqual([
      [
        ["invoices__get", 7, "success"],
        ["invoices__hold", 7, "success"],
      ],
      [
        ["invoices__get", 7, "not_found"],
        ["invoices__hold", 7, "success"],
      ],
    ]);
    // initial_state replaces the named top-level fields and keeps the rest.
    expect(plan.scenarios.map((s) => s.simulation.tools.map((t) => t.initial_state))).toEqual([
      [state],
      [{ invoices: {}, audit: [] }],
    ]);
    expect(plan.operations.map((op) => op.variant)).toEqual(["success", "success"]);
  });

  it("refuses stale revisions with the planner's refusal, paths into the suite's tools", async () => {
    const planned = await planRun(suite, { library: library(true), validator });
    expect(planned.ok ? null : planned.refusal).toEqual({
      kind: "no_current_revision",
      offenders: ["get", "hold"].map((operation_id, index) => ({
        path: `/agent/tools/${index}`,
        tool_id: "tool_inv",
        operation_id,
        reason: "stale",
        current_contract_hash: `h-${operation_id}`,
        latest_revision: 7,
        latest_revision_contract_hash: "old",
      })),
    });
  });

  it("refuses a scenario's variant or tool the pinned plan does not have, naming the scenario's field", async () => {
    const broken = {
      ...suite,
      scenarios: [
        suite.scenarios[0],
        {
          id: "x",
          query: "q",
          expect: null,
          forbid: [],
          variants: { invoices__get: "gone" },
          initial_state: { ledger: {} },
        },
      ],
    } as Pick<Suite, "agent" | "scenarios">;
    const planned = await planRun(broken, { library: library(), validator });
    expect(planned.ok ? null : planned.refusal).toEqual({
      kind: "invalid_request",
      problems: [
        { path: "/scenarios/1/variants/invoices__get", message: 'scenario "x": invoices__get has no variant "gone"' },
        { path: "/scenarios/1/initial_state/ledger", message: 'scenario "x": the plan has no tool "ledger"' },
      ],
    });
  });
});
