/**
 * A run's attempt is set up from two parts: the five fields that are its own, and its scenario's
 * operations and tools, which every repetition of the scenario shares, as one piece of JSON text
 * (runs/coordinator/job-setup.ts says why text). This isolate parses each distinct shared text
 * once and hands the same operations and tools to every attempt set up from it.
 *
 * Why: τ-bench retail's shared text is about 53 KB. Parsed per attempt (by its object, and again by
 * the consumer grading its end state), with each operation's cache key built again
 * (shared-operations.ts), it was about 5 % of the isolate's work in bench:conversations at 1 ms per
 * model answer. What is shared is only read: an attempt copies a tool's initial state before its
 * first call (tool-states.ts), and its operations were already one copy per isolate.
 */
import { sha256Hex } from "../../adapters/crypto.js";
import { RecentlyUsed } from "../../core/recently-used.js";
import type { AttemptSetup, PinnedOperation, PinnedTool } from "../../core/simulation/setup.js";
import { sharedOperation } from "./shared-operations.js";

/** The setup's fields that are the attempt's own. */
export type AttemptOwn = Pick<AttemptSetup, "attempt_id" | "simulation_id" | "tenant_id" | "token_hash" | "expires_at">;

interface SharedSetup {
  readonly operations: readonly PinnedOperation[];
  readonly tools: readonly PinnedTool[];
  /** Some definition still has checked examples (a run's are stripped before they are handed out). */
  readonly hasExamples: boolean;
  /** Lowercase hex SHA-256 of the text. */
  readonly hash: string;
}

/** Distinct shared texts kept: a run has one per scenario plan, and τ-bench's 115 tasks share one. */
const MAX_HELD = 64;
const held = new RecentlyUsed<string, SharedSetup>(MAX_HELD);

/** `shared`: `"operations":[...],"tools":[...]`, the setup's other members as JSON text without braces. */
export function sharedSetupOf(shared: string): SharedSetup {
  const known = held.get(shared);
  if (known) return known;
  // SAFETY: the text is written by the Worker's own run coordinator from an AttemptSetup's members.
  const parsed = JSON.parse(`{${shared}}`) as Pick<AttemptSetup, "operations" | "tools">;
  const setup: SharedSetup = {
    operations: parsed.operations.map(sharedOperation),
    tools: parsed.tools,
    hasExamples: parsed.operations.some((op) => (op.definition.examples?.length ?? 0) > 0),
    hash: sha256Hex(shared),
  };
  held.set(shared, setup);
  return setup;
}

/** Just the attempt's own fields of `of` (a JobSetup carries its shared text beside them). */
export function ownFields(of: AttemptOwn): AttemptOwn {
  return {
    attempt_id: of.attempt_id,
    simulation_id: of.simulation_id,
    tenant_id: of.tenant_id,
    token_hash: of.token_hash,
    expires_at: of.expires_at,
  };
}

/** The attempt's setup from its own fields and the shared part (the arrays are its own; what they hold is shared). */
export function setupOf(own: AttemptOwn, shared: SharedSetup): AttemptSetup {
  return { ...ownFields(own), operations: [...shared.operations], tools: [...shared.tools] };
}

/** The whole setup's JSON text, as the attempt stores it: its own fields, then the shared text. */
export function setupTextOf(own: AttemptOwn, shared: string): string {
  return `${JSON.stringify(ownFields(own)).slice(0, -1)},${shared}}`;
}
