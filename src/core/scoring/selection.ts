/**
 * Selection, decided in code before any judge (seed 000, "Why selection is scored in code"): which
 * functions the agent reached for is a policy question with a known right answer, so set
 * arithmetic answers it. A forbidden function fails the repetition and the whole run (a hard fail);
 * `expect: null` passes only when nothing was called; otherwise every expected function must be
 * among the calls.
 */
import type { JsonValue } from "../json.js";
import type { RepetitionCall } from "./calls.js";

export interface ScenarioSelection {
  /** One function, a list that must all be called, or null: no call is correct. */
  expect: string | readonly string[] | null;
  forbid: readonly string[];
}

/** A forbidden function the agent called (or proposed), with what it passed. */
export interface ForbiddenCall {
  function: string;
  arguments: JsonValue;
  call_id: string | null;
  kind: RepetitionCall["kind"];
}

export interface SelectionResult {
  pass: boolean;
  /** One sentence naming the functions involved. */
  reason: string;
  forbidden_calls: ForbiddenCall[];
  /** Expected functions that were never called. */
  missing: string[];
  /** With `expect: null`: the functions called anyway, each once, in order of first call. */
  unexpected: string[];
}

export function expectedFunctions(expect: ScenarioSelection["expect"]): string[] {
  if (expect === null) return [];
  return typeof expect === "string" ? [expect] : [...new Set(expect)];
}

export function scoreSelection(scenario: ScenarioSelection, calls: readonly RepetitionCall[]): SelectionResult {
  const called = [...new Set(calls.map((call) => call.function))];
  const forbid = new Set(scenario.forbid);
  const forbidden_calls: ForbiddenCall[] = calls
    .filter((call) => forbid.has(call.function))
    .map((call) => ({ function: call.function, arguments: call.arguments, call_id: call.call_id, kind: call.kind }));
  const missing = expectedFunctions(scenario.expect).filter((name) => !called.includes(name));
  const unexpected = scenario.expect === null ? called : [];

  const problems: string[] = [];
  if (forbidden_calls.length > 0) problems.push(`forbidden ${forbidden_calls.map(describeCall).join(", ")}`);
  if (missing.length > 0) problems.push(`never called ${missing.join(", ")}`);
  if (unexpected.length > 0) problems.push(`no call was expected but called ${unexpected.join(", ")}`);

  const pass = problems.length === 0;
  return { pass, reason: pass ? passReason(scenario, called) : `Selection failed: ${problems.join("; ")}.`, forbidden_calls, missing, unexpected };
}

function passReason(scenario: ScenarioSelection, called: string[]): string {
  if (scenario.expect === null) return "Selection passed: no call was expected and none was made.";
  const expected = expectedFunctions(scenario.expect);
  if (expected.length === 0) return `Selection passed: nothing was required; called ${called.join(", ") || "nothing"}.`;
  return `Selection passed: called ${expected.join(", ")} as expected${called.length > expected.length ? ` (all calls: ${called.join(", ")})` : ""}.`;
}

/** `place_invoice_on_hold({"invoice_id":"INV-10423"}) (proposed, call c1)`: what a reviewer needs to see. */
export function describeCall(call: ForbiddenCall): string {
  const where = [call.kind === "approval_request" ? "proposed" : "executed", call.call_id === null ? null : `call ${call.call_id}`].filter((part) => part !== null);
  return `${call.function}(${JSON.stringify(call.arguments)}) (${where.join(", ")})`;
}
