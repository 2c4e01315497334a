/** Which requests take the dispatch path before the router, and that the rest still reach it. */
import { describe, expect, it } from "vitest";
import { dispatchTarget } from "../../src/worker/routes/dispatch.js";
import { call } from "./helpers.js";

const request = (method: string, url: string) => new Request(url, { method });

describe("dispatchTarget", () => {
  it("takes only POST to /api/attempts/<id>/dispatch, and decodes the id", () => {
    expect([
      dispatchTarget(request("POST", "http://x/api/attempts/att_abc/dispatch")),
      dispatchTarget(request("POST", "http://x/api/attempts/att_abc/dispatch?x=1")),
      dispatchTarget(request("POST", "http://x/api/attempts/att%5Fabc/dispatch")),
      dispatchTarget(request("GET", "http://x/api/attempts/att_abc/dispatch")),
      dispatchTarget(request("POST", "http://x/api/attempts/att_abc/dispatch/")),
      dispatchTarget(request("POST", "http://x/api/attempts/att_abc/mcp")),
      dispatchTarget(request("POST", "http://x/api/attempts//dispatch")),
      dispatchTarget(request("POST", "http://x/api/attempts/%E0%A4%A/dispatch")),
    ]).toEqual(["att_abc", "att_abc", "att_abc", undefined, undefined, undefined, undefined, undefined]);
  });
});

const attemptTokenHere =
  "this is an attempt token (tpa_...): it opens only its attempt's routes (dispatch, mcp, the attempt, evidence, complete); this route needs an API key (tpk_...)";

describe("requests the dispatch path leaves to the router", () => {
  it("answer as any other unknown /api route (the API-key check comes first) or bad token does", async () => {
    const trailing = await call("POST", "/api/attempts/att_aaaaaaaaaaaaaaaaaaaaaa/dispatch/", { key: "tpa_x", body: {} });
    const get = await call("GET", "/api/attempts/att_aaaaaaaaaaaaaaaaaaaaaa/dispatch", { key: "tpa_x" });
    const badEncoding = await call("POST", "/api/attempts/%E0%A4%A/dispatch", { key: "tpa_x", body: {} });
    expect([
      { status: trailing.status, body: await trailing.json() },
      { status: get.status, body: await get.json() },
      { status: badEncoding.status, code: ((await badEncoding.json()) as { error: { code: string } }).error.code },
    ]).toEqual([
      { status: 401, body: { error: { code: "unauthorized", message: attemptTokenHere } } },
      { status: 401, body: { error: { code: "unauthorized", message: attemptTokenHere } } },
      { status: 401, code: "unauthorized" },
    ]);
  });
});
