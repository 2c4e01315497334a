/**
 * The tool state each call of an attempt saw. Evidence records a state only for calls that changed
 * it (StateChange, core/simulation/evidence.ts), so the state a lookup saw is derived: the `after`
 * of its tool's last change before it, else the `before` of the tool's next change (nothing changed
 * it in between, so that is the starting state), else the attempt's state now, which is then still
 * the starting state; the last only when every call is in hand, since an unseen later call might
 * have changed it.
 */
import type { JsonObject, JsonValue } from "../../../core/json.js";
import type { EvidenceCall, StateChange } from "../../../core/simulation/evidence.js";

export type StateSeen =
  /** The call changed its tool's state: before and after, as recorded. */
  | { kind: "changed"; change: StateChange }
  /** The call changed nothing; `state` is its tool's state when it came, left by call `after_call` or the starting state. */
  | { kind: "unchanged"; tool: string; state: JsonValue; left_by: number | "start" }
  /** Forwarded to a real handler: the simulated state played no part. */
  | { kind: "real"; tool: string | null }
  /** The call reached no pinned operation (an unknown tool name): no tool state belongs to it. */
  | { kind: "no_tool" }
  /** Not derivable from the calls shown (some are missing, and none of them changed this tool). */
  | { kind: "unknown"; tool: string };

/**
 * Per call (by seq) what it saw. `toolOf` maps a call's function name to its tool (state is kept
 * per tool, shared by its operations); `complete` says every call of the attempt is in `calls`.
 */
export function statesSeen(
  calls: readonly EvidenceCall[],
  toolOf: ReadonlyMap<string, string>,
  stateNow: JsonObject,
  complete: boolean,
): Map<number, StateSeen> {
  const ordered = [...calls].sort((a, b) => a.seq - b.seq);
  const changes = new Map<string, Array<{ seq: number; change: StateChange }>>();
  for (const call of ordered) {
    if (!call.state_change) continue;
    const list = changes.get(call.state_change.tool) ?? [];
    list.push({ seq: call.seq, change: call.state_change });
    changes.set(call.state_change.tool, list);
  }
  const seen = new Map<number, StateSeen>();
  for (const call of ordered) {
    if (call.state_change) {
      seen.set(call.seq, { kind: "changed", change: call.state_change });
      continue;
    }
    const tool = toolOf.get(call.tool);
    if (call.source === "real") {
      seen.set(call.seq, { kind: "real", tool: tool ?? null });
      continue;
    }
    if (tool === undefined) {
      seen.set(call.seq, { kind: "no_tool" });
      continue;
    }
    const list = changes.get(tool) ?? [];
    const prior = list.filter((c) => c.seq < call.seq).pop();
    const next = list.find((c) => c.seq > call.seq);
    if (prior) seen.set(call.seq, { kind: "unchanged", tool, state: prior.change.after, left_by: prior.seq });
    else if (next) seen.set(call.seq, { kind: "unchanged", tool, state: next.change.before, left_by: "start" });
    else if (complete && Object.hasOwn(stateNow, tool))
      seen.set(call.seq, { kind: "unchanged", tool, state: stateNow[tool] ?? null, left_by: "start" });
    else seen.set(call.seq, { kind: "unknown", tool });
  }
  return seen;
}
