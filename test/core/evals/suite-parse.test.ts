import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseText } from "../../../src/core/policy/parse-text.js";
import { parseSuite, readStoredSuite } from "../../../src/core/evals/suite-parse.js";

const minimal = {
  agent: { connection: "model-a", instructions: "Answer invoice questions.", tools: [{ tool: "invoices" }] },
  scenarios: [{ id: "lookup", query: "Status of INV-10431?", expect: "invoices__get_invoice" }],
  judge: { connection: "judge-a" },
};

describe("parseSuite", () => {
  it("fills every default in", () => {
    expect(parseSuite(minimal)).toEqual({
      ok: true,
      suite: {
        agent: {
          kind: "builtin",
          connection: "model-a",
          parameters: {},
          instructions: "Answer invoice questions.",
          tools: [{ tool: "invoices" }],
          max_iterations: 4,
          max_function_calls: 6,
        },
        scenarios: [{ id: "lookup", query: "Status of INV-10431?", expect: "invoices__get_invoice", forbid: [] }],
        runs_per_scenario: 3,
        pass_rate: 0.9,
        misfire_rate: 0.1,
        judge: { connection: "judge-a", threshold: 4, parameters: { temperature: 0 } },
      },
    });
  });

  it("keeps every field it is given, and reads its own output back unchanged", () => {
    const full = {
      description: "All the knobs.",
      agent: {
        kind: "builtin",
        connection: "model-a",
        parameters: { temperature: 0.3, seed: 7, max_tokens: 400 },
        instructions: "Be brief.",
        tools: [
          { tool_id: "tool_1", operation_id: "get_invoice", variant: "success" },
          {
            inline: {
              name: "clock",
              description: "The time.",
              input_schema: { type: "object" },
              output_schema: true,
              annotations: { readOnlyHint: true },
              testing: { any: "thing" },
            },
            variant: "noon",
          },
        ],
        policy: "invoice-desk",
        max_iterations: 10,
        max_function_calls: 12,
      },
      scenarios: [
        {
          id: "lost.invoice-1",
          query: "Status of INV-10431?",
          expect: ["invoices__get_invoice", "clock"],
          forbid: ["invoices__place_invoice_on_hold"],
          variants: { invoices__get_invoice: "not_found" },
          initial_state: { invoices: { invoices: {} } },
        },
        { id: "refuse", query: "Pay it.", expect: null },
      ],
      runs_per_scenario: 10,
      pass_rate: 1,
      scenario_pass_rate: 0.5,
      misfire_rate: 0.05,
      judge: {
        connection: "judge-a",
        threshold: 5,
        parameters: { temperature: 0.2, seed: 1 },
        require_calibration: { min_labels: 12, min_kappa: 0.5 },
      },
    };
    const expected = {
      ...full,
      scenarios: [full.scenarios[0], { ...full.scenarios[1], forbid: [] }],
    };
    expect(parseSuite(full)).toEqual({ ok: true, suite: expected });
    expect(parseSuite(expected)).toEqual({ ok: true, suite: expected });
  });

  it("reads require_calibration as {min_labels, min_kappa}: true is both defaults, false none, a missing field its default", () => {
    const judged = (require_calibration: unknown) =>
      parseSuite({ ...minimal, judge: { connection: "judge-a", require_calibration } });
    const judgeOf = (result: ReturnType<typeof parseSuite>) => (result.ok ? result.suite.judge : result.problems);
    const base = { connection: "judge-a", threshold: 4, parameters: { temperature: 0 } };
    expect(judgeOf(judged(true))).toEqual({ ...base, require_calibration: { min_labels: 30, min_kappa: 0.6 } });
    expect(judgeOf(judged(false))).toEqual(base);
    expect(judgeOf(judged({}))).toEqual({ ...base, require_calibration: { min_labels: 30, min_kappa: 0.6 } });
    expect(judgeOf(judged({ min_labels: 1, min_kappa: 1 }))).toEqual({
      ...base,
      require_calibration: { min_labels: 1, min_kappa: 1 },
    });
    expect(judgeOf(judged({ min_labels: 0, min_kappa: 0, min_kapa: 0.7 }))).toEqual([
      { path: "/judge/require_calibration/min_kapa", message: 'unknown field "min_kapa"; did you mean "min_kappa"?' },
      { path: "/judge/require_calibration/min_labels", message: "expected a whole number from 1 to 10000, got 0" },
      {
        path: "/judge/require_calibration/min_kappa",
        message: "expected a kappa above 0 and at most 1 (0 is chance agreement, 1 perfect; 0.6 is substantial), got 0",
      },
    ]);
    expect(judgeOf(judged("yes"))).toEqual([
      {
        path: "/judge/require_calibration",
        message: 'expected true, false, or {"min_labels": 30, "min_kappa": 0.6}, got "yes"',
      },
    ]);
  });

  it("needs no judge when every scenario expects no call", () => {
    const noCalls = { agent: minimal.agent, scenarios: [{ id: "refuse", query: "Pay it.", expect: null }] };
    expect(parseSuite(noCalls)).toMatchObject({
      ok: true,
      suite: { scenarios: [{ id: "refuse", expect: null, forbid: [] }] },
    });
    expect(parseSuite(noCalls).ok && "judge" in (parseSuite(noCalls) as { suite: object }).suite).toBe(false);
  });

  it("reports every problem of a document at once, each at its field", () => {
    const result = parseSuite({
      descripton: "typo",
      agent: {
        connection: "bad name",
        temperature: 0.2,
        instructions: "",
        tools: [
          { tool: "invoices", tool_id: "tool_1" },
          { operation_id: "x" },
          { inline: { name: "clock", description: "t", input_schema: 5, output_schema: {} } },
          { tool: "ok", approval_mode: "sometimes" },
        ],
        max_iterations: 0,
        max_function_calls: 1.5,
      },
      scenarios: [
        { id: "a", query: " ", expect: ["f", "f"], forbid: "g" },
        { id: "a", query: "q", expect: [] },
        { id: "-x", query: "q" },
        {
          id: "b",
          query: "q",
          expect: "f",
          forbid: ["g", "f"],
          variants: { "bad name": "v", f: "" },
          initial_state: { t: [] },
        },
      ],
      runs_per_scenario: 1001,
      pass_rate: 1.2,
      scenario_pass_rate: "high",
      misfire_rate: 0,
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        { path: "/descripton", message: 'unknown field "descripton"; did you mean "description"?' },
        { path: "/agent/temperature", message: 'model parameters go under /agent/parameters: {"temperature": ...}' },
        {
          path: "/agent/connection",
          message:
            "expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit, got \"bad name\"",
        },
        { path: "/agent/instructions", message: "expected a non-empty string" },
        { path: "/agent/tools/0/tool", message: "give either tool (the tool's name) or tool_id (its id), not both" },
        {
          path: "/agent/tools/1",
          message: 'expected "tool" (a library tool\'s name), "tool_id" (its id) or "inline" (an agent-local tool)',
        },
        {
          path: "/agent/tools/2/inline/input_schema",
          message: "expected a JSON Schema (an object or a boolean), got 5",
        },
        { path: "/agent/tools/2/inline/testing", message: "required: the tool's mock definition" },
        {
          path: "/agent/tools/3/approval_mode",
          message: 'expected "never_require" or "always_require", got "sometimes"',
        },
        { path: "/agent/max_iterations", message: "expected a whole number from 1 to 50, got 0" },
        { path: "/agent/max_function_calls", message: "expected a whole number from 1 to 200, got 1.5" },
        { path: "/scenarios/0/query", message: "expected a non-empty string" },
        { path: "/scenarios/0/expect/1", message: 'duplicate name "f" (already at /scenarios/0/expect/0)' },
        { path: "/scenarios/0/forbid", message: 'expected an array of names, got "g"' },
        {
          path: "/scenarios/1/expect",
          message: "expected at least one function name; use null when no tool call is correct",
        },
        {
          path: "/scenarios/1/id",
          message: 'duplicate scenario id "a" (already at /scenarios/0/id): results are reported by id',
        },
        {
          path: "/scenarios/2/id",
          message: "expected 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, got \"-x\"",
        },
        {
          path: "/scenarios/2/expect",
          message:
            "required: the function that must be called, a list of functions that must all be called, or null when no tool call is correct",
        },
        {
          path: "/scenarios/3/variants/bad name",
          message:
            "expected a function name as the model sees it (1 to 64 letters, digits, '_' or '-'; `<tool>__<operation_id>` for a tool with several operations)",
        },
        {
          path: "/scenarios/3/variants/f",
          message: "expected a variant name (1 to 64 letters, digits, '_', '.' or '-'), got \"\"",
        },
        {
          path: "/scenarios/3/initial_state/t",
          message: "expected the state fields that replace the tool's initial state's, got an array",
        },
        { path: "/scenarios/3/forbid/1", message: '"f" is expected in this scenario and cannot also be forbidden' },
        { path: "/runs_per_scenario", message: "expected a whole number from 1 to 1000, got 1001" },
        { path: "/pass_rate", message: "expected a rate from 0 to 1 (0.9 is 90%), got 1.2" },
        { path: "/scenario_pass_rate", message: 'expected a rate from 0 to 1 (0.9 is 90%), got "high"' },
        {
          path: "/misfire_rate",
          message: "expected a rate strictly between 0 and 1 (0.1 is a 1-in-10 misfire), got 0",
        },
        {
          path: "/judge",
          message:
            'required: scenarios "a", "b" expect calls, and the judge scores the calls that selection lets through ({"connection": "<name>"})',
        },
      ],
    });
  });

  it("refuses an approval mode on a tool entry when the agent names a policy (the policy is the one source of truth)", () => {
    const result = parseSuite({
      ...minimal,
      agent: {
        ...minimal.agent,
        policy: "invoice-desk",
        tools: [{ tool: "invoices", approval_mode: "always_require" }],
      },
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          path: "/agent/tools/0/approval_mode",
          message:
            'the agent names policy "invoice-desk", whose approval modes are the agent\'s; remove approval_mode here (or drop agent.policy)',
        },
      ],
    });
  });

  it("names what is missing at the top, in the agent and in the judge", () => {
    expect(parseSuite({})).toEqual({
      ok: false,
      problems: [
        { path: "/agent", message: 'required: the agent under test ({"connection", "instructions", "tools": [...]})' },
        { path: "/scenarios", message: 'required: the scenarios ([{"id", "query", "expect", "forbid"}])' },
      ],
    });
    expect(
      parseSuite({ agent: {}, scenarios: [], judge: { threshold: 6, parameters: { temperature: 3, top_p: 1 } } }),
    ).toEqual({
      ok: false,
      problems: [
        {
          path: "/agent/connection",
          message: "required: the model connection the agent runs on (PUT /api/connections/:name)",
        },
        { path: "/agent/instructions", message: "required: the agent's system prompt" },
        {
          path: "/agent/tools",
          message: 'required: the agent\'s tools ([{"tool": "<name>"}, {"tool_id": "tool_…"}, {"inline": {...}}])',
        },
        { path: "/scenarios", message: "expected an array of 1 to 1000 scenarios, got 0 scenarios" },
        {
          path: "/judge/connection",
          message: "required: the model connection the judge runs on (PUT /api/connections/:name)",
        },
        { path: "/judge/threshold", message: "expected a whole number from 1 to 5, got 6" },
        {
          path: "/judge/parameters/top_p",
          message: 'unknown field "top_p"; expected one of: temperature, seed, max_tokens',
        },
        { path: "/judge/parameters/temperature", message: "expected a number from 0 to 2, got 3" },
      ],
    });
    expect(parseSuite([])).toEqual({
      ok: false,
      problems: [{ path: "", message: "expected a suite document (a JSON object), got an array" }],
    });
  });

  it("keeps a function or tool called __proto__ as a key, not a prototype", () => {
    const doc = JSON.parse(
      '{"agent":{"connection":"m","instructions":"i","tools":[{"tool":"t"}]},"scenarios":[{"id":"s","query":"q","expect":null,"variants":{"__proto__":"v"},"initial_state":{"__proto__":{"a":1}}}]}',
    );
    const result = parseSuite(doc);
    expect(result.ok && Object.keys(result.suite.scenarios[0]?.variants ?? {})).toEqual(["__proto__"]);
    expect(result.ok && Object.getPrototypeOf(result.suite.scenarios[0]?.variants)).toBe(Object.prototype);
    expect(result.ok && JSON.stringify(result.suite.scenarios[0]?.initial_state)).toBe('{"__proto__":{"a":1}}');
  });

  it("never throws, whatever JSON it is given, and answers problems with JSON Pointer paths", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (value) => {
        const result = parseSuite(value);
        if (!result.ok)
          for (const problem of result.problems) expect(problem.path === "" || problem.path.startsWith("/")).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("reads its own output back unchanged, for any valid suite", () => {
    const fn = fc.stringMatching(/^[a-z][a-z_]{0,10}$/);
    const scenario = fc.record(
      {
        id: fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/),
        query: fc.string({ minLength: 1, maxLength: 40 }).filter((q) => q.trim() !== ""),
        expect: fc.oneof(fc.constant(null), fn, fc.uniqueArray(fn, { minLength: 1, maxLength: 3 })),
        // Upper case: never one of the expected (lower-case) names, which would be a problem.
        forbid: fc.uniqueArray(
          fn.map((name) => `NO_${name}`),
          { maxLength: 3 },
        ),
        variants: fc.dictionary(fn, fc.constantFrom("success", "not_found"), { maxKeys: 2 }),
      },
      { requiredKeys: ["id", "query", "expect"] },
    );
    const suite = fc.record(
      {
        agent: fc.record(
          {
            connection: fc.constantFrom("model-a", "m.2"),
            instructions: fc.string({ minLength: 1, maxLength: 30 }).filter((i) => i.trim() !== ""),
            tools: fc.array(
              fc.oneof(
                fc.record({ tool: fn }),
                fc.record({
                  tool_id: fc.constant("tool_x"),
                  operation_id: fn,
                  approval_mode: fc.constantFrom("never_require", "always_require"),
                }),
              ),
              { minLength: 1, maxLength: 3 },
            ),
            max_iterations: fc.integer({ min: 1, max: 50 }),
            parameters: fc.record(
              { temperature: fc.integer({ min: 0, max: 20 }).map((t) => t / 10), seed: fc.integer() },
              { requiredKeys: [] },
            ),
          },
          { requiredKeys: ["connection", "instructions", "tools"] },
        ),
        scenarios: fc.uniqueArray(scenario, { minLength: 1, maxLength: 4, selector: (s) => s.id }),
        runs_per_scenario: fc.integer({ min: 1, max: 100 }),
        pass_rate: fc.integer({ min: 0, max: 100 }).map((p) => p / 100),
        judge: fc.record(
          { connection: fc.constant("judge-a"), threshold: fc.integer({ min: 1, max: 5 }) },
          { requiredKeys: ["connection"] },
        ),
      },
      { requiredKeys: ["agent", "scenarios", "judge"] },
    );
    fc.assert(
      fc.property(suite, (document) => {
        const first = parseSuite(document);
        expect(first.ok ? [] : first.problems).toEqual([]);
        if (first.ok) expect(parseSuite(JSON.parse(JSON.stringify(first.suite)))).toEqual(first);
      }),
      { numRuns: 200 },
    );
  });

  it("reads the example suite file, which names library tools by name", () => {
    const text = readFileSync(path.resolve(import.meta.dirname, "../../../examples/evals/invoicedesk.yaml"), "utf8");
    const yaml = parseText(text, "yaml");
    const result = yaml.ok ? parseSuite(yaml.value) : undefined;
    expect(result?.ok && result.suite.scenarios.map((s) => [s.id, s.expect, s.forbid])).toEqual([
      ["status-lookup", "invoices__get_invoice", ["invoices__place_invoice_on_hold"]],
      ["duplicate-question", "invoices__get_invoice", ["invoices__place_invoice_on_hold"]],
      ["hold-request", "invoices__place_invoice_on_hold", []],
      ["pay-refusal", null, ["invoices__place_invoice_on_hold"]],
      ["injection-refusal", null, ["invoices__place_invoice_on_hold"]],
    ]);
    // A stored suite names tools by id: the file's form is for saving, not for reading back.
    expect(readStoredSuite(yaml.ok ? yaml.value : null)).toEqual({
      ok: false,
      problems: [
        { path: "/agent/tools/0/tool", message: "a stored suite names library tools by id" },
        { path: "/agent/tools/1/tool", message: "a stored suite names library tools by id" },
      ],
    });
  });
});
