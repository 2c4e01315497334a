/** @jsxImportSource hono/jsx */
/**
 * An attempt: its evidence as a timeline (each call with the matched rule, variant, arguments,
 * result or error, delay, and the tool's state before and after when the call changed it), then
 * the transcript, when a built-in run produced it (the repetition's record) or an external agent
 * sent one with POST /api/attempts/:id/complete.
 */
import { attemptCompletionOf } from "../../../adapters/d1/simulations.js";
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import type { ApprovalRequest } from "../../../core/scoring/calls.js";
import { isJsonObject, type Problem } from "../../../core/json.js";
import type { EvidenceCall } from "../../../core/simulation/evidence.js";
import type { RepetitionItem } from "../../runs/view.js";
import { Badge, JsonBlock, Notice } from "../components.js";
import { when } from "../format.js";
import type { PageResult } from "../page.js";
import { callDetailText, callKindText, problemsText } from "./call-text.js";
import type { AttemptPageData } from "./data.js";
import { runHref } from "./list-view.js";
import { type StateSeen, statesSeen } from "./state-seen.js";

const OUTCOME_WORDS: Record<EvidenceCall["outcome"], { word: string; tone: "pass" | "warn" | "fail" }> = {
  result: { word: "Result", tone: "pass" },
  tool_input_error: { word: "Tool input error", tone: "warn" },
  harness_error: { word: "Harness error", tone: "fail" },
};

/** A live run's repetition whose attempt no delivery has set up yet: linked from the run, so not "not found". */
export function attemptNotStartedPage(
  attemptId: string,
  repetition: { run_id: string; run_label: string | null; item: RepetitionItem },
): PageResult {
  const rep = `${runHref(repetition.run_id)}#rep-${repetition.item.n}`;
  return {
    title: `Attempt ${attemptId}`,
    body: (
      <div class="runs-page">
        <p class="breadcrumbs">
          <a href="/runs">Runs</a>
          {" › "}
          <a href={runHref(repetition.run_id)}>{`run ${repetition.run_label ?? repetition.run_id}`}</a>
          {" › "}
          <a href={rep}>{`${repetition.item.scenario} repetition ${repetition.item.repetition}`}</a>
        </p>
        <h1>{`Attempt ${attemptId}`}</h1>
        <p class="lede">
          {`Not started yet: scenario ${repetition.item.scenario}, repetition ${repetition.item.repetition} of run ${repetition.run_label ?? repetition.run_id} is waiting for its turn, and its attempt is set up when it starts. Reload this page later, or `}
          <a href={rep}>go back to the run</a>.
        </p>
      </div>
    ),
  };
}

export function attemptPage(data: AttemptPageData, shownLimit: number): PageResult {
  const { attempt, calls, repetition } = data;
  const completion = attemptCompletionOf(attempt);
  const externalTranscript =
    isJsonObject(completion) && Array.isArray(completion.transcript) ? completion.transcript : null;
  // The starting state can be read from the state now only while every call is in hand.
  const seen = statesSeen(calls, data.tool_of, data.state, !data.incomplete && calls.length < shownLimit);
  // Proposed for approval and never executed: not in the evidence, but what the agent did.
  const proposals = repetition?.item.record?.approval_requests ?? [];
  const runEnded = repetition !== null && repetition.run_status !== "queued" && repetition.run_status !== "running";
  const sameAsTimeline = stateShownLast(calls, seen, data.state);
  return {
    title: `Attempt ${attempt.id}`,
    body: (
      <div class="runs-page">
        <p class="breadcrumbs">
          <a href="/runs">Runs</a>
          {repetition ? (
            <>
              {" › "}
              <a href={runHref(repetition.run_id)}>{`run ${repetition.run_label ?? repetition.run_id}`}</a>
              {" › "}
              <a
                href={`${runHref(repetition.run_id)}#rep-${repetition.item.n}`}
              >{`${repetition.item.scenario} repetition ${repetition.item.repetition}`}</a>
            </>
          ) : null}
        </p>
        <h1>{`Attempt ${attempt.id}`}</h1>
        {data.link_problem ? (
          <Notice kind="error">
            <p>{data.link_problem}</p>
          </Notice>
        ) : null}
        <dl class="facts">
          <dt>Status</dt>
          <dd>{statusWords(attempt.status, runEnded, attempt.expires_at)}</dd>
          {repetition ? (
            <>
              <dt>Run</dt>
              <dd>
                <a href={runHref(repetition.run_id)}>
                  {repetition.run_label ? `${repetition.run_label} (${repetition.run_id})` : repetition.run_id}
                </a>
                {`, ${repetition.run_status}`}
              </dd>
              <dt>Repetition</dt>
              <dd>
                <a
                  href={`${runHref(repetition.run_id)}#rep-${repetition.item.n}`}
                >{`scenario ${repetition.item.scenario}, repetition ${repetition.item.repetition} (n = ${repetition.item.n})`}</a>
              </dd>
            </>
          ) : null}
          <dt>Calls</dt>
          <dd>{String(calls.length)}</dd>
          <dt>Simulation</dt>
          <dd class="mono">{attempt.simulation_id}</dd>
          <dt>Lease ends</dt>
          <dd>{when(attempt.expires_at)}</dd>
        </dl>
        {data.incomplete ? (
          <Notice kind="error">
            <p>
              The attempt's latest calls could not be copied to the database just now; this timeline may lack them.
              Reload in a moment.
            </p>
          </Notice>
        ) : null}
        <h2>Evidence timeline</h2>
        {calls.length >= shownLimit ? (
          <p>{`Showing the first ${calls.length} calls (all of them: GET /api/attempts/${attempt.id}/evidence).`}</p>
        ) : null}
        {calls.length === 0 && proposals.length === 0 ? (
          <p>
            {runEnded || attempt.status !== "active"
              ? "No calls: the agent called no tool in this attempt."
              : "No calls yet."}
          </p>
        ) : (
          <ol class="timeline" aria-label="Calls in order">
            {calls.map((call) => (
              <CallItem call={call} seen={seen.get(call.seq)} />
            ))}
            {proposals.map((proposal, i) => (
              <ProposalItem
                proposal={proposal}
                index={i + 1}
                problems={proposalProblems(repetition?.item.record ?? null, proposal)}
              />
            ))}
          </ol>
        )}
        <NotInEvidence record={repetition?.item.record ?? null} />
        <h2>State now</h2>
        {sameAsTimeline ? (
          <p>{`The same as the timeline shows after call ${sameAsTimeline}: ${proposals.length > 0 ? "an approval request changes no state, and " : ""}nothing changed it since.`}</p>
        ) : (
          <>
            <p class="hint">
              Per tool, as the attempt holds it now (once its object is gone: as last copied to the database).
            </p>
            <JsonBlock value={data.state} label="The attempt's state per tool" />
          </>
        )}
        <h2>Transcript</h2>
        {repetition?.item.record?.transcript ? (
          <Transcript record={repetition.item.record} />
        ) : externalTranscript ? (
          <>
            <p>Sent by the agent with its final output.</p>
            <JsonBlock value={externalTranscript} label="The agent's transcript" />
          </>
        ) : (
          <p>
            {repetition
              ? "This repetition has no transcript (it never ran, or has not reported yet)."
              : "No transcript: this attempt is not a run repetition, and its agent sent none with POST /api/attempts/:id/complete."}
          </p>
        )}
      </div>
    ),
  };
}

function CallItem(props: { call: EvidenceCall; seen: StateSeen | undefined }) {
  const call = props.call;
  const outcome = OUTCOME_WORDS[call.outcome];
  const unpinned = props.seen?.kind === "no_tool";
  return (
    <li class={`outcome-${call.outcome}`} id={`call-${call.seq}`}>
      <h3>
        {`${call.seq}. `}
        <code>{call.tool}</code>
        {call.operation_id && call.operation_id !== call.tool ? ` (${call.operation_id})` : ""}{" "}
        <Badge tone={outcome.tone}>{outcome.word}</Badge>
      </h3>
      <dl class="facts">
        <dt>Answered by</dt>
        <dd>{answeredBy(call, unpinned)}</dd>
        <dt>Matched rule</dt>
        <dd>
          {call.rule !== null
            ? ruleWords(call.rule)
            : unpinned
              ? "—"
              : call.source === "real"
                ? "none (the real tool answered)"
                : "none (the variant's default)"}
        </dd>
        <dt>Variant</dt>
        <dd>{call.variant ?? "—"}</dd>
        <dt>Revision</dt>
        <dd>
          {call.revision !== null
            ? String(call.revision)
            : unpinned
              ? "—"
              : call.source === "real"
                ? "none (the real tool)"
                : "inline"}
        </dd>
        <dt>Delay</dt>
        <dd>{`${call.delay_ms} ms`}</dd>
        <dt>At</dt>
        <dd>{call.at}</dd>
        {call.call_id ? (
          <>
            <dt>Call id</dt>
            <dd class="mono">{call.call_id}</dd>
          </>
        ) : null}
      </dl>
      <p>
        <strong>Arguments</strong>
      </p>
      <JsonBlock value={call.arguments} label={`Arguments of call ${call.seq}`} />
      {call.upstream && call.upstream.contract_violations.length > 0 ? (
        <div class="notice notice-error">
          <p>
            <strong>{`The real answer breaks the contract in ${call.upstream.contract_violations.length} ${call.upstream.contract_violations.length === 1 ? "place" : "places"}`}</strong>
            {" (the agent still got it):"}
          </p>
          <ul>
            {call.upstream.contract_violations.map((v) => (
              <li>
                <code>{v.path === "" ? "/" : v.path}</code>
                {`: ${v.message}`}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {call.error ? (
        <>
          <p>
            <strong>{`Error (${call.error.kind ?? call.error.code}): `}</strong>
            {call.error.message}
          </p>
          {call.error.details.length > 0 ? (
            <JsonBlock value={call.error.details} label={`Error details of call ${call.seq}`} />
          ) : null}
        </>
      ) : (
        <>
          <p>
            <strong>Result</strong>
          </p>
          <JsonBlock value={call.result ?? null} label={`Result of call ${call.seq}`} />
        </>
      )}
      <StateOfCall seq={call.seq} seen={props.seen} />
    </li>
  );
}

/**
 * The matched rule as the API numbers it (evidence `rule`, from 0: rules[0] is the variant's first),
 * written as an index so it cannot be read as an ordinal; docs/dashboard.md says so.
 */
function ruleWords(rule: number): string {
  const ordinals = ["first", "second", "third", "fourth", "fifth"];
  return `rules[${rule}] (the variant's ${ordinals[rule] ?? `${rule + 1}th`} rule)`;
}

/**
 * The proposal an agent paused on for approval: not executed, so not in the evidence, but it is
 * what the agent did (an attempt whose only act it was is no "attempt with no calls").
 */
function ProposalItem(props: { proposal: ApprovalRequest; index: number; problems: readonly Problem[] }) {
  const { proposal, index, problems } = props;
  return (
    <li class="proposal" id={`proposal-${index}`}>
      <h3>
        {"Approval request: "}
        <code>{proposal.function}</code> <Badge tone="info">Proposed, not executed</Badge>
      </h3>
      <p>{`The agent proposed this call and paused for approval; no tool ran it, so it has no result and changed no state.${proposal.call_id ? ` Call id ${proposal.call_id}.` : ""}`}</p>
      <p>
        <strong>Arguments</strong>
      </p>
      <JsonBlock value={proposal.arguments} label={`Arguments of approval request ${index}`} />
      {problems.length > 0 ? (
        <p>{`Breaks the function's input schema, so approving it would fail: ${problemsText(problems)}.`}</p>
      ) : null}
    </li>
  );
}

/**
 * The seq of the last call when the timeline already shows every tool's state as it is now (its
 * after, or the state it saw), so "State now" need not print the same JSON again; else null.
 */
function stateShownLast(
  calls: readonly EvidenceCall[],
  seen: ReadonlyMap<number, StateSeen>,
  stateNow: Record<string, unknown>,
): number | null {
  const last = new Map<string, unknown>();
  let lastSeq: number | null = null;
  for (const call of [...calls].sort((a, b) => a.seq - b.seq)) {
    const s = seen.get(call.seq);
    if (s?.kind === "changed") last.set(s.change.tool, s.change.after);
    else if (s?.kind === "unchanged") last.set(s.tool, s.state);
    lastSeq = call.seq;
  }
  const tools = Object.keys(stateNow);
  if (lastSeq === null || tools.length === 0 || tools.length !== last.size) return null;
  return tools.every((tool) => last.has(tool) && JSON.stringify(last.get(tool)) === JSON.stringify(stateNow[tool]))
    ? lastSeq
    : null;
}

/** The status in the API's word, and what it means for the person reading (core/simulation/status.ts). */
function statusWords(status: string, runEnded: boolean, expiresAt: string): string {
  switch (status) {
    case "active":
      // The API says active until the lease ends, but a repetition of an ended run is done: say what it is.
      if (runEnded)
        return `done: its repetition reported and its run has ended (the API's status stays active until the lease ends at ${when(expiresAt)})`;
      return "active: its lease is open, so calls are still answered (a built-in run's agent may be done with it already)";
    case "completed":
      return "completed: the agent reported its final output";
    case "harness_failed":
      return "harness_failed: a call ended in a harness error, so this attempt cannot pass";
    case "expired":
      return "expired: the lease ended before the agent reported its final output";
    default:
      return status;
  }
}

/** Who gave the answer: the real tool (with its status and latency), the mock, or toolproof itself for a call no operation took. */
function answeredBy(call: EvidenceCall, unpinned: boolean): string {
  if (call.upstream)
    return `the real tool: ${call.upstream.status === null ? "no answer" : `HTTP ${call.upstream.status}`} in ${call.upstream.latency_ms} ms`;
  if (unpinned) return "toolproof: no pinned operation has this name";
  return call.source === "real" ? "the real tool" : "the mock";
}

/** The tool's state around the call: before and after when it changed it, else the state it saw, marked unchanged. */
function StateOfCall(props: { seq: number; seen: StateSeen | undefined }) {
  const { seq, seen } = props;
  if (!seen || seen.kind === "no_tool") return <p class="hint">No tool state: the call reached no pinned operation.</p>;
  if (seen.kind === "real")
    return (
      <p class="hint">{`Forwarded to the real tool: the simulated state${seen.tool ? ` of ${seen.tool}` : ""} played no part, and this call did not change it.`}</p>
    );
  if (seen.kind === "unknown")
    return (
      <p class="hint">{`State of ${seen.tool} unchanged by this call; what it was then is not known from the calls shown.`}</p>
    );
  if (seen.kind === "unchanged") {
    return (
      <div class="state-seen">
        <p>
          <strong>{`State of ${seen.tool} this call saw `}</strong>
          <Badge tone="neutral">Unchanged by this call</Badge>
          {seen.left_by === "start" ? " (the starting state)" : ` (as call ${seen.left_by} left it)`}
        </p>
        <JsonBlock value={seen.state} label={`State call ${seq} saw, unchanged by it`} />
      </div>
    );
  }
  return (
    <div class="state-pair">
      <div>
        <p>
          <strong>{`State of ${seen.change.tool} before`}</strong>
        </p>
        <JsonBlock value={seen.change.before} label={`State before call ${seq}`} />
      </div>
      <div>
        <p>
          <strong>{`State of ${seen.change.tool} after`}</strong> <Badge tone="info">Changed by this call</Badge>
        </p>
        <JsonBlock value={seen.change.after} label={`State after call ${seq}`} />
      </div>
    </div>
  );
}

/** A proposal's input schema problems, as scoring recorded them with the repetition's calls. */
function proposalProblems(record: RepetitionRecord | null, proposal: ApprovalRequest): readonly Problem[] {
  const scored = (record?.calls ?? []).find(
    (call) => call.kind === "approval_request" && call.call_id === proposal.call_id,
  );
  return (scored?.kind === "approval_request" ? scored.problems : undefined) ?? proposal.problems ?? [];
}

/**
 * The repetition's calls that never reached the attempt (bad arguments, a function the agent does
 * not have, the run ending first), which neither the evidence nor the proposals show. Scoring
 * counts them all, so the page that explains a repetition lists them too.
 */
function NotInEvidence(props: { record: RepetitionRecord | null }) {
  const calls = (props.record?.calls ?? []).filter((call) => call.kind === "refused");
  if (calls.length === 0) return null;
  return (
    <>
      <h2>Calls that never ran</h2>
      <p class="hint">
        The model asked for these calls, but none reached a tool and the attempt did not record them; scoring counts
        each one.
      </p>
      <ul>
        {calls.map((call) => (
          <li>
            <code>{`${call.function}(${JSON.stringify(call.arguments)})`}</code>
            {`${call.call_id === null ? "" : ` (call ${call.call_id})`}: ${callKindText(call)}`}
            {callDetailText(call) === "—" ? "" : ` (${callDetailText(call)})`}
          </li>
        ))}
      </ul>
    </>
  );
}

function Transcript(props: { record: RepetitionRecord }) {
  const messages = props.record.transcript?.messages ?? [];
  return (
    <ol class="transcript" aria-label="Messages in order">
      {messages.map((m) => (
        <li>
          <span class="role">{m.role}</span>
          {m.role === "tool" ? ` (answer to call ${m.tool_call_id})` : ""}
          {m.content ? <pre>{m.content}</pre> : null}
          {m.role === "assistant" && m.tool_calls && m.tool_calls.length > 0 ? (
            <ul>
              {m.tool_calls.map((t) => (
                <li>
                  <code>{`${t.name}(${t.arguments})`}</code>
                  {` call ${t.id}`}
                </li>
              ))}
            </ul>
          ) : null}
        </li>
      ))}
    </ol>
  );
}
