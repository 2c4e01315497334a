/**
 * A path the API serves, asked with a method it does not take: 405 with an Allow header naming
 * the methods it does take, before any key or token is looked at. A path nothing serves is still 404.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { answer, call, newTenant, type TestTenant } from "./helpers.js";
import { createSimulation, mirrorTool } from "./simulation-helpers.js";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

async function refused(response: Response) {
  return { allow: response.headers.get("allow"), ...(await answer(response)) };
}

const notAllowed = (method: string, path: string, allowed: string) => ({
  allow: allowed,
  status: 405,
  body: {
    error: {
      code: "method_not_allowed",
      message: `${path} takes ${allowed}, not ${method}`,
      details: { allowed: allowed.split(", ") },
    },
  },
});

describe("a method a path does not take", () => {
  it("answers 405 naming the methods it takes, with or without a key", async () => {
    expect(await refused(await call("DELETE", "/api/policies/p1", { key: tenant.key }))).toEqual(
      notAllowed("DELETE", "/api/policies/p1", "GET, PUT"),
    );
    expect(await refused(await call("PATCH", "/api/tools", { key: tenant.key }))).toEqual(
      notAllowed("PATCH", "/api/tools", "GET, POST"),
    );
    expect(await refused(await call("PUT", "/api/keys/key_x"))).toEqual(
      notAllowed("PUT", "/api/keys/key_x", "GET, DELETE"),
    );
  });

  it("answers 405 on an attempt's routes rather than refusing the attempt's own token", async () => {
    const [attempt] = (await createSimulation(tenant, { tools: [{ inline: mirrorTool }] })).attempts;
    if (!attempt) throw new Error("no attempt");
    const path = `/api/attempts/${attempt.id}/dispatch`;
    expect(await refused(await call("GET", path, { key: attempt.token }))).toEqual(notAllowed("GET", path, "POST"));
  });

  it("still answers 404 for a path nothing serves, and serves HEAD where GET is served", async () => {
    expect(await refused(await call("GET", "/api/nothing-here", { key: tenant.key }))).toEqual({
      allow: null,
      status: 404,
      body: { error: { code: "not_found", message: "no route for GET /api/nothing-here" } },
    });
    const head = await call("HEAD", "/health");
    expect(head.status).toBe(200);
  });
});
