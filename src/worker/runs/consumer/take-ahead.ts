/**
 * Taking repetitions ahead of their messages: once a batch's own messages have all started, a slot
 * that frees up asks the coordinator of a run the batch came from for that run's next repetition
 * no delivery has claimed yet (RunCoordinator.claimNext), instead of sitting idle until the
 * batch's slowest repetition ends.
 *
 * Why: a queue hands a consumer invocation one batch, and the batch is done only when its last
 * message is; locally Miniflare delivers the next batch only then. Repetitions take very different
 * times (a conversation of 3 model answers beside one of 12), so near the end of every batch most
 * slots wait for a few long ones: τ-bench's 345 conversations in batches of 100 spent about a
 * quarter of their wall time so, with no work of toolproof's own counted. Taking ahead, one batch
 * keeps every slot busy until its runs have nothing left to start.
 *
 * Nothing is lost or run twice: the claim is the coordinator's, as for a message. The repetition's
 * own message, when it comes, finds it busy or recorded and is acknowledged. A repetition taken
 * ahead that fails has no message of its own to retry, so one is sent (its message may already
 * have been acknowledged as busy); if even that send fails, the watchdog sends it again.
 *
 * Bounded: only runs this batch's messages named, only for EVAL_TAKE_AHEAD_SECONDS after the batch
 * started (default 300, well inside a consumer invocation's 15 minutes of wall time; 0 turns it
 * off), and never from the dead-letter queue.
 */
import type { Clock } from "../../../core/ports.js";
import type { Env } from "../../platform/env.js";
import { runStub } from "../coordinator/access.js";
import type { NextClaimReply, RunJob } from "../coordinator/replies.js";

const DEFAULT_TAKE_AHEAD_SECONDS = 300;

/** How long a batch keeps taking repetitions ahead, in milliseconds (0: never). */
export function takeAheadWindowMs(raw: string | undefined): number {
  const value = raw === undefined || raw.trim() === "" ? Number.NaN : Number(raw);
  return (Number.isInteger(value) && value >= 0 ? value : DEFAULT_TAKE_AHEAD_SECONDS) * 1000;
}

/** A repetition claimed ahead of its message. */
export interface TakenJob {
  run_id: string;
  job: RunJob;
}

/**
 * The source a batch's free slots draw from once its messages have all started: the next
 * unclaimed repetition of the first of `runIds` that still has one, or null when none has (or
 * the window has closed). A run that answers anything but a job is not asked again.
 */
export function takeAheadSource(
  env: Env,
  runIds: readonly string[],
  clock: Clock,
  windowMs: number,
): () => Promise<TakenJob | null> {
  const until = clock.now() + windowMs;
  const open = [...runIds];
  return async () => {
    while (open.length > 0 && clock.now() < until) {
      // SAFETY: open is not empty (the loop condition).
      const runId = open[0] as string;
      let reply: NextClaimReply;
      try {
        reply = await runStub(env, runId).claimNext();
      } catch (error) {
        // Only an optimisation: the run's messages still carry every repetition.
        console.error(`eval queue: taking ahead from run ${runId} failed; its messages carry on`, error);
        reply = { kind: "none" };
      }
      if (reply.kind === "job") return { run_id: runId, job: reply.job };
      // Another slot may have dropped it already.
      const at = open.indexOf(runId);
      if (at >= 0) open.splice(at, 1);
    }
    return null;
  };
}
