/** Which requests take the dispatch path before the router, and that the rest still reach it. */
import { describe, expect, it } from "vitest";
import { dispatchTarget } from "../../../src/worker/attempts/dispatch.js";
import { headerText, httpAnswer } from "../../../src/worker/attempts/dispatch-answer.js";
import type { Answer } from "../../../src/worker/attempts/replies.js";
import { call } from "../helpers.js";

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
  it("answer as any other /api route: an unknown path meets the API-key check first, a wrong method 405", async () => {
    const trailing = await call("POST", "/api/attempts/att_aaaaaaaaaaaaaaaaaaaaaa/dispatch/", {
      key: "tpa_x",
      body: {},
    });
    const get = await call("GET", "/api/attempts/att_aaaaaaaaaaaaaaaaaaaaaa/dispatch", { key: "tpa_x" });
    const badEncoding = await call("POST", "/api/attempts/%E0%A4%A/dispatch", { key: "tpa_x", body: {} });
    expect([
      { status: trailing.status, body: await trailing.json() },
      { status: get.status, body: await get.json() },
      { status: badEncoding.status, code: ((await badEncoding.json()) as { error: { code: string } }).error.code },
    ]).toEqual([
      { status: 401, body: { error: { code: "unauthorized", message: attemptTokenHere } } },
      {
        status: 405,
        body: {
          error: {
            code: "method_not_allowed",
            message: "/api/attempts/att_aaaaaaaaaaaaaaaaaaaaaa/dispatch takes POST, not GET",
            details: { allowed: ["POST"] },
          },
        },
      },
      { status: 401, code: "unauthorized" },
    ]);
  });
});

describe("httpAnswer", () => {
  const answer: Answer = {
    seq: 3,
    tool: "t\ud800",
    operation_id: "op\udfff",
    revision: 2,
    variant: "v\udbff",
    rule: null,
    outcome: "harness_error",
    result: null,
    error: JSON.stringify({
      code: "harness_error",
      kind: "output_schema",
      message: "m",
      details: [{ path: "/a", message: "b" }],
    }),
    delay_ms: 0,
    replayed: false,
  };

  it("builds headers from any string (a lone surrogate becomes U+FFFD), and errors in the documented body", async () => {
    const response = httpAnswer(answer);
    expect({
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: await response.json(),
    }).toEqual({
      status: 500,
      headers: {
        "content-type": "application/json; charset=utf-8",
        "x-toolproof-seq": "3",
        "x-toolproof-tool": "t%EF%BF%BD",
        "x-toolproof-operation": "op%EF%BF%BD",
        "x-toolproof-revision": "2",
        "x-toolproof-variant": "v%EF%BF%BD",
        "x-toolproof-rule": "none",
        "x-toolproof-delay-ms": "0",
        "x-toolproof-outcome": "harness_error",
      },
      body: {
        error: { code: "harness_error", kind: "output_schema", message: "m", details: [{ path: "/a", message: "b" }] },
      },
    });
  });

  it("never throws on a header value: lone high or low surrogates, reversed pairs, a pair cut short", () => {
    expect(["\ud800", "\udfff", "a\udc00\ud800b", "🚀", "\ud83d\ude80\ud83d", ""].map(headerText)).toEqual([
      "%EF%BF%BD",
      "%EF%BF%BD",
      "a%EF%BF%BD%EF%BF%BDb",
      "%F0%9F%9A%80",
      "%F0%9F%9A%80%EF%BF%BD",
      "",
    ]);
  });
});
