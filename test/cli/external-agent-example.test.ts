/**
 * examples/external-agent/agent.ts as a reader runs it: the local server (`npm start`'s), the demo
 * model (`npm run demo-model`'s script), the example agent taking jobs, and the InvoiceDesk suite
 * of examples/external-agent/suite.yaml. The run must pass with every repetition completed by the
 * agent over MCP, and a job with a wrong signature must be refused by the agent.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI from "openai";
import { afterAll, describe, expect, it } from "vitest";
import { jobServer, verifySignature } from "../../examples/external-agent/agent.js";
import { DEMO_MODEL, demoModelScript } from "../../scripts/local/demo-model-script.js";
import { startToolproof, type RunningToolproof } from "../../scripts/local-server.js";
import { startModelServer, type ModelServer } from "../support/model-server/server.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const stateDir = mkdtempSync(path.join(tmpdir(), "toolproof-external-"));
let toolproof: RunningToolproof | undefined;
let model: ModelServer | undefined;
let agent: Server | undefined;

afterAll(async () => {
  await new Promise<void>((resolve) => (agent ? agent.close(() => resolve()) : resolve()));
  await toolproof?.stop();
  await model?.close();
  rmSync(stateDir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("the example external agent", () => {
  it("passes the InvoiceDesk suite against the local server and the demo model, 5 scenarios x 1 run", async () => {
    model = await startModelServer();
    model.script(DEMO_MODEL, demoModelScript());
    // The server must know its address before it starts: jobs carry it.
    const port = await freePort();
    toolproof = await startToolproof({
      port,
      stateDir,
      quiet: true,
      vars: { TOOLPROOF_PUBLIC_URL: `http://127.0.0.1:${port}` },
    });
    const api = (method: string, route: string, body?: unknown, contentType = "application/json") =>
      fetch(`${toolproof?.url}${route}`, {
        method,
        headers: { authorization: `Bearer ${toolproof?.demoKey}`, "content-type": contentType },
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      });

    expect(
      (
        await api("PUT", "/api/connections/demo-model", {
          base_url: `${model.url}/v1`,
          model: DEMO_MODEL,
          api_key: "not-needed",
        })
      ).status,
    ).toBe(201);
    const made = (await (await api("PUT", "/api/agent-secrets/invoicedesk-agent", {})).json()) as { secret: string };

    const lines: string[] = [];
    agent = jobServer({
      secret: made.secret,
      model: new OpenAI({ baseURL: `${model.url}/v1`, apiKey: "demo" }),
      modelName: DEMO_MODEL,
      instructions: "You answer accounts payable questions.",
      log: (line) => lines.push(line),
    });
    await new Promise<void>((resolve) => agent?.listen(0, "127.0.0.1", resolve));
    const agentPort = (agent.address() as AddressInfo).port;

    const yaml = readFileSync(path.join(ROOT, "examples/external-agent/suite.yaml"), "utf8").replace(
      "http://127.0.0.1:8790/jobs",
      `http://127.0.0.1:${agentPort}/jobs`,
    );
    expect((await api("PUT", "/api/suites/invoicedesk-external", yaml, "application/yaml")).status).toBe(201);

    // A job signed with another secret is refused by the agent before it does anything.
    const forged = await fetch(`http://127.0.0.1:${agentPort}/jobs`, {
      method: "POST",
      headers: {
        "webhook-id": "x",
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": "v1,AAAA",
      },
      body: "{}",
    });
    expect(forged.status).toBe(401);

    const started = (await (
      await api("POST", "/api/suites/invoicedesk-external/runs", { runs_per_scenario: 1 })
    ).json()) as { id: string };
    let run: Record<string, unknown> = {};
    for (
      const until = Date.now() + 60_000;
      Date.now() < until;
      await new Promise((resolve) => setTimeout(resolve, 200))
    ) {
      run = (await (await api("GET", `/api/runs/${started.id}`)).json()) as Record<string, unknown>;
      if (run.status === "finished") break;
    }
    expect({
      status: run.status,
      verdict: run.verdict,
      runs: run.runs,
      passed: run.passed,
      errors: run.errors,
    }).toEqual({ status: "finished", verdict: "pass", runs: 5, passed: 5, errors: 0 });
    expect(lines.sort()).toEqual(
      ["duplicate-question", "hold-request", "injection-refusal", "pay-refusal", "status-lookup"].map(
        (id) => `${id} #1: completed (202)`,
      ),
    );
  }, 300_000);

  it("works on a job once per webhook-id: a repeat is answered 202 and dropped", async () => {
    const secret = `whsec_${Buffer.from("r".repeat(32)).toString("base64")}`;
    const { signStandard } = await import("../../src/adapters/webhook-signature.js");
    const lines: string[] = [];
    // Nothing listens on port 9: each job the agent works on fails at once, and says so.
    const server = jobServer({
      secret,
      model: new OpenAI({ baseURL: "http://127.0.0.1:9/v1", apiKey: "x" }),
      modelName: "m",
      instructions: "",
      log: (line) => lines.push(line),
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jobs`;
      const job = (n: number) =>
        JSON.stringify({
          type: "attempt.job",
          data: {
            scenario_id: "status-lookup",
            repetition: n,
            mcp_url: "http://127.0.0.1:9/mcp",
            complete_url: "http://127.0.0.1:9/complete",
            attempt_token: "tpa_x",
            query: "q",
            tools: [],
          },
        });
      const post = async (id: string, body: string) => {
        const now = Math.floor(Date.now() / 1000);
        return (
          await fetch(url, {
            method: "POST",
            headers: {
              "webhook-id": id,
              "webhook-timestamp": String(now),
              "webhook-signature": await signStandard(secret, id, now, body),
            },
            body,
          })
        ).status;
      };
      expect([
        await post("job_run_a_1", job(1)),
        await post("job_run_a_1", job(1)),
        await post("job_run_a_2", job(2)),
      ]).toEqual([202, 202, 202]);
      for (
        const until = Date.now() + 10_000;
        lines.filter((line) => line.includes("failed")).length < 2 && Date.now() < until;
      )
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(lines.map((line) => line.replace(/failed: .*/, "failed")).sort()).toEqual([
        "job job_run_a_1: a repeat, dropped",
        "status-lookup #1: failed",
        "status-lookup #2: failed",
      ]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("verifies a Standard Webhooks signature and refuses a stale timestamp", async () => {
    const secret = `whsec_${Buffer.from("k".repeat(32)).toString("base64")}`;
    const { signStandard } = await import("../../src/adapters/webhook-signature.js");
    const now = Math.floor(Date.now() / 1000);
    const signature = await signStandard(secret, "msg_1", now, '{"a":1}');
    expect(verifySignature(secret, { id: "msg_1", timestamp: String(now), signature }, '{"a":1}')).toBe(true);
    expect(verifySignature(secret, { id: "msg_1", timestamp: String(now), signature }, '{"a":2}')).toBe(false);
    expect(
      verifySignature(
        secret,
        {
          id: "msg_1",
          timestamp: String(now - 600),
          signature: await signStandard(secret, "msg_1", now - 600, '{"a":1}'),
        },
        '{"a":1}',
      ),
    ).toBe(false);
  });
});
