/**
 * The user model of a conversation scenario's repetition, as a ready client: the suite's
 * `user_model` connection, held to its max_concurrency like the agent's and the judge's, and with
 * its own answer budget (its answers are kept in the record beside the agent's). A connection that
 * cannot be used is reported, and the consumer records the repetition as an infrastructure error
 * naming it: the user model is the harness's, never the agent's.
 */
import type { RepetitionInputsForRun } from "../../../core/evals/agent-types.js";
import type { ModelClient } from "../../../core/ports.js";
import type { RunJob } from "../coordinator/replies.js";
import { answerBudget, MAX_REPETITION_ANSWER_BYTES } from "./answer-budget.js";
import { limitedClient } from "./concurrency.js";

/** The tenant's stored connection by name, opened (the consumer's resolver, bound to the job's tenant). */
export type ConnectionLookup = (
  name: string,
) => Promise<
  | { ok: true; client: ModelClient; connection: { name: string; model: string; max_concurrency: number } }
  | { ok: false; message: string }
>;

type UserModelFound =
  | { ok: true; user_model: NonNullable<RepetitionInputsForRun["user_model"]> | null }
  | { ok: false; message: string };

/** Null when the repetition's scenario is not a conversation (no user model is opened for it). */
export async function resolveUserModel(
  job: Pick<RunJob, "scenario" | "user_model" | "tenant_id">,
  lookup: ConnectionLookup,
  /** Answer bytes the repetition's user model has used already (an external agent's conversation is asked turn by turn). */
  spent = 0,
): Promise<UserModelFound> {
  if (job.scenario.user === undefined) return { ok: true, user_model: null };
  const spec = job.user_model;
  if (spec === undefined)
    return { ok: false, message: "the scenario is a conversation, but the run was started without a user model" };
  const found = await lookup(spec.connection);
  if (!found.ok)
    return { ok: false, message: `the user model's connection "${spec.connection}" cannot be used: ${found.message}` };
  const { connection } = found;
  return {
    ok: true,
    user_model: {
      client: answerBudget(
        limitedClient(found.client, job.tenant_id, connection.name, connection.max_concurrency),
        connection.name,
        MAX_REPETITION_ANSWER_BYTES - spent,
      ),
      connection: spec.connection,
      model: connection.model,
      parameters: spec.parameters,
      max_turns: spec.max_turns,
    },
  };
}
