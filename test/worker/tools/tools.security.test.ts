import { beforeAll, describe, expect, it } from "vitest";
import { invoiceTool } from "../../fixtures/invoice-tools.js";
import { revokeKey } from "../../../src/adapters/d1/api-keys.js";
import { type TestTenant, call, db, keyWith, newTenant } from "../helpers.js";

let owner: TestTenant;
let other: TestTenant;
let toolId: string;
/** Archived by the DELETE row's last test (the owner's), so the other rows keep their tool. */
let archivableId: string;
let revokedKey: string;
let evalsOnlyKey: string;

beforeAll(async () => {
  owner = await newTenant();
  other = await newTenant();
  const response = await call("POST", "/api/tools", { key: owner.key, body: invoiceTool });
  // SAFETY: documented answer shape.
  toolId = ((await response.json()) as { id: string }).id;
  const archivable = await call("POST", "/api/tools", { key: owner.key, body: { ...invoiceTool, name: "archivable" } });
  // SAFETY: documented answer shape.
  archivableId = ((await archivable.json()) as { id: string }).id;
  const revoked = await newTenant();
  await revokeKey(db(), revoked.id, revoked.keyId);
  revokedKey = revoked.key;
  evalsOnlyKey = await keyWith(owner.id, ["AIManager:RunEvals"]);
});

// Every route of the tool library, with a body that would be acceptable to its owner.
const routes: Array<{ method: string; path: () => string; body?: () => unknown; takesId: boolean }> = [
  {
    method: "POST",
    path: () => "/api/tools",
    body: () => ({ ...invoiceTool, name: `sec_${crypto.randomUUID().slice(0, 8)}` }),
    takesId: false,
  },
  { method: "GET", path: () => "/api/tools", takesId: false },
  { method: "GET", path: () => `/api/tools/${toolId}`, takesId: true },
  { method: "PUT", path: () => `/api/tools/${toolId}`, body: () => invoiceTool, takesId: true },
  { method: "DELETE", path: () => `/api/tools/${archivableId}`, takesId: true },
  { method: "GET", path: () => `/api/tools/${toolId}/testing`, takesId: true },
  {
    method: "POST",
    path: () => `/api/tools/${toolId}/testing`,
    body: () => ({ action: "generate", operation_id: "get_invoice" }),
    takesId: true,
  },
  { method: "GET", path: () => `/api/tools/${toolId}/operations/get_invoice/revisions`, takesId: true },
  {
    method: "POST",
    path: () => "/api/tools/testing",
    body: () => ({ action: "generate", ...invoiceTool.operations[0], name: "inline" }),
    takesId: false,
  },
  {
    method: "POST",
    path: () => "/api/tools/import/mcp",
    body: () => ({
      name: `mcp_${crypto.randomUUID().slice(0, 8)}`,
      tools_list: { tools: [{ name: "a", inputSchema: { type: "object" }, outputSchema: { type: "object" } }] },
    }),
    takesId: false,
  },
  {
    method: "POST",
    path: () => "/api/tools/import/platform",
    body: () => ({
      name: `pf_${crypto.randomUUID().slice(0, 8)}`,
      description: "d",
      output_schema: { type: "object" },
      operations: [{ operation_id: "a", description: "A", parameters: [] }],
    }),
    takesId: false,
  },
];

describe.each(routes)("$method $path", (route) => {
  const send = (key?: string) =>
    call(route.method, route.path(), { ...(key ? { key } : {}), ...(route.body ? { body: route.body() } : {}) });

  it("answers 401 without a key", async () => {
    const response = await send();
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 401,
      body: { error: { code: "unauthorized", message: "missing API key: send Authorization: Bearer <key>" } },
    });
  });

  it("answers 401 for an unknown key and for a revoked key", async () => {
    for (const key of ["tpk_not-a-real-key", revokedKey]) {
      const response = await send(key);
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 401,
        body: { error: { code: "unauthorized", message: "unknown or revoked API key" } },
      });
    }
  });

  it("answers 403 naming the permission for a key without ManageTools", async () => {
    const response = await send(evalsOnlyKey);
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 403,
      body: {
        error: {
          code: "forbidden",
          message: "this API key lacks the permission AIManager:ManageTools",
          details: { required_permission: "AIManager:ManageTools" },
        },
      },
    });
  });

  it.runIf(route.takesId)("answers 404 to another tenant, exactly as for a missing tool", async () => {
    const response = await send(other.key);
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "tool not found" } },
    });
  });

  it("succeeds for the owner (the route is reachable at all)", async () => {
    const response = await send(owner.key);
    expect(response.status).toBeLessThan(300);
  });
});

describe("an Authorization header that is not Bearer <key>", () => {
  it.each([
    [
      "the key without a scheme",
      (key: string) => key,
      "the Authorization header holds an API key without the Bearer scheme: use Authorization: Bearer <key>",
    ],
    [
      "Bearer without a key",
      () => "Bearer",
      "the Authorization header has no key after Bearer: use Authorization: Bearer <key>",
    ],
    [
      "two values after Bearer",
      (key: string) => `Bearer ${key} extra`,
      "the Authorization header has more than one value after Bearer: use Authorization: Bearer <key>",
    ],
    [
      "another scheme",
      (key: string) => `Token ${key}`,
      'the Authorization header uses the scheme "Token": use Authorization: Bearer <key>',
    ],
    [
      "an attempt token without a scheme",
      () => "tpa_abc",
      "the Authorization header holds an attempt token without the Bearer scheme, and this route needs an API key: use Authorization: Bearer <key>",
    ],
    ["something else", () => "x", "the Authorization header holds no Bearer key: use Authorization: Bearer <key>"],
    [
      "an attempt token as Bearer",
      () => "Bearer tpa_abc",
      "this is an attempt token (tpa_...): it opens only its attempt's routes (dispatch, mcp, the attempt, evidence, complete); this route needs an API key (tpk_...)",
    ],
  ])("says how to send the key: %s", async (_, header, message) => {
    const response = await call("GET", "/api/tools", { headers: { authorization: header(owner.key) } });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 401,
      body: { error: { code: "unauthorized", message } },
    });
  });

  it("never echoes the key it was sent", async () => {
    for (const header of [
      owner.key,
      `Token ${owner.key}`,
      `Bearer ${owner.key} ${owner.key}`,
      `${owner.key} ${owner.key}`,
    ]) {
      const text = await (await call("GET", "/api/tools", { headers: { authorization: header } })).text();
      expect(text.includes(owner.key.slice(4, 12))).toBe(false);
    }
  });
});
