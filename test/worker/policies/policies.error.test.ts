import { beforeAll, describe, expect, it } from "vitest";
import policy from "../../../examples/policy/policy.json" with { type: "json" };
import { type TestTenant, call, newTenant } from "../helpers.js";

let tenant: TestTenant;

beforeAll(async () => {
  tenant = await newTenant();
  await call("PUT", "/api/policies/ap-agent", { key: tenant.key, body: policy });
  await call("PUT", "/api/policies/no-lists", { key: tenant.key, body: { tools: { get_invoice: "never_require" } } });
});

async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

function invalid(problems: Array<{ path: string; message: string }>, message?: string) {
  const first = problems[0];
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  return {
    status: 400,
    body: {
      error: {
        code: "invalid_request",
        message: message ?? `${first?.path || "body"}: ${first?.message}${more}`,
        details: { problems },
      },
    },
  };
}

describe("PUT /api/policies/:name", () => {
  it("names every malformed field of the policy", async () => {
    const body = {
      tools: { place_invoice_on_hold: "sometimes" },
      min_desc_length: 10,
      closed_enums: { place_invoice_hold: ["reason"] },
    };
    expect(await answer(await call("PUT", "/api/policies/ap-agent", { key: tenant.key, body }))).toEqual(
      invalid([
        {
          path: "/min_desc_length",
          message: 'unknown field "min_desc_length"; did you mean "min_description_length"?',
        },
        {
          path: "/tools/place_invoice_on_hold",
          message: 'expected "never_require" or "always_require", got "sometimes"',
        },
        { path: "/closed_enums/place_invoice_hold", message: '"place_invoice_hold" is not a tool this policy reviews' },
      ]),
    );
  });

  it("refuses other content types, broken JSON or YAML, and oversized bodies", async () => {
    expect(
      await answer(
        await call("PUT", "/api/policies/ap-agent", {
          key: tenant.key,
          body: "tools: {}",
          headers: { "content-type": "text/plain" },
        }),
      ),
    ).toEqual({
      status: 415,
      body: {
        error: {
          code: "unsupported_media_type",
          message: 'expected Content-Type: application/json or application/yaml, got "text/plain"',
        },
      },
    });
    const brokenJson = await answer(
      await call("PUT", "/api/policies/ap-agent", { key: tenant.key, body: '{"tools": ' }),
    );
    // SAFETY: every error answer has the documented {"error": {"code"}} shape; the code is what is asserted.
    expect({ status: brokenJson.status, code: (brokenJson.body as { error: { code: string } }).error.code }).toEqual({
      status: 400,
      code: "malformed_json",
    });
    expect(
      await answer(
        await call("PUT", "/api/policies/ap-agent", {
          key: tenant.key,
          body: "tools:\n  a: b\n  a: c\n",
          headers: { "content-type": "application/yaml" },
        }),
      ),
    ).toEqual({
      status: 400,
      body: {
        error: {
          code: "malformed_yaml",
          message: "the request body is not valid YAML: Map keys must be unique at line 3, column 3:",
        },
      },
    });
    const huge = {
      tools: Object.fromEntries(
        Array.from({ length: 6000 }, (_, i) => [`tool_${i}_${"x".repeat(10)}`, "never_require"]),
      ),
    };
    expect(await answer(await call("PUT", "/api/policies/ap-agent", { key: tenant.key, body: huge }))).toEqual({
      status: 413,
      body: {
        error: {
          code: "payload_too_large",
          message: "the request body exceeds the limit of 131072 bytes",
          details: { limit_bytes: 131072 },
        },
      },
    });
  });

  it("refuses a policy name that is not a name", async () => {
    expect(await answer(await call("PUT", "/api/policies/-dash-first", { key: tenant.key, body: policy }))).toEqual(
      invalid([
        {
          path: "/params/name",
          message: "expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit",
        },
      ]),
    );
  });
});

describe("GET /api/policies/:name", () => {
  it("answers 404 for a policy never saved, and for a version that does not exist", async () => {
    expect(await answer(await call("GET", "/api/policies/never-saved", { key: tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "policy not found" } },
    });
    expect(await answer(await call("GET", "/api/policies/ap-agent/versions/9", { key: tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "policy version not found" } },
    });
  });

  it("names bad paging parameters and version numbers", async () => {
    expect(await answer(await call("GET", "/api/policies/ap-agent?cursor=zzz", { key: tenant.key }))).toEqual(
      invalid([{ path: "/query/cursor", message: "not a cursor this list handed out" }]),
    );
    expect(await answer(await call("GET", "/api/policies/ap-agent?limit=0", { key: tenant.key }))).toEqual(
      invalid([{ path: "/query/limit", message: "expected a whole number from 1 to 200" }]),
    );
    expect(await answer(await call("GET", "/api/policies/ap-agent/versions/one", { key: tenant.key }))).toEqual(
      invalid([{ path: "/params/version", message: "expected a version number (1, 2, ...)" }]),
    );
  });
});

describe("POST /api/policies/:name/check", () => {
  const check = (body: unknown, name = "ap-agent") =>
    call("POST", `/api/policies/${name}/check`, { key: tenant.key, body });

  it("requires the manifest", async () => {
    expect(await answer(await check({}))).toEqual(
      invalid([
        {
          path: "/manifest",
          message:
            'required: the agent\'s tool manifest (toolproof\'s shape, an OpenAI tools array with "format": "openai", or an MCP tools/list result with "format": "mcp")',
        },
      ]),
    );
  });

  it("names malformed manifest fields under /manifest", async () => {
    const manifest = { tools: [{ name: "get_invoice", approval_mode: "maybe" }, { description: "no name" }] };
    expect(await answer(await check({ manifest }))).toEqual(
      invalid([
        {
          path: "/manifest/tools/0/approval_mode",
          message: 'expected "never_require" or "always_require", got "maybe"',
        },
        { path: "/manifest/tools/1/name", message: "expected a string, got nothing" },
      ]),
    );
  });

  it("says which format an OpenAI array needs", async () => {
    expect(await answer(await check({ manifest: [] }))).toEqual(
      invalid([
        {
          path: "/manifest",
          message:
            'expected a toolproof manifest object ({"tools": [...]}), got an array; an OpenAI tools array needs format "openai"',
        },
      ]),
    );
  });

  it("names unknown fields, bad formats and bad versions", async () => {
    expect(await answer(await check({ manifest: { tools: [] }, fromat: "openai" }))).toEqual(
      invalid([{ path: "/fromat", message: 'unknown field "fromat"; did you mean "format"?' }]),
    );
    expect(await answer(await check({ manifest: { tools: [] }, format: "anthropic" }))).toEqual(
      invalid([{ path: "/format", message: "expected one of toolproof, openai, mcp" }]),
    );
    const badVersion = await answer(await check({ manifest: { tools: [] }, version: 0 }));
    expect(badVersion.status).toBe(400);
  });

  it("answers 404 for a policy or version that does not exist", async () => {
    expect(await answer(await check({ manifest: { tools: [] } }, "never-saved"))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "policy not found" } },
    });
    expect(await answer(await check({ manifest: { tools: [] }, version: 7 }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "policy version not found" } },
    });
  });
});

describe("POST /api/metrics/tool-permission", () => {
  const metric = (body: unknown) => call("POST", "/api/metrics/tool-permission", { key: tenant.key, body });

  it("requires at least one list", async () => {
    expect(await answer(await metric({ tools_called: [{ name: "a" }] }))).toEqual(
      invalid([
        {
          path: "/allowed_tools",
          message: "at least one of allowed_tools (an allow list) or denied_tools (a deny list) is required",
        },
      ]),
    );
  });

  it("names bad thresholds, calls and fields", async () => {
    expect(await answer(await metric({ allowed_tools: ["a"], threshold: 2, tools_called: [] }))).toEqual(
      invalid([{ path: "/threshold", message: "expected a number from 0 to 1" }]),
    );
    expect(await answer(await metric({ allowed_tools: ["a"] }))).toEqual(
      invalid([
        {
          path: "/tools_called",
          message: 'required: the called tools, [{"name": "..."}] (an empty array when none were called)',
        },
      ]),
    );
    expect(await answer(await metric({ allowed_tools: ["a"], tools_called: [{ name: "" }, { tool: "a" }] }))).toEqual(
      invalid([
        { path: "/tools_called/0/name", message: "expected a non-empty tool name" },
        { path: "/tools_called/1/name", message: "required" },
        {
          path: "/tools_called/1/tool",
          message:
            'unknown field "tool"; expected one of: name, input, input_parameters, output, description, reasoning',
        },
      ]),
    );
  });

  it("refuses lists alongside a policy, an unknown policy, and a policy without lists", async () => {
    expect(await answer(await metric({ policy: "ap-agent", denied_tools: ["x"], tools_called: [] }))).toEqual(
      invalid([{ path: "/denied_tools", message: "give the lists in the body or name a policy, not both" }]),
    );
    expect(await answer(await metric({ policy: "never-saved", tools_called: [] }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "policy not found" } },
    });
    expect(await answer(await metric({ policy: "no-lists", tools_called: [] }))).toEqual(
      invalid([
        {
          path: "/policy",
          message:
            'policy "no-lists" version 1 has neither allowed_tools nor denied_tools; add one, or give the lists in the body',
        },
      ]),
    );
  });
});
