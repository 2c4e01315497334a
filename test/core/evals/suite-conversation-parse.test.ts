import { describe, expect, it } from "vitest";
import { parseSuite } from "../../../src/core/evals/suite-parse.js";

const agent = { connection: "model-a", instructions: "Help retail customers.", tools: [{ tool: "retail" }] };
const conversation = {
  agent,
  user_model: { connection: "user-sim" },
  scenarios: [{ id: "task-0", user: { instruction: "You are Yusuf Rossi in 19122." }, expect: null }],
};

describe("parseSuite: conversations", () => {
  it("reads user_model with its defaults and a scenario's user instead of a query", () => {
    expect(parseSuite(conversation)).toEqual({
      ok: true,
      suite: {
        agent: {
          kind: "builtin",
          connection: "model-a",
          parameters: {},
          instructions: "Help retail customers.",
          tools: [{ tool: "retail" }],
          max_iterations: 4,
          max_function_calls: 6,
        },
        scenarios: [{ id: "task-0", user: { instruction: "You are Yusuf Rossi in 19122." }, expect: null, forbid: [] }],
        runs_per_scenario: 3,
        pass_rate: 0.9,
        misfire_rate: 0.1,
        user_model: { connection: "user-sim", parameters: {}, max_turns: 10 },
      },
    });
  });

  it("keeps the given parameters and turn limits, and reads its own output back unchanged", () => {
    const full = {
      ...conversation,
      user_model: { connection: "user-sim", parameters: { temperature: 0.5, seed: 3 }, max_turns: 20 },
      scenarios: [{ id: "task-0", user: { instruction: "Be Yusuf.", max_turns: 4 }, expect: null, forbid: [] }],
    };
    const parsed = parseSuite(full);
    expect(parsed).toMatchObject({ ok: true, suite: { user_model: full.user_model, scenarios: full.scenarios } });
    if (parsed.ok) expect(parseSuite(parsed.suite)).toEqual(parsed);
  });

  it("refuses every conversation mistake at its field", () => {
    const result = parseSuite({
      agent,
      user_model: { connection: "no spaces allowed", max_turns: 0, temperature: 1 },
      scenarios: [
        { id: "both", query: "Hi", user: { instruction: "Be Yusuf." }, expect: null },
        { id: "neither", expect: null },
        { id: "empty", user: { instruction: " ", turns: 3 }, expect: null },
        { id: "too-long", user: { instruction: "Be Yusuf.", max_turns: 51 }, expect: null },
      ],
    });
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          path: "/scenarios/0/user",
          message:
            "a scenario has `query` (one message) or `user` (a conversation the user model plays), not both: remove one",
        },
        {
          path: "/scenarios/1/query",
          message: "required: the user's message (or `user`, for a conversation with a user model)",
        },
        { path: "/scenarios/2/user/turns", message: 'unknown field "turns"; expected one of: instruction, max_turns' },
        { path: "/scenarios/2/user/instruction", message: "expected a non-empty string" },
        {
          path: "/scenarios/3/user/max_turns",
          message: "expected a whole number from 1 to 50 (user messages), got 51",
        },
        {
          path: "/user_model/temperature",
          message: 'unknown field "temperature"; expected one of: connection, parameters, max_turns',
        },
        {
          path: "/user_model/connection",
          message:
            "expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit, got \"no spaces allowed\"",
        },
        { path: "/user_model/max_turns", message: "expected a whole number from 1 to 50 (user messages), got 0" },
      ],
    });
  });

  it("requires user_model when a scenario is a conversation", () => {
    const { user_model: _unused, ...without } = conversation;
    expect(parseSuite(without)).toEqual({
      ok: false,
      problems: [
        {
          path: "/user_model",
          message:
            'required: scenarios "task-0" are conversations, and a user model plays their user ({"connection": "<name>"})',
        },
      ],
    });
  });

  it("takes a conversation with an external agent, which converses through its attempt's turns", () => {
    const external = {
      kind: "external",
      endpoint: "https://agent.example/jobs",
      secret: "agent-key",
      tools: [{ tool: "retail" }],
    };
    expect(parseSuite({ ...conversation, agent: external })).toEqual({
      ok: true,
      suite: {
        agent: { ...external, timeout_seconds: 600 },
        scenarios: [{ id: "task-0", user: { instruction: "You are Yusuf Rossi in 19122." }, expect: null, forbid: [] }],
        runs_per_scenario: 3,
        pass_rate: 0.9,
        misfire_rate: 0.1,
        user_model: { connection: "user-sim", parameters: {}, max_turns: 10 },
      },
    });
  });

  it("takes as many scenarios as τ-bench's largest split", () => {
    const scenarios = Array.from({ length: 500 }, (_, i) => ({
      id: `task-${i}`,
      user: { instruction: `Task ${i}` },
      expect: null,
    }));
    expect(parseSuite({ ...conversation, scenarios }).ok).toBe(true);
  });
});
