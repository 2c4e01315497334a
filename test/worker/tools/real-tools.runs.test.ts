/**
 * A suite run with a tool in real mode: saving and starting it need AIManager:RunRealTools, and the
 * run's model calls go through the attempt to the local upstream MCP server (the demo invoices tool
 * is an mcp tool), recorded as real calls.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { upstream } from "../../support/upstream/in-tests.js";
import { answer, call, keyWith } from "../helpers.js";
import { evidence } from "../simulation-helpers.js";
import {
  GET,
  GOOD_JUDGE,
  invoiceSuite,
  invoiceWorld,
  QUERIES,
  repetition,
  server,
  startRun,
  waitForRun,
  wellBehaved,
  type InvoiceWorld,
} from "../run-helpers.js";

const UP = upstream();
let world: InvoiceWorld;

function realSuite(): Record<string, unknown> {
  const suite = invoiceSuite(world, { runs_per_scenario: 1 });
  return {
    ...suite,
    agent: {
      // SAFETY: invoiceSuite's agent is an object.
      ...(suite.agent as Record<string, unknown>),
      tools: [{ tool_id: world.toolId, operation_id: "get_invoice", approval_mode: "never_require", mode: "real" }],
    },
    scenarios: [{ id: "status-lookup", query: QUERIES.status, expect: GET, forbid: [] }],
  };
}

beforeAll(async () => {
  world = await invoiceWorld("real-tools");
  await server.script(world.model, { conversations: wellBehaved(), judge_default: GOOD_JUDGE });
  const put = await call("PUT", `/api/tools/${world.toolId}/upstream`, {
    key: world.tenant.key,
    body: { mcp_url: `${UP.url}/mcp`, operations: { get_invoice: {} } },
  });
  expect(put.status).toBe(200);
  expect(
    (await call("PUT", "/api/upstream-hosts", { key: world.tenant.key, body: { hosts: ["127.0.0.1"] } })).status,
  ).toBe(200);
});

describe("a suite run with real tools", () => {
  it("needs RunRealTools to save the suite and to start it, and then forwards the agent's calls", async () => {
    const evals = await keyWith(world.tenant.id, ["AIManager:RunEvals", "AIManager:Admin"]);
    const message = "real mode needs the permission AIManager:RunRealTools, which no key has unless an admin grants it";
    expect(await answer(await call("PUT", "/api/suites/real", { key: evals, body: realSuite() }))).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message:
            "/agent/tools/0/mode: this API key lacks the permission AIManager:RunRealTools, which real mode needs (it is never implied, not even by AIManager:Admin)",
          details: {
            required_permission: "AIManager:RunRealTools",
            problems: [{ path: "/agent/tools/0/mode", message }],
          },
        },
      },
    });
    expect((await call("PUT", "/api/suites/real", { key: world.tenant.key, body: realSuite() })).status).toBe(201);
    const refused = await answer(await call("POST", "/api/suites/real/runs", { key: evals }));
    const runMessage =
      "this suite runs real tools, which needs a key holding AIManager:RunRealTools to start it (a webhook never has one)";
    expect(refused).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: `/agent/tools/0/mode: ${runMessage}`,
          details: {
            required_permission: "AIManager:RunRealTools",
            problems: [{ path: "/agent/tools/0/mode", message: runMessage }],
          },
        },
      },
    });

    await UP.clear();
    const started = await startRun(world, "real");
    const run = await waitForRun(world, started.id);
    expect(run).toMatchObject({ status: "finished", runs: 1 });
    expect(run.pinned).toEqual([
      {
        scenario: "status-lookup",
        pinned: [
          {
            mode: "real",
            tool_id: world.toolId,
            tool_name: "invoices",
            operation_id: "get_invoice",
            function_name: GET,
            revision: null,
            variant: "real",
            contract_hash: expect.any(String),
          },
        ],
      },
    ]);
    const calls_sent = (await UP.requests()).map(
      (r) => JSON.parse(r.body || "{}") as { method?: string; params?: { name?: string; arguments?: unknown } },
    );
    expect(calls_sent.filter((m) => m.method === "tools/call").map((m) => m.params)).toEqual([
      { name: "get_invoice", arguments: { invoice_id: "INV-10431" } },
    ]);
    const rep = await repetition(world, started.id, 1);
    const attemptId = String(rep.attempt_id);
    const calls = await evidence({ id: attemptId, token: "" }, world.tenant.key);
    expect(
      calls.map((c) => ({
        tool: c.tool,
        source: (c as { source?: string }).source,
        violations:
          ((c as { upstream?: { contract_violations: unknown[] } }).upstream?.contract_violations ?? []).length > 0,
      })),
    ).toEqual([{ tool: GET, source: "real", violations: false }]);
  });
});
