import { beforeAll, describe, expect, it } from "vitest";
import { answer, call, invalidAnswer, newTenant, type TestTenant } from "../helpers.js";
import { invoiceSuite, putSuite, registerInvoices } from "../suite-helpers.js";

let tenant: TestTenant;
let toolId: string;

beforeAll(async () => {
  tenant = await newTenant();
  toolId = await registerInvoices(tenant);
});

function withAgent(agent: Record<string, unknown>, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const suite = invoiceSuite(overrides);
  return { ...suite, agent: { ...(suite.agent as Record<string, unknown>), ...agent } };
}

describe("PUT /api/suites/:name refusals, each naming its field", () => {
  it("answers every problem of the document at once", async () => {
    const body = invoiceSuite({
      runs_per_scenario: 0,
      scenarios: [
        { id: "a", query: "q", expect: "invoices__get_invoice", forbid: ["invoices__get_invoice"], repeat: 2 },
      ],
    });
    expect(await answer(await putSuite(tenant, "bad", body))).toEqual(
      invalidAnswer(
        {
          path: "/scenarios/0/repeat",
          message:
            'unknown field "repeat"; expected one of: id, query, expect, forbid, variants, initial_state, datasets, user, end_state, outputs',
        },
        {
          path: "/scenarios/0/forbid/0",
          message: '"invoices__get_invoice" is expected in this scenario and cannot also be forbidden',
        },
        { path: "/runs_per_scenario", message: "expected a whole number from 1 to 1000, got 0" },
      ),
    );
  });

  it("refuses a suite that no run could carry (scenarios × runs_per_scenario past one run's repetitions), as the run would", async () => {
    const scenarios = Array.from({ length: 100 }, (_, i) => ({
      id: `s${i + 1}`,
      query: `q${i + 1}`,
      expect: null,
      forbid: [],
    }));
    expect(await answer(await putSuite(tenant, "huge", invoiceSuite({ scenarios, runs_per_scenario: 100 })))).toEqual(
      invalidAnswer({
        path: "/runs_per_scenario",
        message: "100 scenarios × 100 runs is 10000 repetitions; one run may have at most 2000",
      }),
    );
    // Exactly at the limit it is saved.
    expect((await putSuite(tenant, "at-limit", invoiceSuite({ scenarios, runs_per_scenario: 20 }))).status).toBe(201);
  });

  it("refuses a suite whose stored document would pass D1's 2,000,000 bytes a row, naming its size, and stores nothing", async () => {
    // Each query is within its 20,000 characters and the body within its 4 MB; together they are
    // past what one D1 row holds (Miniflare's local D1 takes it, a deployed one answers an error).
    const scenarios = Array.from({ length: 110 }, (_, i) => ({
      id: `long-${i + 1}`,
      query: `${i + 1} ${"Is this invoice a duplicate of the one before? ".repeat(400)}`.slice(0, 19_000),
      expect: null,
      forbid: [],
    }));
    const refused = await answer(await putSuite(tenant, "too-long", invoiceSuite({ scenarios })));
    expect(refused).toMatchObject({ status: 413, body: { error: { code: "payload_too_large" } } });
    const { error } = refused.body as { error: { message: string; details: { bytes: number; limit_bytes: number } } };
    expect(error.details.limit_bytes).toBe(2_000_000);
    expect(error.details.bytes).toBeGreaterThan(2_000_000);
    expect(error.message).toBe(
      `the suite as stored would be ${error.details.bytes} bytes; a stored document may be at most 2000000 bytes (one D1 row): split its scenarios into suites of their own`,
    );
    expect((await call("GET", "/api/suites/too-long", { key: tenant.key })).status).toBe(404);
  });

  it("refuses names the agent does not have, with did-you-mean", async () => {
    const body = invoiceSuite({
      scenarios: [
        {
          id: "a",
          query: "q",
          expect: "get_invoice",
          forbid: ["invoices__place_invoice_onhold"],
          variants: { invoices__get_invoice: "lost" },
          initial_state: { invoice: {} },
        },
      ],
    });
    expect(await answer(await putSuite(tenant, "bad", body))).toEqual(
      invalidAnswer(
        {
          path: "/scenarios/0/expect",
          message:
            'the agent has no function "get_invoice"; the agent\'s functions are invoices__get_invoice, invoices__place_invoice_on_hold',
        },
        {
          path: "/scenarios/0/forbid/0",
          message:
            'the agent has no function "invoices__place_invoice_onhold"; did you mean "invoices__place_invoice_on_hold"?',
        },
        {
          path: "/scenarios/0/variants/invoices__get_invoice",
          message: 'unknown variant "lost": revision 1 of invoices__get_invoice defines success, not_found',
        },
        {
          path: "/scenarios/0/initial_state/invoice",
          message:
            'the agent has no tool "invoice" (state is kept per tool name, not function name); did you mean "invoices"?',
        },
      ),
    );
  });

  it("refuses what simulation planning refuses under /agent/tools, a missing tool as a 400 naming its field", async () => {
    // A missing tool is a mistake in the document being saved: 400 with the field's path, not a 404 of the route.
    expect(await answer(await putSuite(tenant, "bad", withAgent({ tools: [{ tool: "invoice" }] })))).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: '/agent/tools/0/tool: no tool named "invoice" (GET /api/tools lists the tenant\'s tools)',
          details: {
            problems: [
              {
                path: "/agent/tools/0/tool",
                message: 'no tool named "invoice" (GET /api/tools lists the tenant\'s tools)',
              },
            ],
          },
        },
      },
    });
    expect(await answer(await putSuite(tenant, "bad", withAgent({ tools: [{ tool_id: "invoices" }] })))).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `/agent/tools/0/tool_id: no tool "invoices": that looks like a tool name, and tool_id takes the tool's id; the tool named "invoices" has id "${toolId}"`,
          details: {
            problems: [
              {
                path: "/agent/tools/0/tool_id",
                message: `no tool "invoices": that looks like a tool name, and tool_id takes the tool's id; the tool named "invoices" has id "${toolId}"`,
              },
            ],
          },
        },
      },
    });
    expect(
      await answer(await putSuite(tenant, "bad", withAgent({ tools: [{ tool: "invoices", variant: "success" }] }))),
    ).toEqual(
      invalidAnswer({
        path: "/agent/tools/0/variant",
        message: 'this entry pins 2 operations; choose their variants with variants: {"<operation_id>": "<variant>"}',
      }),
    );
  });

  it("refuses a tool without a current mock revision (409) and an inline tool whose definition fails its check (422)", async () => {
    const created = await call("POST", "/api/tools", {
      key: tenant.key,
      body: {
        name: "ledger",
        description: "A ledger.",
        kind: "http",
        operations: [
          {
            operation_id: "read",
            description: "Read the ledger.",
            input_schema: { type: "object" },
            output_schema: { type: "object" },
          },
        ],
      },
    });
    const ledger = (await created.json()) as { id: string; operations: Array<{ contract_hash: string }> };
    const stale = await answer(
      await putSuite(
        tenant,
        "bad",
        withAgent({ tools: [{ tool: "ledger" }] }, { scenarios: [{ id: "a", query: "q", expect: "ledger" }] }),
      ),
    );
    expect(stale).toEqual({
      status: 409,
      body: {
        error: {
          code: "no_current_revision",
          message: `these operations have no mock revision checked against their current contract: ${ledger.id}/read (missing); save one first`,
          details: {
            offenders: [
              {
                path: "/agent/tools/0",
                tool_id: ledger.id,
                operation_id: "read",
                reason: "missing",
                current_contract_hash: ledger.operations[0]?.contract_hash,
                latest_revision: null,
                latest_revision_contract_hash: null,
              },
            ],
          },
        },
      },
    });

    const broken = {
      name: "clock",
      description: "The time.",
      input_schema: { type: "object" },
      output_schema: { type: "object" },
      testing: { schema_version: 1, default_variant: "x", variants: {} },
    };
    const invalid = await answer(
      await putSuite(
        tenant,
        "bad",
        withAgent({ tools: [{ inline: broken }] }, { scenarios: [{ id: "a", query: "q", expect: "clock" }] }),
      ),
    );
    expect(invalid).toMatchObject({
      status: 422,
      body: {
        error: {
          code: "invalid_definition",
          details: { path: "/agent/tools/0/inline/testing", valid: false, invalid: ["/agent/tools/0/inline/testing"] },
        },
      },
    });
  });

  it("refuses a policy that does not exist, a function the policy does not list, and an approval mode beside a policy", async () => {
    expect(
      await answer(await putSuite(tenant, "bad", withAgent({ policy: "nowhere", tools: [{ tool: "invoices" }] }))),
    ).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: '/agent/policy: no policy named "nowhere" (PUT /api/policies/nowhere first)',
          details: {
            problems: [
              { path: "/agent/policy", message: 'no policy named "nowhere" (PUT /api/policies/nowhere first)' },
            ],
          },
        },
      },
    });
    // The policy reviews get_invoice only: the hold tool was never reviewed.
    expect(
      (
        await call("PUT", "/api/policies/reads-only", {
          key: tenant.key,
          body: { tools: { invoices__get_invoice: "never_require" } },
        })
      ).status,
    ).toBe(201);
    expect(
      await answer(await putSuite(tenant, "bad", withAgent({ policy: "reads-only", tools: [{ tool: "invoices" }] }))),
    ).toEqual(
      invalidAnswer({
        path: "/agent/tools/0",
        message:
          'policy "reads-only" does not list "invoices__place_invoice_on_hold" (it lists invoices__get_invoice); add it with its approval mode to the policy, or remove the tool from the agent',
      }),
    );
    expect(
      await answer(
        await putSuite(
          tenant,
          "bad",
          withAgent({
            policy: "reads-only",
            tools: [{ tool: "invoices", operation_id: "get_invoice", approval_mode: "never_require" }],
          }),
        ),
      ),
    ).toEqual(
      invalidAnswer({
        path: "/agent/tools/0/approval_mode",
        message:
          'the agent names policy "reads-only", whose approval modes are the agent\'s; remove approval_mode here (or drop agent.policy)',
      }),
    );
    // Nothing refused was stored.
    expect((await call("GET", "/api/suites/bad", { key: tenant.key })).status).toBe(404);
  });

  it("refuses malformed YAML and JSON, a body that is not a document, and an unsupported content type", async () => {
    expect(await answer(await putSuite(tenant, "bad", "agent: [unclosed", "application/yaml"))).toEqual({
      status: 400,
      body: { error: { code: "malformed_yaml", message: expect.stringMatching(/^the request body is not/) } },
    });
    expect((await answer(await putSuite(tenant, "bad", "{", "application/json"))).body).toMatchObject({
      error: { code: "malformed_json" },
    });
    const notObject = { path: "", message: "expected a suite document (a JSON object), got an array" };
    expect(await answer(await putSuite(tenant, "bad", "- a\n- b\n", "application/yaml"))).toEqual({
      status: 400,
      body: {
        error: { code: "invalid_request", message: `body: ${notObject.message}`, details: { problems: [notObject] } },
      },
    });
    expect((await answer(await putSuite(tenant, "bad", "agent: {}", "text/plain"))).body).toMatchObject({
      error: { code: "unsupported_media_type" },
    });
  });

  it("names bad path parameters and answers 404 for what does not exist", async () => {
    expect(await answer(await putSuite(tenant, "-bad", invoiceSuite()))).toEqual(
      invalidAnswer({
        path: "/params/name",
        message: "expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit",
      }),
    );
    expect(await answer(await call("GET", "/api/suites/missing", { key: tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "suite not found" } },
    });
    expect(await answer(await call("GET", "/api/suites/missing/versions", { key: tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "suite not found" } },
    });
    await putSuite(tenant, "one", invoiceSuite());
    expect(await answer(await call("GET", "/api/suites/one/versions/2", { key: tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "suite version not found" } },
    });
    expect(await answer(await call("GET", "/api/suites/one/versions/0", { key: tenant.key }))).toEqual(
      invalidAnswer({ path: "/params/version", message: "expected a version number (1, 2, ...)" }),
    );
    expect(await answer(await call("GET", "/api/suites/one/versions?cursor=nonsense", { key: tenant.key }))).toEqual(
      invalidAnswer({ path: "/query/cursor", message: "not a cursor this list handed out" }),
    );
  });
});
