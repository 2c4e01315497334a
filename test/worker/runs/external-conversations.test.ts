/**
 * External agents in conversation scenarios, through the real routes, the real queue and the run
 * coordinator: the job carries the user model's opening message, the test plays the agent (tool
 * calls over the attempt's dispatch URL, replies POSTed to its turns URL, then the completion),
 * and the user model is the local model server, scripted. Both sides of every turn land in the
 * transcript, the user model's calls are counted apart, a user model that fails makes the
 * repetition an infrastructure error, and a bad or late turn is a 4xx naming the field.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../../src/adapters/crypto.js";
import { AGENT_GREETING, userSystemPrompt } from "../../../src/core/evals/user-prompt.js";
import { runStub } from "../../../src/worker/runs/coordinator/access.js";
import { DEFAULT_REPETITION_TIMEOUT_MS } from "../../../src/worker/runs/coordinator/lifetimes.js";
import type { RunCoordinator } from "../../../src/worker/runs/coordinator/run-coordinator.js";
import { uniqueModel } from "../../support/model-server/in-tests.js";
import { receiver } from "../../support/receiver/in-tests.js";
import { answer, call, invalidAnswer } from "../helpers.js";
import {
  coordinatorOf,
  GET,
  GOOD_JUDGE,
  HOLD,
  invoiceWorld,
  type InvoiceWorld,
  repetition,
  server,
  startRun,
  waitForRun,
  userTurn,
} from "../run-helpers.js";
import { createSimulation } from "../simulation-helpers.js";

const jobs = receiver();

const INSTRUCTION = "You are Dana from Contoso. You want to know whether invoice INV-10431 is approved.";
const OPENING = "Is my invoice approved?";
const WHICH = "Which invoice is it?";
const ID = "It is INV-10431.";
const APPROVED = "INV-10431 from Fabrikam Office is received.";
const STOP = "Great, thanks! ###STOP###";

interface JobData {
  run_id: string;
  scenario_id: string;
  query: string;
  attempt_id: string;
  attempt_token: string;
  dispatch_url: string;
  complete_url: string;
  deadline: string;
  conversation?: { turn: number; message: string; max_turns: number; turns_url: string };
}

/**
 * A tenant with a user model ("user-sim", scripted with `userTurns`), an agent secret and an
 * external-agent suite with one conversation scenario; the agent's jobs go to a receiver of its own.
 */
async function conversationWorld(
  label: string,
  userTurns: unknown[],
  user: Record<string, unknown> = {},
  scenario: Record<string, unknown> = {},
): Promise<{ world: InvoiceWorld; name: string; userSim: string }> {
  const world = await invoiceWorld(label);
  const userSim = uniqueModel(`${label}-user`);
  const put = await call("PUT", "/api/connections/user-sim", {
    key: world.tenant.key,
    body: { base_url: server.openaiBaseUrl, model: userSim, api_key: "sk-test", max_retries: 0, timeout_ms: 10_000 },
  });
  expect(put.status).toBe(201);
  // SAFETY: the test writes turns in the script's own shapes; the server answers 400 to any other.
  await server.script(userSim, { default: userTurns as never });
  await server.script(world.model, { judge_default: GOOD_JUDGE });
  const name = `${label}-${crypto.randomUUID().slice(0, 8)}`;
  await jobs.script(name, []);
  expect((await call("PUT", "/api/agent-secrets/jobs", { key: world.tenant.key, body: {} })).status).toBe(201);
  const saved = await call("PUT", "/api/suites/desk", {
    key: world.tenant.key,
    body: {
      agent: {
        kind: "external",
        endpoint: jobs.urlOf(name),
        secret: "jobs",
        tools: [
          { tool_id: world.toolId, operation_id: "get_invoice", approval_mode: "never_require" },
          { tool_id: world.toolId, operation_id: "place_invoice_on_hold", approval_mode: "always_require" },
        ],
      },
      scenarios: [
        { id: "dana", user: { instruction: INSTRUCTION, ...user }, expect: GET, forbid: [HOLD], ...scenario },
      ],
      runs_per_scenario: 1,
      judge: { connection: world.connection, threshold: 4 },
      user_model: { connection: "user-sim", parameters: { temperature: 0 } },
    },
  });
  expect(saved.status).toBe(201);
  return { world, name, userSim };
}

async function receivedJob(name: string): Promise<JobData> {
  for (;;) {
    const [first] = await jobs.requests(name);
    // SAFETY: the job body is the JSON the consumer built (external/job.ts jobPayload).
    if (first) return (JSON.parse(first.body) as { data: JobData }).data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function post(url: string, token: string, body: unknown): Promise<Response> {
  return exports.default.fetch(
    new Request(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

const turnsUrl = (job: JobData) => job.conversation?.turns_url ?? job.complete_url.replace(/complete$/, "turns");
const reply = (job: JobData, body: unknown, token = job.attempt_token) => post(turnsUrl(job), token, body);

/** The user model's answers for the whole conversation: its opening, the invoice id when asked, then the stop. */
const DANA_USER_ANSWERS = [{ content: OPENING }, { content: ID }, { content: STOP }];

/** Both sides of the whole conversation: the opening, the agent's question, the invoice id, the agent's answer. */
const DANA_TRANSCRIPT = {
  messages: [
    { role: "user", content: OPENING },
    { role: "assistant", content: WHICH },
    { role: "user", content: ID },
    { role: "assistant", content: APPROVED },
  ],
  turns: [],
};

const usageOf = (calls: number) => ({
  calls,
  prompt_tokens: expect.any(Number),
  completion_tokens: expect.any(Number),
  calls_without_usage: 0,
});
const NO_CALLS = { calls: 0, prompt_tokens: 0, completion_tokens: 0, calls_without_usage: 0 };

describe("an external agent in a conversation", () => {
  it("gets the user's opening in its job, converses turn by turn to the stop token, and passes", async () => {
    const { world, name, userSim } = await conversationWorld("xconvo-stop", DANA_USER_ANSWERS);
    const run = await startRun(world, "desk");
    const job = await receivedJob(name);
    const base = `http://toolproof.test/api/attempts/${job.attempt_id}`;
    expect(job).toMatchObject({
      scenario_id: "dana",
      query: OPENING,
      conversation: { turn: 1, message: OPENING, max_turns: 10, turns_url: `${base}/turns` },
    });

    const first = await reply(job, { turn: 1, message: WHICH });
    expect(await answer(first)).toEqual({ status: 200, body: { done: false, turn: 2, message: ID } });
    // The same reply again (an answer lost on the way back) is answered again, and the user model is not asked twice.
    expect(await answer(await reply(job, { turn: 1, message: WHICH }))).toEqual({
      status: 200,
      body: { done: false, turn: 2, message: ID },
    });
    const looked = await post(job.dispatch_url, job.attempt_token, {
      tool: GET,
      arguments: { invoice_id: "INV-10431" },
    });
    expect(looked.status).toBe(200);
    expect(await answer(await reply(job, { turn: 2, message: APPROVED }))).toEqual({
      status: 200,
      body: { done: true, stop_reason: "user_stop" },
    });
    expect((await post(job.complete_url, job.attempt_token, { output: APPROVED })).status).toBe(202);

    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({ status: "finished", verdict: "pass", runs: 1, passed: 1, errors: 0 });
    const detail = await repetition(world, run.id, 1);
    expect(detail).toMatchObject({
      stop_reason: "external_completion",
      final_answer: APPROVED,
      calls: [{ kind: "executed", function: GET, arguments: { invoice_id: "INV-10431" } }],
      verdict: { outcome: "pass", cause: "judge_score" },
    });
    expect(detail.transcript).toEqual(DANA_TRANSCRIPT);
    expect(detail.conversation).toEqual({
      stop_reason: "user_stop",
      user_model: { connection: "user-sim", model: userSim },
      user_turns: [userTurn(OPENING), userTurn(ID), userTurn(STOP)],
      usage: { agent: NO_CALLS, user_model: usageOf(3) },
    });
    expect(ended.conversation_usage).toEqual({ repetitions: 1, agent: NO_CALLS, user_model: usageOf(3) });

    // The user model saw the conversation from its side, each time.
    const asked = await server.log(userSim);
    const prompt = [
      { role: "system", content: userSystemPrompt(INSTRUCTION) },
      { role: "user", content: AGENT_GREETING },
    ];
    expect(asked.map((request) => request.messages)).toEqual([
      prompt,
      [...prompt, { role: "assistant", content: OPENING }, { role: "user", content: WHICH }],
      [
        ...prompt,
        { role: "assistant", content: OPENING },
        { role: "user", content: WHICH },
        { role: "assistant", content: ID },
        { role: "user", content: APPROVED },
      ],
    ]);

    // Turns after the end: the conversation is over, and so is the repetition.
    expect(await answer(await reply(job, { turn: 3, message: "Anything else?" }))).toEqual({
      status: 409,
      body: {
        error: {
          code: "conversation_ended",
          message: "the repetition is over (its run has ended); it takes no more turns",
        },
      },
    });
  }, 30_000);

  it("ends at max_turns once the agent has answered the last message the user may send", async () => {
    const { world, name, userSim } = await conversationWorld(
      "xconvo-turns",
      [{ content: OPENING }, { content: "Are you sure?" }, { content: "Really?" }],
      { max_turns: 2 },
    );
    const run = await startRun(world, "desk");
    const job = await receivedJob(name);
    expect(job.conversation).toMatchObject({ turn: 1, message: OPENING, max_turns: 2 });
    await post(job.dispatch_url, job.attempt_token, { tool: GET, arguments: { invoice_id: "INV-10431" } });
    expect(await answer(await reply(job, { turn: 1, message: APPROVED }))).toEqual({
      status: 200,
      body: { done: false, turn: 2, message: "Are you sure?" },
    });
    expect(await answer(await reply(job, { turn: 2, message: "Yes, I am sure." }))).toEqual({
      status: 200,
      body: { done: true, stop_reason: "max_turns" },
    });
    // Ended: a further reply is refused, naming the turn (the repetition still waits for its completion).
    expect(await answer(await reply(job, { turn: 3, message: "Still there?" }))).toEqual({
      status: 409,
      body: {
        error: {
          code: "conversation_ended",
          message: "/turn: the conversation has ended (max_turns): complete the attempt with POST .../complete",
          details: {
            problems: [
              {
                path: "/turn",
                message: "the conversation has ended (max_turns): complete the attempt with POST .../complete",
              },
            ],
          },
        },
      },
    });
    // No output: the agent's last reply is its answer.
    expect((await post(job.complete_url, job.attempt_token, { output: null })).status).toBe(202);

    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({ status: "finished", verdict: "pass", passed: 1 });
    const detail = await repetition(world, run.id, 1);
    expect(detail).toMatchObject({ final_answer: "Yes, I am sure." });
    expect(detail.conversation).toEqual({
      stop_reason: "max_turns",
      user_model: { connection: "user-sim", model: userSim },
      user_turns: [userTurn(OPENING), userTurn("Are you sure?")],
      usage: { agent: NO_CALLS, user_model: usageOf(2) },
    });
    expect(detail.transcript).toEqual({
      messages: [
        { role: "user", content: OPENING },
        { role: "assistant", content: APPROVED },
        { role: "user", content: "Are you sure?" },
        { role: "assistant", content: "Yes, I am sure." },
      ],
      turns: [],
    });
    expect(await server.log(userSim)).toHaveLength(2);
  }, 30_000);

  it("a user model that fails ends the conversation and makes the repetition an error, never the agent's fail", async () => {
    const { world, name } = await conversationWorld("xconvo-error", [
      { content: OPENING },
      { status: 500, message: "the simulator broke" },
    ]);
    const run = await startRun(world, "desk");
    const job = await receivedJob(name);
    await post(job.dispatch_url, job.attempt_token, { tool: GET, arguments: { invoice_id: "INV-10431" } });
    expect(await answer(await reply(job, { turn: 1, message: APPROVED }))).toEqual({
      status: 200,
      body: { done: true, stop_reason: "user_model_error" },
    });
    // No completion is needed: the repetition is scored at once.
    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({ status: "finished", verdict: "error", runs: 1, passed: 0, failed: 0, errors: 1 });
    // A further reply is told why the conversation is over, not just that it is.
    expect(await answer(await reply(job, { turn: 2, message: APPROVED }))).toEqual({
      status: 409,
      body: {
        error: {
          code: "conversation_ended",
          message: `the simulated user's model failed (connection "user-sim": the endpoint failed (500): the simulator broke), so the conversation is over and the repetition is an infrastructure error, not the agent's fail; it takes no more turns`,
        },
      },
    });
    const detail = await repetition(world, run.id, 1);
    expect(detail).toMatchObject({
      judge: null,
      stop_reason: null,
      final_answer: APPROVED,
      verdict: { pass: false, outcome: "error", cause: "infrastructure_error" },
      conversation: { stop_reason: "user_model_error", user_turns: [userTurn(OPENING)] },
    });
    expect((detail.verdict as { reason: string }).reason).toContain(
      'the user model\'s model connection "user-sim" failed',
    );
    expect(detail.transcript).toEqual({
      messages: [
        { role: "user", content: OPENING },
        { role: "assistant", content: APPROVED },
      ],
      turns: [],
    });
  }, 30_000);

  it("a user model that fails on its opening sends no job, and the repetition is an error", async () => {
    const { world, name } = await conversationWorld("xconvo-opening", [{ status: 500, message: "down" }]);
    const run = await startRun(world, "desk");
    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({ status: "finished", verdict: "error", errors: 1 });
    const detail = await repetition(world, run.id, 1);
    expect(detail).toMatchObject({
      stop_reason: null,
      calls: [],
      verdict: { outcome: "error", cause: "infrastructure_error" },
      conversation: { stop_reason: "user_model_error", user_turns: [] },
      transcript: { messages: [], turns: [] },
    });
    expect(await jobs.requests(name)).toEqual([]);
  }, 30_000);

  it("is graded by its end state and by the outputs its replies state, as a built-in conversation is", async () => {
    const { world, name } = await conversationWorld(
      "xconvo-graded",
      [{ content: OPENING }, { content: STOP }],
      {},
      {
        end_state: { assert: [{ path: "/invoices/invoices/INV-10431/status", equals: "received" }] },
        outputs: ["Fabrikam Office"],
      },
    );
    const run = await startRun(world, "desk");
    const job = await receivedJob(name);
    await post(job.dispatch_url, job.attempt_token, { tool: GET, arguments: { invoice_id: "INV-10431" } });
    // The output is stated in a reply, not in the completion's output.
    expect(await answer(await reply(job, { turn: 1, message: APPROVED }))).toEqual({
      status: 200,
      body: { done: true, stop_reason: "user_stop" },
    });
    expect((await post(job.complete_url, job.attempt_token, { output: "Glad to help." })).status).toBe(202);
    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({ status: "finished", verdict: "pass", passed: 1 });
    const detail = await repetition(world, run.id, 1);
    expect(detail).toMatchObject({
      judge: null,
      final_answer: "Glad to help.",
      verdict: {
        outcome: "pass",
        cause: "end_state",
        reason: "End state matches every assertion. Every required output is stated (1).",
      },
      end_state: { pass: true, mismatches: [], changes: [] },
      outputs: { pass: true, missing: [] },
    });
  }, 30_000);

  it("fails by its end state, naming the differing path, when the agent converses but never makes the write", async () => {
    const status = "/invoices/invoices/INV-10431/status";
    const { world, name } = await conversationWorld(
      "xconvo-graded-fail",
      [{ content: OPENING }, { content: STOP }],
      {},
      { end_state: { assert: [{ path: status, equals: "on_hold" }] }, outputs: ["Fabrikam Office"] },
    );
    const run = await startRun(world, "desk");
    const job = await receivedJob(name);
    await post(job.dispatch_url, job.attempt_token, { tool: GET, arguments: { invoice_id: "INV-10431" } });
    expect(await answer(await reply(job, { turn: 1, message: APPROVED }))).toEqual({
      status: 200,
      body: { done: true, stop_reason: "user_stop" },
    });
    expect((await post(job.complete_url, job.attempt_token, { output: null })).status).toBe(202);
    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({ status: "finished", verdict: "fail", failed: 1, errors: 0 });
    const detail = await repetition(world, run.id, 1);
    expect(detail).toMatchObject({
      final_answer: APPROVED,
      verdict: {
        pass: false,
        outcome: "fail",
        cause: "end_state",
        reason: `End state differs at 1 path: ${status}: expected "on_hold", got "received". Every required output is stated (1).`,
      },
      end_state: {
        pass: false,
        mismatches: [{ path: status, expected: "on_hold", actual: "received" }],
        mismatch_count: 1,
        changes: [],
      },
      outputs: { pass: true, missing: [] },
      conversation: { stop_reason: "user_stop" },
    });
  }, 30_000);

  it("refuses bad and out-of-order turns with a 4xx naming the field", async () => {
    const { world, name } = await conversationWorld("xconvo-bad", [{ content: OPENING }, { content: ID }]);
    const run = await startRun(world, "desk");
    const job = await receivedJob(name);

    expect(await answer(await reply(job, {}))).toEqual(
      invalidAnswer(
        {
          path: "/turn",
          message: "required: the number of the user message this replies to (1 for the job's conversation.message)",
        },
        { path: "/message", message: "required: the agent's reply to the user, as text" },
      ),
    );
    expect(await answer(await reply(job, { turn: 0, message: "" }))).toEqual(
      invalidAnswer(
        { path: "/turn", message: "expected 1 or more: user messages are numbered from 1" },
        { path: "/message", message: "expected the reply's text (an empty reply tells the user nothing)" },
      ),
    );
    expect(await answer(await reply(job, { turn: 1.5, message: "x", text: "y" }))).toMatchObject({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          details: {
            problems: [{ path: "/turn", message: "expected a whole number" }, { path: "/text" }],
          },
        },
      },
    });
    expect(await answer(await reply(job, "{not json"))).toEqual({
      status: 400,
      body: {
        error: { code: "malformed_json", message: expect.stringMatching(/^the request body is not valid JSON: /) },
      },
    });
    // A reply to a message never sent.
    expect(await answer(await reply(job, { turn: 2, message: APPROVED }))).toEqual({
      status: 409,
      body: {
        error: {
          code: "turn_out_of_order",
          message: "/turn: expected the reply to user message 1 (the last one sent), got 2",
          details: {
            problems: [{ path: "/turn", message: "expected the reply to user message 1 (the last one sent), got 2" }],
          },
        },
      },
    });
    // Another token, or an attempt no job was sent for.
    expect((await reply(job, { turn: 1, message: WHICH }, `tpa_${"A".repeat(43)}`)).status).toBe(401);
    // Without the token, a bad body answers 401 too: the token is checked before the body is read.
    for (const body of [{}, { turn: 0, message: "" }, "{not json"])
      expect(await answer(await reply(job, body, `tpa_${"A".repeat(43)}`))).toMatchObject({
        status: 401,
        body: { error: { message: "this token does not grant access to this attempt" } },
      });
    const simulation = await createSimulation(world.tenant, {
      tools: [{ tool_id: world.toolId, operation_id: "get_invoice" }],
    });
    const other = simulation.attempts[0];
    if (!other) throw new Error("no attempt");
    const elsewhere = await post(`http://toolproof.test/api/attempts/${other.id}/turns`, other.token, {
      turn: 1,
      message: "x",
    });
    expect(await answer(elsewhere)).toEqual({
      status: 409,
      body: {
        error: {
          code: "not_external_repetition",
          message: `attempt ${other.id} is not an external agent's conversation (no job was sent for it): only a run's conversation scenario takes turns`,
        },
      },
    });

    // Taken once: another text for the same reply is refused, naming the message.
    expect((await reply(job, { turn: 1, message: WHICH })).status).toBe(200);
    expect(await answer(await reply(job, { turn: 1, message: "Something else" }))).toEqual({
      status: 409,
      body: {
        error: {
          code: "turn_out_of_order",
          message:
            "/message: the reply to user message 1 was taken already, with another text: a reply is posted once (the same text again is answered again)",
          details: {
            problems: [
              {
                path: "/message",
                message:
                  "the reply to user message 1 was taken already, with another text: a reply is posted once (the same text again is answered again)",
              },
            ],
          },
        },
      },
    });
    // After the completion, no more turns.
    expect((await post(job.complete_url, job.attempt_token, { output: "Bye." })).status).toBe(202);
    expect(await answer(await reply(job, { turn: 2, message: APPROVED }))).toEqual({
      status: 409,
      body: { error: { code: "conversation_ended", message: expect.stringMatching(/takes no more turns$/) } },
    });
    await waitForRun(world, run.id);
  }, 30_000);
  it("serialises a reply's turn: a retry while the user model answers it is told to wait, then gets that answer", async () => {
    const { world, name, userSim } = await conversationWorld("xconvo-progress", [{ content: OPENING }]);
    const run = await startRun(world, "desk");
    const job = await receivedJob(name);
    // An earlier request for reply 1, still waiting on the user model: taken through the coordinator itself.
    const coordinator = runStub(env, run.id);
    const taken = await coordinator.takeTurn(1, sha256Hex(job.attempt_token), 1, WHICH);
    if (taken.kind !== "ask") throw new Error(`the reply was not taken: ${taken.kind}`);
    expect(taken.conversation).toEqual({
      user_model: { connection: "user-sim", model: userSim },
      user_turns: [userTurn(OPENING)],
      user_messages: [OPENING],
      replies: [WHICH],
      end: null,
    });

    const message =
      "the user's answer to reply 1 is being made for an earlier request: post the same reply again shortly to get it";
    expect(await answer(await reply(job, { turn: 1, message: WHICH }))).toEqual({
      status: 409,
      body: { error: { code: "turn_in_progress", message } },
    });
    const notSent = "user message 2 has not been sent: the user's answer to reply 1 is still being made";
    expect(await answer(await reply(job, { turn: 2, message: APPROVED }))).toEqual({
      status: 409,
      body: {
        error: {
          code: "turn_out_of_order",
          message: `/turn: ${notSent}`,
          details: { problems: [{ path: "/turn", message: notSent }] },
        },
      },
    });

    // The earlier request stores the user's answer; the retry gets it, and the user model was asked once (its opening).
    const step = {
      kind: "message" as const,
      text: ID,
      turn: { content: ID, latency_ms: 1, usage: null, finish_reason: "stop" },
    };
    const next = { done: false, turn: 2, message: ID };
    expect(await coordinator.answerTurn(1, 1, taken.asked_at, step)).toEqual({
      kind: "ok",
      answer: next,
      score: false,
    });
    expect(await answer(await reply(job, { turn: 1, message: WHICH }))).toEqual({ status: 200, body: next });
    // A late answer from a request that no longer holds the turn changes nothing.
    expect(await coordinator.answerTurn(1, 1, taken.asked_at, { kind: "error", error: "late" })).toEqual({
      kind: "stale",
      answer: next,
    });
    expect(await server.log(userSim)).toHaveLength(1);

    expect((await post(job.complete_url, job.attempt_token, { output: "Bye." })).status).toBe(202);
    await waitForRun(world, run.id);
  }, 30_000);

  it("a reply after the job's deadline is refused as repetition_timed_out, and the repetition fails as timed_out", async () => {
    const { world, name, userSim } = await conversationWorld("xconvo-late", [{ content: OPENING }]);
    const run = await startRun(world, "desk");
    const job = await receivedJob(name);
    // The deadline moved into the past in the coordinator's own storage: as if the agent took its
    // whole timeout over the reply, without the test waiting it out or racing the watchdog's alarm.
    const deadline = Date.now() - 1_000;
    await runInDurableObject<RunCoordinator, void>(coordinatorOf(run.id), (_instance, state) => {
      state.storage.sql.exec("UPDATE repetitions SET job_deadline = ? WHERE seq = 1", deadline);
    });
    const at = new Date(deadline).toISOString();

    expect(await answer(await reply(job, { turn: 1, message: WHICH }))).toEqual({
      status: 409,
      body: {
        error: {
          code: "repetition_timed_out",
          message: `the job's deadline (${at}) has passed; the repetition fails as timed_out`,
        },
      },
    });
    // The refused reply times the repetition out at once: a delivery scores what the agent did.
    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({ status: "finished", verdict: "fail", runs: 1, passed: 0, failed: 1, errors: 0 });
    expect(await repetition(world, run.id, 1)).toMatchObject({
      verdict: {
        outcome: "fail",
        cause: "timed_out",
        reason: `Timed out: the agent did not complete its attempt by its deadline (${at})`,
      },
    });
    expect(await answer(await reply(job, { turn: 1, message: WHICH }))).toEqual({
      status: 409,
      body: {
        error: {
          code: "conversation_ended",
          message: "the repetition is over (its run has ended); it takes no more turns",
        },
      },
    });
    // The user model was asked for its opening only: the late reply never reached it.
    expect(await server.log(userSim)).toHaveLength(1);
  }, 30_000);

  it("a reply whose earlier request was lost (its mark older than the repetition timeout) is taken over and answered", async () => {
    const { world, name, userSim } = await conversationWorld("xconvo-lost", DANA_USER_ANSWERS);
    const run = await startRun(world, "desk");
    const job = await receivedJob(name);
    const coordinator = runStub(env, run.id);
    // A request took reply 1 and then died before the user model answered it.
    const lost = await coordinator.takeTurn(1, sha256Hex(job.attempt_token), 1, WHICH);
    if (lost.kind !== "ask") throw new Error(`the reply was not taken: ${lost.kind}`);
    expect((await reply(job, { turn: 1, message: WHICH })).status).toBe(409);
    // Its mark ages past the repetition timeout (EVAL_REPETITION_TIMEOUT_MS is not set in the tests).
    await runInDurableObject<RunCoordinator, void>(coordinatorOf(run.id), (_instance, state) => {
      state.storage.sql.exec(
        "UPDATE conversations SET asking_at = ? WHERE seq = 1",
        Date.now() - DEFAULT_REPETITION_TIMEOUT_MS - 1_000,
      );
    });

    const next = { done: false, turn: 2, message: ID };
    expect(await answer(await reply(job, { turn: 1, message: WHICH }))).toEqual({ status: 200, body: next });
    // The lost request's answer, should it come after all, changes nothing.
    const late = {
      kind: "message" as const,
      text: "late",
      turn: { content: "late", latency_ms: 1, usage: null, finish_reason: "stop" },
    };
    expect(await coordinator.answerTurn(1, 1, lost.asked_at, late)).toEqual({ kind: "stale", answer: next });
    expect(await answer(await reply(job, { turn: 2, message: APPROVED }))).toEqual({
      status: 200,
      body: { done: true, stop_reason: "user_stop" },
    });
    expect((await post(job.complete_url, job.attempt_token, { output: APPROVED })).status).toBe(202);

    const ended = await waitForRun(world, run.id);
    expect(ended).toMatchObject({ status: "finished", runs: 1, errors: 0 });
    const detail = await repetition(world, run.id, 1);
    expect(detail.transcript).toEqual(DANA_TRANSCRIPT);
    // Asked once per user message: the opening, the retry that took reply 1 over, and reply 2.
    expect(await server.log(userSim)).toHaveLength(3);
  }, 30_000);
});
