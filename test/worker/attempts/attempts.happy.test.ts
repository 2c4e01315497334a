import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AttemptObject } from "../../../src/worker/attempts/object.js";
import { getInvoiceDefinition, invoiceTool, placeOnHoldDefinition } from "../../fixtures/invoice-tools.js";
import { call, newTenant } from "../helpers.js";
import {
  counterTool,
  createSimulation,
  dispatch,
  dispatchJson,
  evidence,
  libraryTool,
  readAttempt,
  stubOf,
} from "../simulation-helpers.js";

const tenantPromise = newTenant();

describe("dispatch", () => {
  it("answers exactly the rendered result as the body, with the call's metadata in headers", async () => {
    const tenant = await tenantPromise;
    const [attempt] = (await createSimulation(tenant, { tools: [{ inline: counterTool }] })).attempts;
    if (!attempt) throw new Error("no attempt");
    const response = await dispatch(attempt, { tool: "counter", arguments: { n: 3 } });
    const headers = Object.fromEntries(
      [...response.headers].filter(([name]) => name.startsWith("x-toolproof-") || name === "content-type"),
    );
    expect({ status: response.status, body: await response.text(), headers }).toEqual({
      status: 200,
      body: '{"previous":0}',
      headers: {
        "content-type": "application/json; charset=utf-8",
        "x-toolproof-seq": "1",
        "x-toolproof-tool": "counter",
        "x-toolproof-operation": "counter",
        "x-toolproof-variant": "swap",
        "x-toolproof-rule": "none",
        "x-toolproof-delay-ms": "0",
        "x-toolproof-outcome": "result",
      },
    });
  });

  it("shares state among the operations of one tool, per attempt, and names the revision in the evidence", async () => {
    const tenant = await tenantPromise;
    const tool = await libraryTool(
      tenant,
      { ...invoiceTool, name: "invoices_shared" },
      { get_invoice: getInvoiceDefinition, place_invoice_on_hold: placeOnHoldDefinition },
    );
    const simulation = await createSimulation(tenant, { tools: [{ tool_id: tool.id }], attempts: 2 });
    const [a, b] = simulation.attempts;
    if (!a || !b) throw new Error("two attempts expected");
    const get = { tool: "invoices_shared__get_invoice", arguments: { invoice_id: "INV-10423" } };
    const invoice = (status: string) => ({
      status: 200,
      body: { invoice_id: "INV-10423", supplier: "Contoso Freight", amount: 18450, status },
    });

    expect(await dispatchJson(a, get)).toEqual(invoice("approved"));
    // The tool's id and the operation id name the same operation as its function name does.
    expect(
      await dispatchJson(a, {
        tool: tool.id,
        operation_id: "place_invoice_on_hold",
        arguments: { invoice_id: "INV-10423", reason: "duplicate" },
      }),
    ).toEqual({
      status: 200,
      body: { invoice_id: "INV-10423", status: "on_hold" },
    });
    expect(await dispatchJson(a, get)).toEqual(invoice("on_hold"));
    // Attempt b of the same simulation never saw a's hold.
    expect(await dispatchJson(b, get)).toEqual(invoice("approved"));

    const calls = await evidence(a);
    expect(
      calls.map((c) => ({
        seq: c.seq,
        tool: c.tool,
        operation_id: c.operation_id,
        revision: c.revision,
        variant: c.variant,
        rule: c.rule,
      })),
    ).toEqual([
      {
        seq: 1,
        tool: "invoices_shared__get_invoice",
        operation_id: "get_invoice",
        revision: 1,
        variant: "success",
        rule: null,
      },
      {
        seq: 2,
        tool: "invoices_shared__place_invoice_on_hold",
        operation_id: "place_invoice_on_hold",
        revision: 1,
        variant: "success",
        rule: null,
      },
      {
        seq: 3,
        tool: "invoices_shared__get_invoice",
        operation_id: "get_invoice",
        revision: 1,
        variant: "success",
        rule: null,
      },
    ]);
    expect((await readAttempt(a)).body).toEqual({
      id: a.id,
      simulation_id: simulation.id,
      status: "active",
      may_pass: true,
      state: { invoices_shared: { status: "on_hold" } },
      calls: 3,
      tool_input_errors: 0,
      harness_errors: 0,
      expires_at: a.expires_at,
      lease_ended: false,
      completion: null,
    });
    expect((await readAttempt(b)).body).toMatchObject({ state: { invoices_shared: { status: "approved" } }, calls: 1 });
  });

  it("records every call in order: arguments, result or error, rule, delay and time", async () => {
    const tenant = await tenantPromise;
    const [attempt] = (await createSimulation(tenant, { tools: [{ inline: counterTool }] })).attempts;
    if (!attempt) throw new Error("no attempt");
    await dispatch(attempt, { tool: "counter", arguments: { n: 1 }, call_id: "first" });
    await dispatch(attempt, { tool: "counter", arguments: { n: "two" } });
    const response = await call("GET", `/api/attempts/${attempt.id}/evidence`, { key: attempt.token });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 200,
      body: {
        attempt_id: attempt.id,
        next_cursor: null,
        calls: [
          {
            seq: 1,
            call_id: "first",
            tool: "counter",
            operation_id: "counter",
            revision: null,
            variant: "swap",
            rule: null,
            arguments: { n: 1 },
            outcome: "result",
            result: { previous: 0 },
            delay_ms: 0,
            at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
            // The call's set_state: its tool's state just before and just after (a refused call changes none).
            state_change: { tool: "counter", before: { last: 0 }, after: { last: 1 } },
          },
          {
            seq: 2,
            call_id: null,
            tool: "counter",
            operation_id: "counter",
            revision: null,
            variant: "swap",
            rule: null,
            arguments: { n: "two" },
            outcome: "tool_input_error",
            error: {
              code: "tool_input_error",
              message: expect.stringContaining("/n"),
              details: [{ path: "/n", message: expect.any(String) }],
            },
            delay_ms: 0,
            at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          },
        ],
      },
    });
    // Pages follow the cursor.
    const page = await call("GET", `/api/attempts/${attempt.id}/evidence?limit=1`, { key: attempt.token });
    expect(await page.json()).toMatchObject({ calls: [{ seq: 1 }], next_cursor: "1" });
  });

  it("honours delay_ms: returned to the Worker, recorded in the evidence", async () => {
    const tenant = await tenantPromise;
    const slow = structuredClone(counterTool);
    Object.assign(slow.testing.variants.swap, { delay_ms: 3 });
    const [attempt] = (await createSimulation(tenant, { tools: [{ inline: { ...slow, name: "slow_counter" } }] }))
      .attempts;
    if (!attempt) throw new Error("no attempt");
    const response = await dispatch(attempt, { tool: "slow_counter", arguments: { n: 1 } });
    expect({ status: response.status, delay: response.headers.get("x-toolproof-delay-ms") }).toEqual({
      status: 200,
      delay: "3",
    });
    expect((await evidence(attempt)).map((c) => c.delay_ms)).toEqual([3]);
  });
});

describe("call_id", () => {
  it("answers a retried call_id with the first answer and changes nothing", async () => {
    const tenant = await tenantPromise;
    const [attempt] = (await createSimulation(tenant, { tools: [{ inline: counterTool }] })).attempts;
    if (!attempt) throw new Error("no attempt");
    const first = await dispatch(attempt, { tool: "counter", arguments: { n: 7 }, call_id: "c-1" });
    const retry = await dispatch(attempt, { tool: "counter", arguments: { n: 7 }, call_id: "c-1" });
    expect([
      {
        status: first.status,
        body: await first.json(),
        seq: first.headers.get("x-toolproof-seq"),
        replayed: first.headers.get("x-toolproof-replayed"),
      },
      {
        status: retry.status,
        body: await retry.json(),
        seq: retry.headers.get("x-toolproof-seq"),
        replayed: retry.headers.get("x-toolproof-replayed"),
      },
    ]).toEqual([
      { status: 200, body: { previous: 0 }, seq: "1", replayed: null },
      { status: 200, body: { previous: 0 }, seq: "1", replayed: "true" },
    ]);
    // set_state ran once: the next call sees 7, and there are two calls, not three.
    expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 8 } })).toEqual({
      status: 200,
      body: { previous: 7 },
    });
    expect((await evidence(attempt)).map((c) => [c.seq, c.call_id])).toEqual([
      [1, "c-1"],
      [2, null],
    ]);
  });

  it("answers a call_id retried after the object was reset with the first answer, from storage", async () => {
    const tenant = await tenantPromise;
    const [attempt] = (await createSimulation(tenant, { tools: [{ inline: counterTool }] })).attempts;
    if (!attempt) throw new Error("no attempt");
    const body = { tool: "counter", arguments: { n: 7 }, call_id: "c-1" };
    const first = await dispatchJson(attempt, body);
    // A deploy or an eviction does this: the next request meets a new instance that reads storage.
    await runInDurableObject<AttemptObject, void>(stubOf(attempt), (_instance, state) => {
      setTimeout(() => state.abort("reset between two tries of a call"), 0);
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const retry = await dispatch(attempt, body);
    expect({
      status: retry.status,
      body: await retry.json(),
      replayed: retry.headers.get("x-toolproof-replayed"),
    }).toEqual({ status: first.status, body: first.body, replayed: "true" });
    expect((await evidence(attempt)).map((c) => [c.seq, c.call_id])).toEqual([[1, "c-1"]]);
  });

  it("replays error answers too", async () => {
    const tenant = await tenantPromise;
    const [attempt] = (await createSimulation(tenant, { tools: [{ inline: counterTool }] })).attempts;
    if (!attempt) throw new Error("no attempt");
    const bad = { tool: "counter", arguments: { n: "x" }, call_id: "bad-1" };
    const first = await dispatchJson(attempt, bad);
    expect(first.status).toBe(422);
    expect(await dispatchJson(attempt, bad)).toEqual(first);
    expect((await readAttempt(attempt)).body).toMatchObject({ calls: 1, tool_input_errors: 1 });
  });
});

describe("completion", () => {
  it("records the agent's final output and transcript once", async () => {
    const tenant = await tenantPromise;
    const simulation = await createSimulation(tenant, { tools: [{ inline: counterTool }] });
    const [attempt] = simulation.attempts;
    if (!attempt) throw new Error("no attempt");
    await dispatch(attempt, { tool: "counter", arguments: { n: 1 } });
    const body = {
      output: { answer: "booked" },
      transcript: [{ role: "user", content: "book me in" }],
      metadata: { model: "m-1" },
    };
    const done = await call("POST", `/api/attempts/${attempt.id}/complete`, { key: attempt.token, body });
    expect({ status: done.status, body: await done.json() }).toEqual({
      status: 200,
      body: {
        id: attempt.id,
        simulation_id: simulation.id,
        status: "completed",
        may_pass: true,
        state: { counter: { last: 1 } },
        calls: 1,
        tool_input_errors: 0,
        harness_errors: 0,
        expires_at: attempt.expires_at,
        lease_ended: false,
        completion: { ...body, completed_at: expect.stringMatching(/^\d{4}-/) },
      },
    });
    const again = await call("POST", `/api/attempts/${attempt.id}/complete`, { key: attempt.token, body });
    expect({ status: again.status, body: await again.json() }).toEqual({
      status: 409,
      body: { error: { code: "already_completed", message: "this attempt has already been completed" } },
    });
    // The status reaches D1 with the next flush, which reading the evidence forces.
    await evidence(attempt);
    const byKey = await readAttempt(attempt, tenant.key);
    expect(byKey.body).toMatchObject({ status: "completed", completion: { output: { answer: "booked" } } });
  });
});
