import { beforeAll, describe, expect, it } from "vitest";
import manifest from "../../../examples/policy/manifest.json" with { type: "json" };
import policy from "../../../examples/policy/policy.json" with { type: "json" };
import { type TestTenant, call, keyWith, newTenant } from "../helpers.js";

let owner: TestTenant;
let other: TestTenant;
let evalsOnlyKey: string;

beforeAll(async () => {
  owner = await newTenant();
  other = await newTenant();
  evalsOnlyKey = await keyWith(owner.id, ["AIManager:RunEvals"]);
  await call("PUT", "/api/policies/ap-agent", { key: owner.key, body: policy });
});

async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

// Every policy and metric route, with a body its owner would get a 2xx for.
const routes: Array<{ method: string; path: string; body?: unknown; ownsPolicy: boolean }> = [
  { method: "GET", path: "/api/policies", ownsPolicy: false },
  { method: "PUT", path: "/api/policies/ap-agent", body: policy, ownsPolicy: false },
  { method: "GET", path: "/api/policies/ap-agent", ownsPolicy: true },
  { method: "GET", path: "/api/policies/ap-agent/versions/1", ownsPolicy: true },
  { method: "POST", path: "/api/policies/ap-agent/check", body: { manifest }, ownsPolicy: true },
  {
    method: "POST",
    path: "/api/metrics/tool-permission",
    body: { policy: "ap-agent", tools_called: [{ name: "get_invoice" }] },
    ownsPolicy: true,
  },
  {
    method: "POST",
    path: "/api/metrics/tool-permission",
    body: { allowed_tools: ["get_invoice"], tools_called: [] },
    ownsPolicy: false,
  },
];

describe.each(routes)("$method $path", (route) => {
  const send = (key?: string) =>
    call(route.method, route.path, {
      ...(key ? { key } : {}),
      ...(route.body === undefined ? {} : { body: route.body }),
    });

  it("answers 401 without a key", async () => {
    expect(await answer(await send())).toEqual({
      status: 401,
      body: { error: { code: "unauthorized", message: "missing API key: send Authorization: Bearer <key>" } },
    });
  });

  it("answers 401 for a key that does not exist", async () => {
    expect(await answer(await send("tpk_not-a-real-key"))).toEqual({
      status: 401,
      body: { error: { code: "unauthorized", message: "unknown or revoked API key" } },
    });
  });

  it("answers 403 naming the permission for a key without ManageTools", async () => {
    expect(await answer(await send(evalsOnlyKey))).toEqual({
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

  it.runIf(route.ownsPolicy)("answers 404 to another tenant, exactly as for a missing policy", async () => {
    const notFound = route.path.includes("/versions/") ? "policy version not found" : "policy not found";
    expect(await answer(await send(other.key))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: notFound } },
    });
  });

  it("succeeds for the owner", async () => {
    expect((await send(owner.key)).status).toBeLessThan(300);
  });
});

describe("tenancy of policy names", () => {
  it("lists only the tenant's own policies", async () => {
    await call("PUT", "/api/policies/only-other", { key: other.key, body: { tools: {} } });
    // SAFETY: the documented list shape.
    const listed = (await (await call("GET", "/api/policies?limit=200", { key: owner.key })).json()) as {
      items: Array<{ name: string }>;
    };
    expect(listed.items.map((item) => item.name)).not.toContain("only-other");
    expect(listed.items.map((item) => item.name)).toContain("ap-agent");
  });

  it("gives another tenant its own history under the same name, leaving the owner's untouched", async () => {
    const put = await answer(await call("PUT", "/api/policies/shared-name", { key: other.key, body: { tools: {} } }));
    expect(put).toEqual({
      status: 201,
      body: { name: "shared-name", version: 1, created_by: other.keyId, created_at: expect.any(String) },
    });
    await call("PUT", "/api/policies/shared-name", { key: owner.key, body: policy });
    const ownerView = await call("GET", "/api/policies/shared-name", { key: owner.key });
    // SAFETY: the documented GET shape.
    const body = (await ownerView.json()) as {
      items: Array<{ version: number; created_by: string; document: unknown }>;
    };
    expect(body.items.map((item) => [item.version, item.created_by, item.document])).toEqual([
      [1, owner.keyId, policy],
    ]);
  });
});
