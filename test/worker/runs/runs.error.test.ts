/** POST /api/suites/:name/runs refusals, and run routes across tenants and permissions. */
import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_TOOLS } from "../../../scripts/local/demo-tools.js";
import { answer, call, invalidAnswer, keyWith, newTenant } from "../helpers.js";
import {
  invoiceSuite,
  invoiceDeskWorld,
  invoiceWorld,
  putSuite,
  startRun,
  waitForRun,
  type InvoiceWorld,
} from "../run-helpers.js";

let world: InvoiceWorld;
let runId: string;

beforeAll(async () => {
  world = await invoiceDeskWorld("errors", { runs_per_scenario: 1 });
  runId = (await startRun(world, "invoicedesk")).id;
  await waitForRun(world, runId);
});

describe("POST /api/suites/:name/runs refuses", () => {
  it("a suite whose revisions went stale since it was saved, with the planner's refusal (as POST /api/simulations)", async () => {
    const w = await invoiceWorld("stale");
    await putSuite(w, "invoicedesk", invoiceSuite(w));
    const invoices = DEMO_TOOLS.find((tool) => tool.tool.name === "invoices")?.tool;
    // A changed input schema is a changed contract: revision 1 of get_invoice no longer matches it.
    const operations = (invoices?.operations ?? []).map((op) =>
      op.operation_id === "get_invoice"
        ? {
            ...op,
            input_schema: { type: "object", properties: { invoice_id: { type: "string" } }, required: ["invoice_id"] },
          }
        : op,
    );
    const changed = await call("PUT", `/api/tools/${w.toolId}`, {
      key: w.tenant.key,
      body: { ...invoices, operations },
    });
    expect(changed.status).toBe(200);

    const refused = await answer(await call("POST", "/api/suites/invoicedesk/runs", { key: w.tenant.key }));
    expect(refused).toEqual({
      status: 409,
      body: {
        error: {
          code: "no_current_revision",
          message: `these operations have no mock revision checked against their current contract: ${w.toolId}/get_invoice (stale); save one first`,
          details: {
            offenders: [
              {
                path: "/agent/tools/0",
                tool_id: w.toolId,
                operation_id: "get_invoice",
                reason: "stale",
                current_contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
                latest_revision: 1,
                latest_revision_contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
              },
            ],
          },
        },
      },
    });
    // Nothing was started.
    expect(await (await call("GET", "/api/runs", { key: w.tenant.key })).json()).toEqual({
      items: [],
      next_cursor: null,
    });
  });

  it("a suite naming a connection that does not exist, naming the field", async () => {
    await putSuite(world, "other-judge", invoiceSuite(world, { judge: { connection: "judge-model" } }));
    const message =
      'no connection named "judge-model" yet: the suite is saved, and runs refuse to start until PUT /api/connections/judge-model stores it';
    expect(await answer(await call("POST", "/api/suites/other-judge/runs", { key: world.tenant.key }))).toEqual({
      status: 422,
      body: {
        error: {
          code: "model_connection_required",
          message: `/judge/connection: ${message}`,
          details: { problems: [{ path: "/judge/connection", message }] },
        },
      },
    });
  });

  it("a suite or version that does not exist", async () => {
    expect(await answer(await call("POST", "/api/suites/nothing/runs", { key: world.tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "suite not found" } },
    });
    expect(
      await answer(await call("POST", "/api/suites/invoicedesk/runs", { key: world.tenant.key, body: { version: 9 } })),
    ).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: 'suite "invoicedesk" has no version 9',
          details: { problems: [{ path: "/version", message: "no version 9" }] },
        },
      },
    });
  });

  it("a body with wrong fields, naming each", async () => {
    expect(
      await answer(
        await call("POST", "/api/suites/invoicedesk/runs", {
          key: world.tenant.key,
          body: { runs_per_scenario: 0, labl: "x" },
        }),
      ),
    ).toEqual(
      invalidAnswer(
        { path: "/runs_per_scenario", message: "expected 1 or more" },
        { path: "/labl", message: 'unknown field "labl"; did you mean "label"?' },
      ),
    );
  });

  it("a body that is not JSON (while no body at all, or an empty one, is fine)", async () => {
    expect(
      await answer(
        await call("POST", "/api/suites/invoicedesk/runs", {
          key: world.tenant.key,
          body: "{runs",
          headers: { "content-type": "application/json" },
        }),
      ),
    ).toMatchObject({
      status: 400,
      body: { error: { code: "malformed_json" } },
    });
    const empty = await call("POST", "/api/suites/invoicedesk/runs", {
      key: world.tenant.key,
      headers: { "content-type": "application/json", "content-length": "0" },
    });
    expect(empty.status).toBe(202);
    await waitForRun(world, ((await empty.json()) as { id: string }).id);
  });

  it("a run of more repetitions than one run may have", async () => {
    expect(
      await answer(
        await call("POST", "/api/suites/invoicedesk/runs", {
          key: world.tenant.key,
          body: { runs_per_scenario: 1000, label: "nightly" },
        }),
      ),
    ).toEqual(
      invalidAnswer({
        path: "/runs_per_scenario",
        message: "5 scenarios × 1000 runs is 5000 repetitions; one run may have at most 2000",
      }),
    );
  });
});

describe("run routes of another tenant", () => {
  it("answer 404 exactly as a missing run does, and list nothing", async () => {
    const other = await newTenant();
    const missing = { status: 404, body: { error: { code: "not_found", message: "run not found" } } };
    for (const [method, path] of [
      ["GET", `/api/runs/${runId}`],
      ["POST", `/api/runs/${runId}/cancel`],
      ["GET", `/api/runs/${runId}/repetitions`],
      ["GET", `/api/runs/${runId}/repetitions/1`],
      ["GET", "/api/runs/run_doesnotexist"],
    ] as const) {
      expect({ path, ...(await answer(await call(method, path, { key: other.key }))) }).toEqual({ path, ...missing });
    }
    expect(await (await call("GET", "/api/runs", { key: other.key })).json()).toEqual({ items: [], next_cursor: null });
    expect((await answer(await call("POST", "/api/suites/invoicedesk/runs", { key: other.key }))).status).toBe(404);
  });

  it("need AIManager:RunEvals", async () => {
    const key = await keyWith(world.tenant.id, ["AIManager:ManageTools"]);
    for (const [method, path] of [
      ["POST", "/api/suites/invoicedesk/runs"],
      ["GET", `/api/runs/${runId}`],
      ["GET", "/api/runs"],
    ] as const) {
      expect({ path, status: (await call(method, path, { key })).status }).toEqual({ path, status: 403 });
    }
  });

  it("a repetition number that is not one", async () => {
    expect(await answer(await call("GET", `/api/runs/${runId}/repetitions/0`, { key: world.tenant.key }))).toEqual(
      invalidAnswer({ path: "/params/n", message: "expected a repetition number (1, 2, ...)" }),
    );
    expect(await answer(await call("GET", `/api/runs/${runId}/repetitions/6`, { key: world.tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "repetition not found" } },
    });
  });
});
