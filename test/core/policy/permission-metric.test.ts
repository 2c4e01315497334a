import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  measureToolPermission,
  type ToolPermissionOptions,
  type ToolPermissionResult,
} from "../../../src/core/policy/permission-metric.js";

function measure(options: ToolPermissionOptions, called: string[]): ToolPermissionResult {
  const outcome = measureToolPermission(options, called);
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.problems));
  return outcome.result;
}

// Cases written from the Tool Permission metric page (seed 002). Arithmetic in the comments:
// score = authorized calls / all calls (1 with no calls); success = score >= threshold.
describe("tool-permission metric: the seed's cases", () => {
  it.each<[string, ToolPermissionOptions, string[], Omit<ToolPermissionResult, "steps">]>([
    [
      // The page's usage example: search_kb is allowed. 1/1 = 1 >= 1.0.
      "the usage example",
      { allowed_tools: ["search_kb", "reply_to_customer"], denied_tools: ["issue_refund"], threshold: 1.0 },
      ["search_kb"],
      {
        score: 1,
        success: true,
        threshold: 1,
        reason: "All 1 tool call stayed within the permitted tools.",
        unauthorized: [],
        total_calls: 1,
        authorized_calls: 1,
      },
    ],
    [
      // No calls: no boundary could be crossed, so 1 by definition.
      "no calls",
      { allowed_tools: ["search_kb"] },
      [],
      {
        score: 1,
        success: true,
        threshold: 1,
        reason: "No tools were called, so no permission boundary could be violated.",
        unauthorized: [],
        total_calls: 0,
        authorized_calls: 0,
      },
    ],
    [
      // Deny-only: only issue_refund is unauthorized; everything else is allowed. 2/3 = 0.666… < 1.
      "deny-only",
      { denied_tools: ["issue_refund"] },
      ["search_kb", "issue_refund", "lookup_order"],
      {
        score: 2 / 3,
        success: false,
        threshold: 1,
        reason: "1 of 3 tool calls was unauthorized: issue_refund (1 call, in denied_tools).",
        unauthorized: [{ tool: "issue_refund", count: 1, cause: "denied" }],
        total_calls: 3,
        authorized_calls: 2,
      },
    ],
    [
      // Allow-only: delete_account is outside the allow list. 1/2 = 0.5 < 1.
      "allow-only",
      { allowed_tools: ["search_kb"] },
      ["search_kb", "delete_account"],
      {
        score: 0.5,
        success: false,
        threshold: 1,
        reason: "1 of 2 tool calls was unauthorized: delete_account (1 call, not in allowed_tools).",
        unauthorized: [{ tool: "delete_account", count: 1, cause: "not_allowed" }],
        total_calls: 2,
        authorized_calls: 1,
      },
    ],
    [
      // Both lists, overlapping on issue_refund: the denial wins. 1/2 = 0.5.
      "both lists with overlap",
      { allowed_tools: ["search_kb", "issue_refund"], denied_tools: ["issue_refund"] },
      ["search_kb", "issue_refund"],
      {
        score: 0.5,
        success: false,
        threshold: 1,
        reason: "1 of 2 tool calls was unauthorized: issue_refund (1 call, in denied_tools).",
        unauthorized: [{ tool: "issue_refund", count: 1, cause: "denied" }],
        total_calls: 2,
        authorized_calls: 1,
      },
    ],
    [
      // Repeated calls count each time: 1 authorized of 4. 1/4 = 0.25.
      "duplicates",
      { allowed_tools: ["search_kb"] },
      ["search_kb", "send_email", "send_email", "send_email"],
      {
        score: 0.25,
        success: false,
        threshold: 1,
        reason: "3 of 4 tool calls were unauthorized: send_email (3 calls, not in allowed_tools).",
        unauthorized: [{ tool: "send_email", count: 3, cause: "not_allowed" }],
        total_calls: 4,
        authorized_calls: 1,
      },
    ],
    [
      // strict_mode: 3/4 = 0.75 < 1, so the binary score is 0; the threshold becomes 1 whatever was asked.
      "strict with an unauthorized call",
      { allowed_tools: ["search_kb"], strict_mode: true, threshold: 0.5 },
      ["search_kb", "search_kb", "search_kb", "delete_account"],
      {
        score: 0,
        success: false,
        threshold: 1,
        reason: "1 of 4 tool calls was unauthorized: delete_account (1 call, not in allowed_tools).",
        unauthorized: [{ tool: "delete_account", count: 1, cause: "not_allowed" }],
        total_calls: 4,
        authorized_calls: 3,
      },
    ],
    [
      // strict_mode with every call authorized: 2/2 = 1.
      "strict, all authorized",
      { allowed_tools: ["search_kb"], strict_mode: true },
      ["search_kb", "search_kb"],
      {
        score: 1,
        success: true,
        threshold: 1,
        reason: "All 2 tool calls stayed within the permitted tools.",
        unauthorized: [],
        total_calls: 2,
        authorized_calls: 2,
      },
    ],
    [
      // threshold 0.5: 1/2 = 0.5 >= 0.5 passes.
      "threshold 0.5, met exactly",
      { allowed_tools: ["search_kb"], threshold: 0.5 },
      ["search_kb", "delete_account"],
      {
        score: 0.5,
        success: true,
        threshold: 0.5,
        reason: "1 of 2 tool calls was unauthorized: delete_account (1 call, not in allowed_tools).",
        unauthorized: [{ tool: "delete_account", count: 1, cause: "not_allowed" }],
        total_calls: 2,
        authorized_calls: 1,
      },
    ],
    [
      // threshold 0.5: 1/3 = 0.333… < 0.5 fails.
      "threshold 0.5, missed",
      { allowed_tools: ["search_kb"], threshold: 0.5 },
      ["search_kb", "delete_account", "issue_refund"],
      {
        score: 1 / 3,
        success: false,
        threshold: 0.5,
        reason:
          "2 of 3 tool calls were unauthorized: delete_account (1 call, not in allowed_tools), issue_refund (1 call, not in allowed_tools).",
        unauthorized: [
          { tool: "delete_account", count: 1, cause: "not_allowed" },
          { tool: "issue_refund", count: 1, cause: "not_allowed" },
        ],
        total_calls: 3,
        authorized_calls: 1,
      },
    ],
    [
      // An empty allow list is still an allow list: nothing is allowed. 0/1 = 0.
      "an empty allow list",
      { allowed_tools: [] },
      ["search_kb"],
      {
        score: 0,
        success: false,
        threshold: 1,
        reason: "1 of 1 tool call was unauthorized: search_kb (1 call, not in allowed_tools).",
        unauthorized: [{ tool: "search_kb", count: 1, cause: "not_allowed" }],
        total_calls: 1,
        authorized_calls: 0,
      },
    ],
    [
      // include_reason false: same score, no reason.
      "without a reason",
      { denied_tools: ["issue_refund"], include_reason: false },
      ["issue_refund"],
      {
        score: 0,
        success: false,
        threshold: 1,
        reason: null,
        unauthorized: [{ tool: "issue_refund", count: 1, cause: "denied" }],
        total_calls: 1,
        authorized_calls: 0,
      },
    ],
  ])("%s", (_case, options, called, expected) => {
    expect(measure(options, called)).toEqual(expected);
  });

  it("returns the intermediate steps in verbose mode", () => {
    expect(
      measure(
        {
          allowed_tools: ["search_kb", "reply_to_customer"],
          denied_tools: ["issue_refund"],
          verbose_mode: true,
          threshold: 0.5,
        },
        ["search_kb", "issue_refund", "issue_refund"],
      ).steps,
    ).toEqual([
      "Allowed tools: [search_kb, reply_to_customer]",
      "Denied tools: [issue_refund]",
      "Tools called (3): [search_kb, issue_refund, issue_refund]",
      "Unauthorized calls (2): issue_refund (2 calls, in denied_tools)",
      "Score: 1/3 = 0.3333333333333333",
      "Success: 0.3333333333333333 >= 0.5 is false",
    ]);
    expect(measure({ denied_tools: ["x"], strict_mode: true, verbose_mode: true }, ["x", "y"]).steps).toEqual([
      "Allowed tools: any (no allow list)",
      "Denied tools: [x]",
      "Tools called (2): [x, y]",
      "Unauthorized calls (1): x (1 call, in denied_tools)",
      "Score: 1/2 = 0.5; strict_mode makes it 0",
      "Success: 0 >= 1 (strict_mode) is false",
    ]);
  });

  it("refuses to run without any list, and with a threshold outside 0..1", () => {
    expect(measureToolPermission({}, ["a"])).toEqual({
      ok: false,
      problems: [
        {
          path: "/allowed_tools",
          message: "at least one of allowed_tools (an allow list) or denied_tools (a deny list) is required",
        },
      ],
    });
    expect(measureToolPermission({ allowed_tools: null, denied_tools: null, threshold: 1.5 }, [])).toEqual({
      ok: false,
      problems: [
        {
          path: "/allowed_tools",
          message: "at least one of allowed_tools (an allow list) or denied_tools (a deny list) is required",
        },
        { path: "/threshold", message: "expected a number from 0 to 1, got 1.5" },
      ],
    });
  });
});

describe("tool-permission metric: properties", () => {
  const toolName = fc.constantFrom("a", "b", "c", "d", "e");
  const list = fc.option(fc.uniqueArray(toolName), { nil: null });
  const called = fc.array(toolName, { maxLength: 30 });

  it("scores authorized/total in [0, 1] (1 with no calls), and the counts add up", () => {
    fc.assert(
      fc.property(list, list, called, (allowed, denied, calls) => {
        fc.pre(allowed !== null || denied !== null);
        const result = measure({ allowed_tools: allowed, denied_tools: denied }, calls);
        const authorized = calls.filter(
          (tool) => !(denied ?? []).includes(tool) && (allowed === null || allowed.includes(tool)),
        ).length;
        expect(result.score).toBeGreaterThanOrEqual(0);
        expect(result.score).toBeLessThanOrEqual(1);
        expect(result.score).toBe(calls.length === 0 ? 1 : authorized / calls.length);
        expect(result.authorized_calls).toBe(authorized);
        expect(result.unauthorized.reduce((sum, entry) => sum + entry.count, 0)).toBe(calls.length - authorized);
        expect(result.success).toBe(result.score >= 1);
      }),
    );
  });

  it("never raises the score by denying one more tool (a denial beats an allow)", () => {
    fc.assert(
      fc.property(list, fc.uniqueArray(toolName), toolName, called, (allowed, denied, extra, calls) => {
        const before = measure({ allowed_tools: allowed, denied_tools: denied }, calls).score;
        const after = measure({ allowed_tools: allowed, denied_tools: [...new Set([...denied, extra])] }, calls).score;
        expect(after).toBeLessThanOrEqual(before);
      }),
    );
  });

  it("does not depend on call order, and strict mode is binary with threshold 1", () => {
    fc.assert(
      fc.property(
        list,
        list,
        called,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (allowed, denied, calls, threshold) => {
          fc.pre(allowed !== null || denied !== null);
          const options = { allowed_tools: allowed, denied_tools: denied };
          expect(measure(options, [...calls].reverse()).score).toBe(measure(options, calls).score);
          const strict = measure({ ...options, strict_mode: true, threshold }, calls);
          expect([0, 1]).toContain(strict.score);
          expect(strict.threshold).toBe(1);
          expect(strict.success).toBe(strict.score === 1);
        },
      ),
    );
  });
});
