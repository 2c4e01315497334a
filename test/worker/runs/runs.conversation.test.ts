/**
 * Conversation scenarios through HTTP and the real queue, against the local model server: a user
 * model (its own connection) plays the user from the scenario's instruction until it says the stop
 * token, or the turn limit ends the conversation; a user model that fails makes the repetition an
 * infrastructure error, never the agent's fail. Each side's model calls are counted apart.
 */
import { describe, expect, it } from "vitest";
import { uniqueModel } from "../../support/model-server/in-tests.js";
import { AGENT_GREETING, userSystemPrompt } from "../../../src/core/evals/user-prompt.js";
import { call } from "../helpers.js";
import {
  GET,
  GOOD_JUDGE,
  HOLD,
  type InvoiceWorld,
  invoiceSuite,
  invoiceWorld,
  putSuite,
  repetition,
  server,
  startRun,
  waitForRun,
  userTurn,
} from "../run-helpers.js";

const INSTRUCTION = "You are Dana from Contoso. You want to know whether invoice INV-10431 is approved.";
const OPENING = "Is my invoice INV-10431 approved?";
const APPROVED = "INV-10431 from Fabrikam Office is received.";

/** A second connection, "user-sim", to a model of its own that plays the user from `turns`. */
async function userModel(world: InvoiceWorld, turns: unknown[]): Promise<string> {
  const model = uniqueModel("user-sim");
  const put = await call("PUT", "/api/connections/user-sim", {
    key: world.tenant.key,
    body: { base_url: server.openaiBaseUrl, model, api_key: "sk-test", max_retries: 0, timeout_ms: 10_000 },
  });
  expect(put.status).toBe(201);
  // SAFETY: the test writes turns in the script's own shapes; the server answers 400 to any other.
  await server.script(model, { default: turns as never });
  return model;
}

function conversationSuite(world: InvoiceWorld, user: Record<string, unknown> = {}): Record<string, unknown> {
  return invoiceSuite(world, {
    scenarios: [{ id: "dana", user: { instruction: INSTRUCTION, ...user }, expect: GET, forbid: [HOLD] }],
    runs_per_scenario: 1,
    user_model: { connection: "user-sim", parameters: { temperature: 0 } },
  });
}

interface Turn {
  content: string | null;
  usage: { prompt_tokens: number; completion_tokens: number } | null;
}
const sum = (turns: Turn[]) => ({
  calls: turns.length,
  prompt_tokens: turns.reduce((n, t) => n + (t.usage?.prompt_tokens ?? 0), 0),
  completion_tokens: turns.reduce((n, t) => n + (t.usage?.completion_tokens ?? 0), 0),
  calls_without_usage: 0,
});

describe("a conversation scenario", () => {
  it("runs until the user says the stop token, keeps both sides, and counts each side's calls apart", async () => {
    const world = await invoiceWorld("convo-stop");
    const userSim = await userModel(world, [{ content: OPENING }, { content: "Great, thanks! ###STOP###" }]);
    await server.script(world.model, {
      conversations: {
        [OPENING]: [{ tool_calls: [{ name: GET, arguments: { invoice_id: "INV-10431" } }] }, { content: APPROVED }],
      },
      judge_default: GOOD_JUDGE,
    });
    await putSuite(world, "convo", conversationSuite(world));
    const run = await waitForRun(world, (await startRun(world, "convo")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "pass", runs: 1, passed: 1, errors: 0 });

    const detail = await repetition(world, String(run.id), 1);
    const transcript = detail.transcript as { messages: unknown[]; turns: Turn[] };
    const conversation = detail.conversation as { user_turns: Turn[] };
    expect(conversation).toEqual({
      stop_reason: "user_stop",
      user_model: { connection: "user-sim", model: userSim },
      user_turns: [userTurn(OPENING), userTurn("Great, thanks! ###STOP###")],
      usage: { agent: sum(transcript.turns), user_model: sum(conversation.user_turns) },
    });
    expect(transcript.messages).toEqual([
      { role: "system", content: "You answer accounts payable questions about single invoices." },
      { role: "user", content: OPENING },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: expect.any(String), name: GET, arguments: '{"invoice_id":"INV-10431"}' }],
      },
      { role: "tool", tool_call_id: expect.any(String), content: expect.stringContaining("INV-10431") },
      { role: "assistant", content: APPROVED },
    ]);
    expect(detail).toMatchObject({ stop_reason: "final_answer", final_answer: APPROVED, verdict: { pass: true } });
    // The run's summary counts the same calls, each side apart.
    expect(run.conversation_usage).toEqual({
      repetitions: 1,
      agent: sum(transcript.turns),
      user_model: sum(conversation.user_turns),
    });

    // The user model was asked twice, with its prompt and the conversation from its side.
    const asked = await server.log(userSim);
    expect(asked.map((request) => request.messages)).toEqual([
      [
        { role: "system", content: userSystemPrompt(INSTRUCTION) },
        { role: "user", content: AGENT_GREETING },
      ],
      [
        { role: "system", content: userSystemPrompt(INSTRUCTION) },
        { role: "user", content: AGENT_GREETING },
        { role: "assistant", content: OPENING },
        { role: "user", content: APPROVED },
      ],
    ]);
    expect(asked.map((request) => request.temperature)).toEqual([0, 0]);
  });

  it("ends at the scenario's max_turns when the user never says the stop token", async () => {
    const world = await invoiceWorld("convo-turns");
    await userModel(world, [{ content: OPENING }, { content: "Are you sure?" }, { content: "Really?" }]);
    await server.script(world.model, {
      conversations: {
        [OPENING]: [
          { tool_calls: [{ name: GET, arguments: { invoice_id: "INV-10431" } }] },
          { content: APPROVED },
          { content: "Yes, I am sure." },
        ],
      },
      judge_default: GOOD_JUDGE,
    });
    await putSuite(world, "convo", conversationSuite(world, { max_turns: 2 }));
    const run = await waitForRun(world, (await startRun(world, "convo")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "pass", runs: 1, passed: 1 });
    const detail = await repetition(world, String(run.id), 1);
    expect(detail).toMatchObject({
      stop_reason: "final_answer",
      final_answer: "Yes, I am sure.",
      conversation: { stop_reason: "max_turns", user_turns: [userTurn(OPENING), userTurn("Are you sure?")] },
    });
  });

  it("a user model that fails makes the repetition an infrastructure error, not the agent's fail", async () => {
    const world = await invoiceWorld("convo-error");
    await userModel(world, [{ content: OPENING }, { status: 500, message: "the simulator broke" }]);
    await server.script(world.model, {
      conversations: {
        [OPENING]: [{ tool_calls: [{ name: GET, arguments: { invoice_id: "INV-10431" } }] }, { content: APPROVED }],
      },
      judge_default: GOOD_JUDGE,
    });
    await putSuite(world, "convo", conversationSuite(world));
    const run = await waitForRun(world, (await startRun(world, "convo")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "error", runs: 1, passed: 0, failed: 0, errors: 1 });
    const detail = await repetition(world, String(run.id), 1);
    expect(detail).toMatchObject({
      judge: null,
      conversation: { stop_reason: "user_model_error", user_turns: [userTurn(OPENING)] },
      verdict: { pass: false, outcome: "error", cause: "infrastructure_error" },
    });
    const verdict = detail.verdict as { reason: string };
    expect(verdict.reason).toContain('the user model\'s model connection "user-sim" failed');
  });

  it("a user model connection that does not exist makes the repetition an error naming it", async () => {
    const world = await invoiceWorld("convo-missing");
    await server.script(world.model, { default: [{ content: APPROVED }], judge_default: GOOD_JUDGE });
    await putSuite(world, "convo", conversationSuite(world));
    const run = await waitForRun(world, (await startRun(world, "convo")).id);
    expect(run).toMatchObject({ status: "finished", verdict: "error", errors: 1 });
    const detail = await repetition(world, String(run.id), 1);
    expect((detail.verdict as { reason: string }).reason).toContain(
      'the user model\'s connection "user-sim" cannot be used',
    );
  });
});
