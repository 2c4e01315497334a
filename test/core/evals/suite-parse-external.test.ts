/** parseSuite's external agent: its defaults, its round trip, and every problem at its field. */
import { describe, expect, it } from "vitest";
import { parseSuite, readStoredSuite } from "../../../src/core/evals/suite-parse.js";

const scenarios = [{ id: "lookup", query: "Status of INV-10431?", expect: "invoices__get_invoice" }];

describe("parseSuite: an external agent", () => {
  it("fills the timeout in and keeps everything else, with no model fields", () => {
    const doc = {
      agent: {
        kind: "external",
        endpoint: "https://agent.example.com/jobs",
        secret: "desk-jobs",
        tools: [{ tool_id: "tool_1" }],
        policy: "invoice-desk",
      },
      scenarios,
      judge: { connection: "judge-a" },
    };
    const parsed = parseSuite(doc);
    expect(parsed).toEqual({
      ok: true,
      suite: {
        agent: {
          kind: "external",
          endpoint: "https://agent.example.com/jobs",
          secret: "desk-jobs",
          tools: [{ tool_id: "tool_1" }],
          policy: "invoice-desk",
          timeout_seconds: 600,
        },
        scenarios: [{ ...scenarios[0], forbid: [] }],
        runs_per_scenario: 3,
        pass_rate: 0.9,
        misfire_rate: 0.1,
        judge: { connection: "judge-a", threshold: 4, parameters: { temperature: 0 } },
      },
    });
    // What is stored reads back as the same suite.
    if (!parsed.ok) throw new Error("expected a suite");
    expect(readStoredSuite(parsed.suite)).toEqual({ ok: true, suite: parsed.suite });
  });

  it("names every problem at its field, built-in fields included", () => {
    expect(
      parseSuite({
        agent: {
          kind: "external",
          endpoint: "",
          secret: "no spaces",
          timeout_seconds: 0,
          connection: "m",
          instructions: "x",
          tools: [],
        },
        scenarios,
        judge: { connection: "j" },
      }),
    ).toEqual({
      ok: false,
      problems: [
        {
          path: "/agent/connection",
          message:
            'unknown field "connection"; expected one of: kind, endpoint, secret, tools, policy, timeout_seconds',
        },
        {
          path: "/agent/instructions",
          message:
            'unknown field "instructions"; expected one of: kind, endpoint, secret, tools, policy, timeout_seconds',
        },
        { path: "/agent/endpoint", message: "expected a non-empty string" },
        {
          path: "/agent/secret",
          message:
            "expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit, got \"no spaces\"",
        },
        { path: "/agent/tools", message: "expected an array of 1 to 50 tool entries, got 0 entries" },
        { path: "/agent/timeout_seconds", message: "expected a whole number from 1 to 7200, got 0" },
      ],
    });
    expect(parseSuite({ agent: { kind: "external" }, scenarios, judge: { connection: "j" } })).toEqual({
      ok: false,
      problems: [
        { path: "/agent/endpoint", message: "required: the URL your agent takes jobs at (http or https)" },
        {
          path: "/agent/secret",
          message: "required: the stored agent secret that signs the jobs (PUT /api/agent-secrets/:name)",
        },
        {
          path: "/agent/tools",
          message: 'required: the agent\'s tools ([{"tool": "<name>"}, {"tool_id": "tool_…"}, {"inline": {...}}])',
        },
      ],
    });
    expect(
      parseSuite({
        agent: { kind: "remote", connection: "m", instructions: "x", tools: [{ tool: "t" }] },
        scenarios,
        judge: { connection: "j" },
      }),
    ).toEqual({
      ok: false,
      problems: [
        {
          path: "/agent/kind",
          message:
            'expected "builtin" (the built-in runner) or "external" (your agent, sent a job per repetition), got "remote"',
        },
      ],
    });
  });
});
