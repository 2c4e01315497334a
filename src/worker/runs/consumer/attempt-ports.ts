/**
 * The ports a repetition runs through, over its attempt's Durable Object: every tool call goes
 * through the object's dispatchRequest, with the same validation and evidence as a remote agent's
 * call (simulated delay honoured after the object has answered, as HTTP dispatch does), and the
 * executed calls are read back from the attempt's evidence with their function names.
 */
import type { ToolAnswer, ToolDispatcher } from "../../../core/evals/agent-types.js";
import type { JsonValue, Problem } from "../../../core/json.js";
import { systemClock } from "../../../core/ports.js";
import { executedCallOf, type ExecutedCall } from "../../../core/scoring/calls.js";
import { parseDelayScale, waitSimulatedDelay } from "../../../core/simulation/delay.js";
import { parseEvidenceError, toEvidenceCall } from "../../../core/simulation/evidence.js";
import { attemptStub } from "../../attempts/access.js";
import type { RecordedReply } from "../../attempts/replies.js";
import { settleForward } from "../../attempts/real/forward.js";
import type { Env } from "../../platform/env.js";
import type { RunJob } from "../coordinator/replies.js";

const EVIDENCE_PAGE = 200;

/**
 * Call ids are the model's, made unique per delivery: a repetition delivered again (after a
 * restart, or by the watchdog) runs from the start on the same attempt, and the model's ids must
 * not replay the earlier delivery's answers; the evidence read back starts after what the earlier
 * delivery left (see evidenceSince).
 */
export function attemptDispatcher(env: Env, job: Pick<RunJob, "attempt_id" | "token_hash" | "claim">): ToolDispatcher {
  const stub = attemptStub(env, job.attempt_id);
  const used = new Map<string, number>();
  const scale = parseDelayScale(env.DELAY_SCALE);
  return {
    async call(function_name, args, call_id) {
      const seen = used.get(call_id) ?? 0;
      used.set(call_id, seen + 1);
      const suffix = [job.claim > 1 ? `d${job.claim}` : "", seen > 0 ? `n${seen + 1}` : ""].filter(Boolean).join(".");
      const request = {
        tool: function_name,
        arguments: args,
        call_id: suffix === "" ? call_id : `${call_id}~${suffix}`,
      };
      const reply = await settleForward(env, job.token_hash, await stub.dispatchRequest(job.token_hash, request));
      if (reply.kind === "answer") await waitSimulatedDelay(reply.answer.delay_ms, scale, systemClock);
      return toolAnswerOf(reply);
    },
  };
}

export function toolAnswerOf(reply: RecordedReply): ToolAnswer {
  switch (reply.kind) {
    case "answer": {
      const { answer } = reply;
      if (answer.outcome === "result" && answer.result !== null)
        return { kind: "result", result: parseStored(answer.result) };
      const error = answer.error === null ? null : parseEvidenceError(answer.error);
      if (error?.code === "tool_input_error")
        return { kind: "tool_input_error", message: error.message, details: problemsJson(error.details) };
      return {
        kind: "harness_error",
        message: error ? `${error.kind ?? "harness_error"}: ${error.message}` : "the attempt recorded no answer",
        recorded: true,
      };
    }
    // Refused before anything was recorded: the runner keeps these calls itself (agent-loop.ts).
    case "unusable_arguments":
      return { kind: "refused", message: reply.message, details: problemsJson(reply.problems) };
    case "invalid_request":
      return {
        kind: "refused",
        message: reply.problems.map((p) => `${p.path || "/"}: ${p.message}`).join("; "),
        details: problemsJson(reply.problems),
      };
    case "ambiguous":
      return { kind: "refused", message: reply.message, details: reply.operation_ids };
    case "call_limit":
      return {
        kind: "harness_error",
        message: `the attempt has made the most calls one attempt may make (${reply.limit})`,
        recorded: false,
      };
    case "call_id_conflict":
      return {
        kind: "harness_error",
        message: `call id "${reply.call_id}" was already used by call ${reply.seq} of this attempt`,
        recorded: false,
      };
    case "malformed_json":
      return { kind: "harness_error", message: reply.message, recorded: false };
    case "missing":
      return {
        kind: "harness_error",
        message: "the attempt's object holds no attempt (its storage was lost or retired)",
        recorded: false,
      };
    case "unauthorized":
      return { kind: "harness_error", message: "the attempt refused the run's token", recorded: false };
  }
}

/** The highest evidence seq the attempt holds now: a later delivery reads only the calls after it. */
export async function evidenceMark(env: Env, attemptId: string): Promise<number> {
  const reply = await attemptStub(env, attemptId).snapshot();
  if (reply.kind !== "ok") throw new Error(`attempt ${attemptId} holds no attempt`);
  // Evidence is numbered without gaps from 1, so the count is the last seq.
  return reply.snapshot.calls;
}

/**
 * The attempt's executed calls after `afterSeq`, read from its object: the evidence is written
 * there with each call and reaches D1 later by the object's own flush, so scoring needs no D1 trip.
 */
export async function evidenceSince(env: Env, attemptId: string, afterSeq: number): Promise<ExecutedCall[]> {
  const stub = attemptStub(env, attemptId);
  const calls: ExecutedCall[] = [];
  let after = afterSeq;
  for (;;) {
    const reply = await stub.calls(after, EVIDENCE_PAGE);
    if (reply.kind !== "ok") throw new Error(`attempt ${attemptId} holds no attempt`);
    // The evidence's tool column is the function name the call resolved to.
    for (const row of reply.calls) calls.push(executedCallOf(toEvidenceCall(row), row.tool));
    const last = reply.calls[reply.calls.length - 1];
    if (!last || reply.calls.length < EVIDENCE_PAGE) return calls;
    after = last.seq;
  }
}

/**
 * Once the repetition is recorded its attempt is done: its evidence goes to D1 now and its object
 * leaves memory (otherwise every attempt of a run stayed loaded for about 20 s after its last
 * call: workerd's memory grew with the run's size). Not fatal when it fails: the object's own
 * alarm copies the evidence later, and the runtime unloads it when idle.
 */
export async function releaseAttempt(env: Env, job: Pick<RunJob, "attempt_id" | "token_hash">): Promise<void> {
  try {
    const reply = await attemptStub(env, job.attempt_id).release(job.token_hash);
    if (reply.kind !== "released")
      console.error(
        `eval queue: attempt ${job.attempt_id} was not released (${reply.kind}); its alarm copies the evidence later`,
      );
  } catch (error) {
    console.error(`eval queue: releasing attempt ${job.attempt_id} failed; its alarm copies the evidence later`, error);
  }
}

function parseStored(text: string): JsonValue {
  // SAFETY: results are stored as the JSON text of a rendered JSON value.
  return JSON.parse(text) as JsonValue;
}

function problemsJson(problems: readonly Problem[]): JsonValue {
  return problems.map((problem) => ({ path: problem.path, message: problem.message }));
}
