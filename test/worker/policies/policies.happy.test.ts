import { beforeAll, describe, expect, it } from "vitest";
import manifest from "../../../examples/policy/manifest.json" with { type: "json" };
import drifted from "../../../examples/policy/manifest-drifted.json" with { type: "json" };
import openAiTools from "../../../examples/policy/openai-tools.json" with { type: "json" };
import policy from "../../../examples/policy/policy.json" with { type: "json" };
import { type TestTenant, call, newTenant } from "../helpers.js";

let tenant: TestTenant;

beforeAll(async () => {
  tenant = await newTenant();
});

async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

const ISO_TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

describe("PUT and GET /api/policies/:name", () => {
  it("keeps every PUT as a new version with its author and time, newest first", async () => {
    const first = await call("PUT", "/api/policies/invoice-desk", { key: tenant.key, body: policy });
    expect(first.headers.get("location")).toBe("/api/policies/invoice-desk");
    expect(await answer(first)).toEqual({
      status: 201,
      body: { name: "invoice-desk", version: 1, created_by: tenant.keyId, created_at: ISO_TIME },
    });
    const relaxed = { ...policy, min_description_length: 10 };
    expect(await answer(await call("PUT", "/api/policies/invoice-desk", { key: tenant.key, body: relaxed }))).toEqual({
      status: 201,
      body: { name: "invoice-desk", version: 2, created_by: tenant.keyId, created_at: ISO_TIME },
    });

    const latest = { version: 2, document: relaxed, created_by: tenant.keyId, created_at: ISO_TIME };
    expect(await answer(await call("GET", "/api/policies/invoice-desk", { key: tenant.key }))).toEqual({
      status: 200,
      body: {
        name: "invoice-desk",
        latest,
        items: [latest, { version: 1, document: policy, created_by: tenant.keyId, created_at: ISO_TIME }],
        next_cursor: null,
      },
    });
    expect(await answer(await call("GET", "/api/policies/invoice-desk/versions/1", { key: tenant.key }))).toEqual({
      status: 200,
      body: { name: "invoice-desk", version: 1, document: policy, created_by: tenant.keyId, created_at: ISO_TIME },
    });
  });

  it("pages through the history with next_cursor", async () => {
    for (let i = 0; i < 3; i++)
      await call("PUT", "/api/policies/paged", {
        key: tenant.key,
        body: { ...policy, min_description_length: 20 + i },
      });
    const first = await call("GET", "/api/policies/paged?limit=2", { key: tenant.key });
    // SAFETY: the documented list shape, asserted field by field below.
    const page1 = (await first.json()) as {
      latest: { version: number };
      items: Array<{ version: number }>;
      next_cursor: string | null;
    };
    expect({
      latest: page1.latest.version,
      versions: page1.items.map((item) => item.version),
      more: typeof page1.next_cursor,
    }).toEqual({ latest: 3, versions: [3, 2], more: "string" });
    const second = await call("GET", `/api/policies/paged?limit=2&cursor=${page1.next_cursor ?? ""}`, {
      key: tenant.key,
    });
    // SAFETY: as above.
    const page2 = (await second.json()) as {
      latest: { version: number };
      items: Array<{ version: number; document: unknown }>;
      next_cursor: string | null;
    };
    expect({
      latest: page2.latest.version,
      items: page2.items.map((item) => [item.version, item.document]),
      next_cursor: page2.next_cursor,
    }).toEqual({
      latest: 3,
      items: [[1, { ...policy, min_description_length: 20 }]],
      next_cursor: null,
    });
  });

  it("numbers racing PUTs without gaps or reuse", async () => {
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        call("PUT", "/api/policies/raced", { key: tenant.key, body: { ...policy, min_description_length: i } }),
      ),
    );
    // SAFETY: the documented 201 shape.
    const versions = await Promise.all(
      responses.map(async (response) => ((await response.json()) as { version: number }).version),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(12).fill(201));
    expect([...versions].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it("accepts a YAML policy and stores the same document", async () => {
    const yaml =
      "tools:\n  get_invoice: never_require\n  place_invoice_on_hold: always_require\nwrite_verbs: [place_]\n";
    const put = await call("PUT", "/api/policies/from-yaml", {
      key: tenant.key,
      body: yaml,
      headers: { "content-type": "application/yaml" },
    });
    expect(put.status).toBe(201);
    const got = await call("GET", "/api/policies/from-yaml", { key: tenant.key });
    // SAFETY: the documented shape.
    expect(((await got.json()) as { latest: { document: unknown } }).latest.document).toEqual({
      tools: { get_invoice: "never_require", place_invoice_on_hold: "always_require" },
      write_verbs: ["place_"],
    });
  });
});

describe("POST /api/policies/:name/check", () => {
  beforeAll(async () => {
    await call("PUT", "/api/policies/ap-agent", { key: tenant.key, body: policy });
  });

  it("passes the seed agent's manifest and names the policy version used", async () => {
    expect(
      await answer(await call("POST", "/api/policies/ap-agent/check", { key: tenant.key, body: { manifest } })),
    ).toEqual({
      status: 200,
      body: { passed: true, findings: [], policy: { name: "ap-agent", version: 1 } },
    });
  });

  it("answers every finding of a drifted manifest", async () => {
    expect(
      await answer(
        await call("POST", "/api/policies/ap-agent/check", { key: tenant.key, body: { manifest: drifted } }),
      ),
    ).toEqual({
      status: 200,
      body: {
        passed: false,
        findings: [
          {
            rule: "tool_set.unexpected",
            tool: "release_invoice_hold",
            message:
              'release_invoice_hold is in the manifest but not in the policy; review it and add it to "tools" with an explicit approval mode',
          },
          {
            rule: "approval.mismatch",
            tool: "place_invoice_on_hold",
            message: "place_invoice_on_hold runs with never_require but the policy reviewed always_require",
          },
          {
            rule: "approval.write_verb",
            tool: "place_invoice_on_hold",
            message:
              'place_invoice_on_hold starts with the write verb "place_", so it must be always_require, but it runs with never_require',
          },
          {
            rule: "approval.write_verb",
            tool: "release_invoice_hold",
            message:
              'release_invoice_hold starts with the write verb "release_", so it must be always_require, but it runs with never_require (approval mode unset; an unset mode means never_require)',
          },
          {
            rule: "description.too_short",
            tool: "release_invoice_hold",
            message:
              'release_invoice_hold has a 15-character description ("Release a hold."); the policy requires at least 20',
          },
          {
            rule: "enum.values",
            tool: "place_invoice_on_hold",
            message:
              'place_invoice_on_hold.reason allows ["disputed", "duplicate", "awaiting_po", "other"] but the policy lists ["disputed", "duplicate", "awaiting_po"] (not reviewed: ["other"])',
          },
        ],
        policy: { name: "ap-agent", version: 1 },
      },
    });
  });

  it("reads an OpenAI tools array with format openai", async () => {
    expect(
      await answer(
        await call("POST", "/api/policies/ap-agent/check", {
          key: tenant.key,
          body: { manifest: openAiTools, format: "openai" },
        }),
      ),
    ).toEqual({
      status: 200,
      body: { passed: true, findings: [], policy: { name: "ap-agent", version: 1 } },
    });
  });

  it("checks against a pinned version after the policy changes", async () => {
    const narrowed = await call("PUT", "/api/policies/ap-agent", {
      key: tenant.key,
      body: { tools: { get_invoice: "never_require" } },
    });
    expect(narrowed.status).toBe(201);
    const latest = await answer(
      await call("POST", "/api/policies/ap-agent/check", { key: tenant.key, body: { manifest } }),
    );
    expect(latest).toEqual({
      status: 200,
      body: {
        passed: false,
        findings: [
          {
            rule: "tool_set.unexpected",
            tool: "place_invoice_on_hold",
            message:
              'place_invoice_on_hold is in the manifest but not in the policy; review it and add it to "tools" with an explicit approval mode',
          },
        ],
        policy: { name: "ap-agent", version: 2 },
      },
    });
    expect(
      await answer(
        await call("POST", "/api/policies/ap-agent/check", { key: tenant.key, body: { manifest, version: 1 } }),
      ),
    ).toEqual({
      status: 200,
      body: { passed: true, findings: [], policy: { name: "ap-agent", version: 1 } },
    });
  });
});

describe("POST /api/metrics/tool-permission", () => {
  it("scores the called tools against the lists in the body", async () => {
    const body = {
      allowed_tools: ["search_kb", "reply_to_customer"],
      denied_tools: ["issue_refund"],
      threshold: 0.5,
      tools_called: [
        { name: "search_kb", input: { q: "refund" } },
        { name: "issue_refund" },
        { name: "reply_to_customer" },
        { name: "issue_refund" },
      ],
    };
    // 2 authorized of 4: 2/4 = 0.5 >= 0.5.
    expect(await answer(await call("POST", "/api/metrics/tool-permission", { key: tenant.key, body }))).toEqual({
      status: 200,
      body: {
        score: 0.5,
        success: true,
        threshold: 0.5,
        reason: "2 of 4 tool calls were unauthorized: issue_refund (2 calls, in denied_tools).",
        unauthorized: [{ tool: "issue_refund", count: 2, cause: "denied" }],
        total_calls: 4,
        authorized_calls: 2,
      },
    });
  });

  it("takes the lists from a stored policy and returns steps in verbose mode", async () => {
    await call("PUT", "/api/policies/metric-lists", { key: tenant.key, body: policy });
    const body = {
      policy: "metric-lists",
      strict_mode: true,
      verbose_mode: true,
      tools_called: [{ name: "get_invoice" }, { name: "pay_invoice" }],
    };
    expect(await answer(await call("POST", "/api/metrics/tool-permission", { key: tenant.key, body }))).toEqual({
      status: 200,
      body: {
        score: 0,
        success: false,
        threshold: 1,
        reason: "1 of 2 tool calls was unauthorized: pay_invoice (1 call, in denied_tools).",
        unauthorized: [{ tool: "pay_invoice", count: 1, cause: "denied" }],
        total_calls: 2,
        authorized_calls: 1,
        steps: [
          "Allowed tools: [get_invoice, place_invoice_on_hold]",
          "Denied tools: [pay_invoice, approve_invoice, delete_invoice]",
          "Tools called (2): [get_invoice, pay_invoice]",
          "Unauthorized calls (1): pay_invoice (1 call, in denied_tools)",
          "Score: 1/2 = 0.5; strict_mode makes it 0",
          "Success: 0 >= 1 (strict_mode) is false",
        ],
        policy: { name: "metric-lists", version: 1 },
      },
    });
  });

  it("scores no calls as 1", async () => {
    expect(
      await answer(
        await call("POST", "/api/metrics/tool-permission", {
          key: tenant.key,
          body: { denied_tools: ["x"], include_reason: false, tools_called: [] },
        }),
      ),
    ).toEqual({
      status: 200,
      body: {
        score: 1,
        success: true,
        threshold: 1,
        reason: null,
        unauthorized: [],
        total_calls: 0,
        authorized_calls: 0,
      },
    });
  });
});

describe("GET /api/policies", () => {
  it("lists the tenant's policies by name with their latest version and times, page by page", async () => {
    const own = await newTenant();
    const other = await newTenant();
    await call("PUT", "/api/policies/b-desk", { key: own.key, body: policy });
    await call("PUT", "/api/policies/a-desk", { key: own.key, body: policy });
    await call("PUT", "/api/policies/c-desk", { key: own.key, body: policy });
    await call("PUT", "/api/policies/a-desk", { key: own.key, body: { ...policy, min_description_length: 10 } });
    await call("PUT", "/api/policies/a-other", { key: other.key, body: policy });
    const versions = async (name: string) => {
      // SAFETY: the documented GET /api/policies/:name shape.
      const view = (await (await call("GET", `/api/policies/${name}`, { key: own.key })).json()) as {
        items: Array<{ version: number; created_at: string }>;
      };
      return view.items;
    };
    const entry = async (name: string) => {
      const items = await versions(name);
      return {
        name,
        latest_version: items[0]!.version,
        created_at: items[items.length - 1]!.created_at,
        updated_at: items[0]!.created_at,
      };
    };
    const expected = [await entry("a-desk"), await entry("b-desk"), await entry("c-desk")];
    expect(expected.map((e) => e.latest_version)).toEqual([2, 1, 1]);

    const first = await answer(await call("GET", "/api/policies?limit=2", { key: own.key }));
    expect(first).toEqual({ status: 200, body: { items: expected.slice(0, 2), next_cursor: expect.any(String) } });
    const cursor = (first.body as { next_cursor: string }).next_cursor;
    expect(await answer(await call("GET", `/api/policies?limit=2&cursor=${cursor}`, { key: own.key }))).toEqual({
      status: 200,
      body: { items: expected.slice(2), next_cursor: null },
    });
    expect(await answer(await call("GET", "/api/policies", { key: own.key }))).toEqual({
      status: 200,
      body: { items: expected, next_cursor: null },
    });
  });

  it("answers an empty list for a tenant without policies", async () => {
    const empty = await newTenant();
    expect(await answer(await call("GET", "/api/policies", { key: empty.key }))).toEqual({
      status: 200,
      body: { items: [], next_cursor: null },
    });
  });
});
