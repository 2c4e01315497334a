import { describe, expect, it } from "vitest";
import { parseSuite } from "../../../src/core/evals/suite-parse.js";
import { endStateProblems } from "../../../src/core/evals/suite-end-state-parse.js";

const agent = { connection: "model-a", instructions: "Help retail customers.", tools: [{ tool: "retail" }] };
const CANCEL = "retail__cancel_pending_order";

function suiteWith(scenario: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { agent, scenarios: [{ id: "cancel", query: "Cancel #W1.", expect: CANCEL, ...scenario }], ...extra };
}

describe("a scenario's end_state and outputs", () => {
  it("are read as given, and a suite whose call-expecting scenarios are all graded by outcome needs no judge", () => {
    const end_state = {
      gold_calls: [{ function: CANCEL, arguments: { order_id: "#W1", reason: "no longer needed" } }],
      assert: [
        { path: "/retail/orders/#W1/status", equals: "cancelled" },
        { path: "/retail/log", equals: null },
      ],
    };
    const parsed = parseSuite(suiteWith({ end_state, outputs: ["54.04"] }));
    expect(parsed).toMatchObject({
      ok: true,
      suite: {
        scenarios: [{ id: "cancel", query: "Cancel #W1.", expect: CANCEL, forbid: [], end_state, outputs: ["54.04"] }],
      },
    });
    expect(parsed.ok && parsed.suite.judge).toBeUndefined();
    // Gold calls without arguments call with {}; an empty outputs list is left out.
    expect(parseSuite(suiteWith({ end_state: { gold_calls: [{ function: CANCEL }] }, outputs: [] }))).toMatchObject({
      ok: true,
      suite: { scenarios: [{ end_state: { gold_calls: [{ function: CANCEL, arguments: {} }] } }] },
    });
  });

  it("still require the judge for a scenario that expects calls and is graded by neither", () => {
    const parsed = parseSuite({
      agent,
      scenarios: [
        { id: "graded", query: "q", expect: CANCEL, outputs: ["x"] },
        { id: "judged", query: "q", expect: CANCEL },
      ],
    });
    expect(parsed).toEqual({
      ok: false,
      problems: [
        {
          path: "/judge",
          message:
            'required: scenarios "judged" expect calls, and the judge scores the calls that selection lets through ({"connection": "<name>"})',
        },
      ],
    });
  });

  it("refuse every mistake at its field, all at once", () => {
    const parsed = parseSuite(
      suiteWith({
        end_state: {
          gold_calls: [{ function: "cancel order", arguments: [] }, { fn: CANCEL }],
          assert: [{ path: "retail/orders", equals: 1 }, { path: "/retail/x" }, { path: "/~2", equals: 1 }],
          extra: true,
        },
        outputs: ["ok", "", 5],
      }),
    );
    expect(parsed).toEqual({
      ok: false,
      problems: [
        {
          path: "/scenarios/0/end_state/extra",
          message: expect.stringContaining('unknown field "extra"'),
        },
        {
          path: "/scenarios/0/end_state/gold_calls/0/function",
          message: expect.stringContaining("expected a function name as the model sees it"),
        },
        {
          path: "/scenarios/0/end_state/gold_calls/0/arguments",
          message: "expected the call's arguments as a JSON object, got an array",
        },
        { path: "/scenarios/0/end_state/gold_calls/1/fn", message: expect.stringContaining('unknown field "fn"') },
        {
          path: "/scenarios/0/end_state/gold_calls/1/function",
          message: expect.stringContaining("got nothing"),
        },
        {
          path: "/scenarios/0/end_state/assert/0/path",
          message:
            'expected a JSON Pointer into the state that starts with the tool\'s name ("/<tool>/<field>/..."), got "retail/orders"',
        },
        {
          path: "/scenarios/0/end_state/assert/1/equals",
          message: "required: the value the state must hold at the path (any JSON, null included)",
        },
        {
          path: "/scenarios/0/end_state/assert/2/path",
          message:
            'expected a JSON Pointer into the state that starts with the tool\'s name ("/<tool>/<field>/..."), got "/~2"',
        },
        { path: "/scenarios/0/outputs/1", message: "expected a non-empty string" },
        { path: "/scenarios/0/outputs/2", message: "expected a string, got 5" },
      ],
    });
  });

  it("refuse an end_state with neither gold calls nor assertions, and lists that are not lists", () => {
    expect(parseSuite(suiteWith({ end_state: {}, outputs: "54.04" }))).toEqual({
      ok: false,
      problems: [
        {
          path: "/scenarios/0/end_state",
          message:
            'expected "gold_calls" (the calls whose end state is the expected one), "assert" (values at paths of the state), or both',
        },
        {
          path: "/scenarios/0/outputs",
          message: 'expected an array of at most 50 facts the agent\'s answers must state, got "54.04"',
        },
      ],
    });
  });
});

describe("endStateProblems, against the pinned plan", () => {
  it("names gold calls of functions the agent lacks and assertions on tools it lacks, with a near miss", () => {
    expect(
      endStateProblems(
        {
          end_state: {
            gold_calls: [
              { function: CANCEL, arguments: {} },
              { function: "retail__cancel_pending_ordr", arguments: {} },
            ],
            assert: [
              { path: "/retail/orders", equals: {} },
              { path: "/retal/orders", equals: {} },
              { path: "/clock/x", equals: 1 },
            ],
          },
        },
        "/scenarios/3",
        [CANCEL, "retail__get_order_details"],
        ["retail"],
      ),
    ).toEqual([
      {
        path: "/scenarios/3/end_state/gold_calls/1/function",
        message: `the agent has no function "retail__cancel_pending_ordr"; did you mean "${CANCEL}"?`,
      },
      {
        path: "/scenarios/3/end_state/assert/1/path",
        message:
          'the state has no tool "retal" (a path starts with the tool\'s name, not a function\'s); did you mean "retail"?',
      },
      {
        path: "/scenarios/3/end_state/assert/2/path",
        message:
          "the state has no tool \"clock\" (a path starts with the tool's name, not a function's); its tools are retail",
      },
    ]);
  });
});
