import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { answer, call, keyWith, newTenant, type TestTenant } from "../helpers.js";
import { invoiceSuite, putSuite, registerInvoices, storeConnection } from "../suite-helpers.js";

let owner: TestTenant;
let stranger: TestTenant;
let ownerToolId: string;

beforeAll(async () => {
  owner = await newTenant();
  stranger = await newTenant();
  ownerToolId = await registerInvoices(owner);
  await registerInvoices(stranger);
  expect((await putSuite(owner, "private", invoiceSuite())).status).toBe(201);
  expect(
    (
      await call("PUT", "/api/policies/owner-policy", {
        key: owner.key,
        body: { tools: { invoices__get_invoice: "never_require", invoices__place_invoice_on_hold: "always_require" } },
      })
    ).status,
  ).toBe(201);
});

const notFound = (what: string) => ({
  status: 404,
  body: { error: { code: "not_found", message: `${what} not found` } },
});

describe("suites are the tenant's own", () => {
  it("answers another tenant's suite as missing, and lists none of it", async () => {
    expect(await answer(await call("GET", "/api/suites/private", { key: stranger.key }))).toEqual(notFound("suite"));
    expect(await answer(await call("GET", "/api/suites/private/versions", { key: stranger.key }))).toEqual(
      notFound("suite"),
    );
    expect(await answer(await call("GET", "/api/suites/private/versions/1", { key: stranger.key }))).toEqual(
      notFound("suite version"),
    );
    expect(await answer(await call("GET", "/api/suites", { key: stranger.key }))).toEqual({
      status: 200,
      body: { items: [], next_cursor: null },
    });
  });

  it("cannot reach another tenant's tools or policies from a suite, by name or by id", async () => {
    const outsider = await newTenant();
    const byName = await answer(await putSuite(outsider, "mine", invoiceSuite()));
    expect(byName).toMatchObject({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          details: { problems: [{ path: "/agent/tools/0/tool" }, { path: "/agent/tools/1/tool" }] },
        },
      },
    });
    const suite = invoiceSuite();
    const agent = suite.agent as Record<string, unknown>;
    const byId = await answer(
      await putSuite(outsider, "mine", { ...suite, agent: { ...agent, tools: [{ tool_id: ownerToolId }] } }),
    );
    expect(byId).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `/agent/tools/0/tool_id: no tool "${ownerToolId}"`,
          details: { problems: [{ path: "/agent/tools/0/tool_id", message: `no tool "${ownerToolId}"` }] },
        },
      },
    });

    const policy = await answer(
      await putSuite(stranger, "mine", {
        ...suite,
        agent: { ...agent, policy: "owner-policy", tools: [{ tool: "invoices" }] },
      }),
    );
    expect(policy).toMatchObject({
      status: 400,
      body: { error: { code: "invalid_request", details: { problems: [{ path: "/agent/policy" }] } } },
    });
  });

  it("counts only the tenant's own connections: another tenant's connection of the same name still warns", async () => {
    await storeConnection(owner, "shared-name");
    const body = invoiceSuite({ judge: { connection: "shared-name" } });
    const ownerAnswer = await answer(await putSuite(owner, "conn-check", body));
    const strangerAnswer = await answer(await putSuite(stranger, "conn-check", body));
    const warning = (path: string, name: string) => ({
      path,
      message: `no connection named "${name}" yet: the suite is saved, and runs refuse to start until PUT /api/connections/${name} stores it`,
    });
    expect([ownerAnswer.body, strangerAnswer.body]).toEqual([
      expect.objectContaining({ warnings: [warning("/agent/connection", "demo-model")] }),
      expect.objectContaining({
        warnings: [warning("/agent/connection", "demo-model"), warning("/judge/connection", "shared-name")],
      }),
    ]);
  });

  it("keeps one name apart per tenant: the same name starts at version 1 for each", async () => {
    const theirs = await answer(await putSuite(stranger, "private", invoiceSuite({ runs_per_scenario: 7 })));
    expect(theirs).toMatchObject({ status: 201, body: { version: 1 } });
    const mine = (await (await call("GET", "/api/suites/private", { key: owner.key })).json()) as {
      version: number;
      suite: { runs_per_scenario: number };
    };
    expect([mine.version, mine.suite.runs_per_scenario]).toEqual([1, 3]);
  });
});

describe("suites need AIManager:RunEvals", () => {
  it("refuses a key without it on every route, and takes one with only it", async () => {
    const toolsOnly = await keyWith(owner.id, ["AIManager:ManageTools"]);
    const forbidden = {
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "this API key lacks the permission AIManager:RunEvals",
          details: { required_permission: "AIManager:RunEvals" },
        },
      },
    };
    for (const [method, path] of [
      ["GET", "/api/suites"],
      ["GET", "/api/suites/private"],
      ["GET", "/api/suites/private/versions"],
      ["GET", "/api/suites/private/versions/1"],
    ] as const) {
      expect({ path, ...(await answer(await call(method, path, { key: toolsOnly }))) }).toEqual({ path, ...forbidden });
    }
    expect(await answer(await putSuite({ key: toolsOnly }, "private", invoiceSuite()))).toEqual(forbidden);

    const evalsOnly = await keyWith(owner.id, ["AIManager:RunEvals"]);
    expect(
      await answer(await putSuite({ key: evalsOnly }, "private", invoiceSuite({ runs_per_scenario: 4 }))),
    ).toMatchObject({ status: 200, body: { version: 2 } });
  });

  it("refuses a request without a key", async () => {
    expect((await call("GET", "/api/suites")).status).toBe(401);
    expect((await putSuite({ key: "" }, "x", invoiceSuite())).status).toBe(401);
  });
});

describe("suite history is append-only", () => {
  it("refuses to rewrite, remove or replace a stored version", async () => {
    for (const statement of [
      "update suite_versions set document = '{}' where name = 'private'",
      "delete from suite_versions where name = 'private'",
      `insert or replace into suite_versions (tenant_id, name, version, document, created_by) values ('${owner.id}', 'private', 1, '{}', 'x')`,
    ]) {
      await expect(env.DB.prepare(statement).run()).rejects.toThrow(/append-only/);
    }
  });
});
