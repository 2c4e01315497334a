import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import { scenarioPlan } from "../../../src/core/evals/scenario-plan.js";
import { suiteApprovals } from "../../../src/core/evals/suite-approvals.js";
import { parseSuite, type SuiteDraft } from "../../../src/core/evals/suite-parse.js";
import { resolveSuite, type PolicySource } from "../../../src/core/evals/suite-resolve.js";
import type { JsonObject } from "../../../src/core/json.js";
import { parsePolicy } from "../../../src/core/policy/parse-policy.js";
import type { Policy } from "../../../src/core/policy/types.js";
import { operationKey, type LibraryTool, type ToolLibrary } from "../../../src/core/simulation/library.js";
import { definition } from "../simulation/definitions.js";

const validator = createRuntimeValidator();
const objectSchema: JsonObject = { type: "object" };

/** One library tool with two operations (function names invoices__get and invoices__hold), revision 1 each. */
const invoices: LibraryTool = {
  id: "tool_inv",
  name: "invoices",
  operations: [
    {
      operation_id: "get",
      description: "get one",
      input_schema: objectSchema,
      output_schema: objectSchema,
      contract_hash: "h-get",
    },
    {
      operation_id: "hold",
      description: "hold one",
      input_schema: objectSchema,
      output_schema: objectSchema,
      contract_hash: "h-hold",
    },
  ],
};
const state = { invoices: { "INV-1": "open" }, audit: [] };
const library: ToolLibrary = {
  toolsById: async (ids) => new Map(ids.includes(invoices.id) ? [[invoices.id, invoices]] : []),
  toolIdsByName: async (names) => new Map(names.includes(invoices.name) ? [[invoices.name, invoices.id]] : []),
  pinCandidates: async () => ({
    pinnable: new Map(
      invoices.operations.map((op) => [
        operationKey(invoices.id, op.operation_id),
        {
          tool_id: invoices.id,
          operation_id: op.operation_id,
          revision: 1,
          contract_hash: op.contract_hash,
          definition: definition(["success", "not_found"], state),
        },
      ]),
    ),
    newest: new Map(),
  }),
};

function policyOf(tools: Record<string, string>): Policy {
  const parsed = parsePolicy({ tools });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.policy;
}
const policies = (stored: Record<string, Policy>): PolicySource => ({
  latest: async (name) => (Object.hasOwn(stored, name) ? { version: 3, policy: stored[name] as Policy } : undefined),
});
const noPolicies = policies({});

const clock = {
  name: "clock",
  description: "The time.",
  input_schema: objectSchema,
  output_schema: objectSchema,
  testing: definition(["noon", "midnight"]),
};

function draft(document: unknown): SuiteDraft {
  const parsed = parseSuite(document);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.suite;
}

const base = {
  agent: {
    connection: "m",
    instructions: "i",
    tools: [
      { tool: "invoices", operation_id: "get" },
      { tool: "invoices", operation_id: "hold", approval_mode: "always_require" },
      { inline: clock },
    ],
  },
  scenarios: [{ id: "lookup", query: "q", expect: "invoices__get", forbid: ["invoices__hold"] }],
  judge: { connection: "j" },
};

describe("resolveSuite", () => {
  it("names library tools by id, and gives each function its approval mode", async () => {
    const resolved = await resolveSuite(draft(base), { library, validator, policies: noPolicies });
    expect(
      resolved.ok && {
        tools: resolved.suite.agent.tools,
        approval: resolved.approval,
        policy: resolved.policy,
        functions: resolved.plan.operations.map((op) => op.function_name),
      },
    ).toEqual({
      tools: [
        { tool_id: "tool_inv", operation_id: "get" },
        { tool_id: "tool_inv", operation_id: "hold", approval_mode: "always_require" },
        { inline: clock },
      ],
      approval: { invoices__get: "never_require", invoices__hold: "always_require", clock: "never_require" },
      policy: null,
      functions: ["invoices__get", "invoices__hold", "clock"],
    });
  });

  it("refuses every name the scenarios use that the agent does not have, at once", async () => {
    const resolved = await resolveSuite(
      draft({
        ...base,
        scenarios: [
          {
            id: "a",
            query: "q",
            expect: ["get_invoice", "invoices__gte"],
            forbid: ["hold"],
            variants: { clock: "dusk", invoices__get: "not_found", calendar: "x" },
            initial_state: { invoice: {}, clock: {} },
          },
        ],
      }),
      { library, validator, policies: noPolicies },
    );
    expect(resolved).toEqual({
      ok: false,
      refusal: {
        kind: "invalid_request",
        problems: [
          {
            path: "/scenarios/0/expect/0",
            message:
              'the agent has no function "get_invoice"; the agent\'s functions are invoices__get, invoices__hold, clock',
          },
          {
            path: "/scenarios/0/expect/1",
            message: 'the agent has no function "invoices__gte"; did you mean "invoices__get"?',
          },
          {
            path: "/scenarios/0/forbid/0",
            message:
              'the agent has no function "hold"; the agent\'s functions are invoices__get, invoices__hold, clock',
          },
          {
            path: "/scenarios/0/variants/clock",
            message: 'unknown variant "dusk": the inline definition of clock defines noon, midnight',
          },
          {
            path: "/scenarios/0/variants/calendar",
            message:
              'the agent has no function "calendar"; the agent\'s functions are invoices__get, invoices__hold, clock',
          },
          {
            path: "/scenarios/0/initial_state/invoice",
            message:
              'the agent has no tool "invoice" (state is kept per tool name, not function name); did you mean "invoices"?',
          },
        ],
      },
    });
  });

  it("refuses what planning refuses, with planning's code and paths under /agent/tools", async () => {
    const unknownName = await resolveSuite(
      draft({ ...base, agent: { ...base.agent, tools: [{ tool: "invoicez" }] } }),
      { library, validator, policies: noPolicies },
    );
    expect(unknownName).toEqual({
      ok: false,
      refusal: {
        kind: "not_found",
        problems: [
          {
            path: "/agent/tools/0/tool",
            message: 'no tool named "invoicez" (GET /api/tools lists the tenant\'s tools)',
          },
        ],
      },
    });
    const unknownOp = await resolveSuite(
      draft({ ...base, agent: { ...base.agent, tools: [{ tool_id: "tool_inv", operation_id: "pay" }] } }),
      { library, validator, policies: noPolicies },
    );
    expect(unknownOp).toEqual({
      ok: false,
      refusal: {
        kind: "not_found",
        problems: [
          { path: "/agent/tools/0/operation_id", message: 'tool "invoices" has no operation "pay" (it has get, hold)' },
        ],
      },
    });
    const twice = await resolveSuite(
      draft({
        ...base,
        agent: { ...base.agent, tools: [{ tool: "invoices" }, { tool: "invoices", operation_id: "get" }] },
      }),
      { library, validator, policies: noPolicies },
    );
    expect(twice).toEqual({
      ok: false,
      refusal: {
        kind: "invalid_request",
        problems: [
          { path: "/agent/tools/1", message: 'operation "get" of tool "invoices" is already pinned by /agent/tools/0' },
        ],
      },
    });
  });

  it("takes a named policy's approval modes, and refuses a function the policy does not list or a policy that does not exist", async () => {
    const withPolicy = {
      ...base,
      agent: { ...base.agent, policy: "desk", tools: [{ tool: "invoices" }, { inline: clock }] },
    };
    const listed = policyOf({
      invoices__get: "never_require",
      invoices__hold: "always_require",
      clock: "always_require",
      other: "never_require",
    });
    const resolved = await resolveSuite(draft(withPolicy), {
      library,
      validator,
      policies: policies({ desk: listed }),
    });
    expect(resolved.ok && { approval: resolved.approval, policy: resolved.policy }).toEqual({
      approval: { invoices__get: "never_require", invoices__hold: "always_require", clock: "always_require" },
      policy: { name: "desk", version: 3 },
    });

    const partial = policyOf({ invoices__get: "never_require" });
    expect(
      await resolveSuite(draft(withPolicy), { library, validator, policies: policies({ desk: partial }) }),
    ).toEqual({
      ok: false,
      refusal: {
        kind: "invalid_request",
        problems: [
          {
            path: "/agent/tools/0",
            message:
              'policy "desk" does not list "invoices__hold" (it lists invoices__get); add it with its approval mode to the policy, or remove the tool from the agent',
          },
          {
            path: "/agent/tools/1",
            message:
              'policy "desk" does not list "clock" (it lists invoices__get); add it with its approval mode to the policy, or remove the tool from the agent',
          },
        ],
      },
    });
    expect(await resolveSuite(draft(withPolicy), { library, validator, policies: noPolicies })).toEqual({
      ok: false,
      refusal: {
        kind: "not_found",
        problems: [{ path: "/agent/policy", message: 'no policy named "desk" (PUT /api/policies/desk first)' }],
      },
    });
  });
});

describe("suiteApprovals", () => {
  it("asks for the policy when the suite names one", async () => {
    const resolved = await resolveSuite(
      draft({
        ...base,
        agent: { ...base.agent, policy: "desk", tools: [{ inline: clock }] },
        scenarios: [{ id: "t", query: "q", expect: "clock" }],
      }),
      {
        library,
        validator,
        policies: policies({ desk: policyOf({ clock: "always_require" }) }),
      },
    );
    if (!resolved.ok) throw new Error("expected a resolved suite");
    expect(suiteApprovals(resolved.suite, resolved.plan.operations, null)).toEqual({
      ok: false,
      problems: [
        { path: "/agent/policy", message: 'the suite names policy "desk", and its approval modes were not given' },
      ],
    });
    // A policy that changed since the suite was saved is read as it is now.
    expect(suiteApprovals(resolved.suite, resolved.plan.operations, policyOf({ clock: "never_require" }))).toEqual({
      ok: true,
      approval: { clock: "never_require" },
    });
  });
});

describe("scenarioPlan", () => {
  it("applies a scenario's variants and state overrides to the run's plan, and leaves the rest as pinned", async () => {
    const resolved = await resolveSuite(draft(base), { library, validator, policies: noPolicies });
    if (!resolved.ok) throw new Error("expected a resolved suite");
    const planned = scenarioPlan(resolved.plan, {
      id: "lost",
      variants: { invoices__get: "not_found" },
      initial_state: { invoices: { invoices: {} } },
    });
    expect(planned.ok && planned.plan.operations.map((op) => [op.function_name, op.variant])).toEqual([
      ["invoices__get", "not_found"],
      ["invoices__hold", "success"],
      ["clock", "noon"],
    ]);
    expect(planned.ok && planned.plan.tools.map((tool) => [tool.tool_name, tool.initial_state])).toEqual([
      ["invoices", { invoices: {}, audit: [] }],
      ["clock", {}],
    ]);
    expect(resolved.plan.operations.map((op) => op.variant)).toEqual(["success", "success", "noon"]);
    expect(
      scenarioPlan(resolved.plan, { id: "x", variants: { clock: "dusk" }, initial_state: { calendar: {} } }),
    ).toEqual({
      ok: false,
      problems: [
        { path: "/variants/clock", message: 'scenario "x": clock has no variant "dusk"' },
        { path: "/initial_state/calendar", message: 'scenario "x": the plan has no tool "calendar"' },
      ],
    });
  });
});
