/**
 * The call algorithm (contract steps 1-7, without the waiting): pure, synchronous and total.
 * Synchronous on purpose: the attempt object does read-render-write without an await in
 * between, so no other request can slip in and lose an update.
 */
import type { WrittenRecords } from "../datasets/records.js";
import type { JsonObject, JsonValue, Problem } from "../json.js";
import { isJsonObject, jsonEqual } from "../json.js";
import type { JsonSchema, SchemaValidator } from "../ports.js";
import { compileDefinition, type CompiledDelay, type CompiledRule, type CompiledSetState } from "./compile.js";
import { allHold } from "./conditions.js";
import { Meter } from "./cel.js";
import { render, RenderFailure, type RenderScope } from "./expressions.js";
import { resolvePath, setPath } from "./paths.js";
import { candidateRules } from "./rule-index.js";
import type { CallOutcome, HarnessErrorKind, MockDefinition } from "./types.js";
import { copyJson, describe } from "./values.js";
import { applyWrites, WorkingState, type CompiledWrite } from "./writes.js";

export interface CallRequest {
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  definition: MockDefinition;
  /** The variant the simulation selected for this operation; the definition's default_variant when absent. */
  variant?: string;
  args: unknown;
  /** The pre-call state. Never mutated: a changed state comes back as a new object. */
  state: JsonObject;
  validator: SchemaValidator;
  /**
   * Filled, when given, with the collections a version-2 call copied and the records it wrote
   * into them, so the caller's record diff (datasets/records.ts) can skip the rest.
   */
  written?: WrittenRecords;
}

/** The state an attempt starts from: a fresh deep copy of initial_state ({} when absent). */
export function initialState(definition: MockDefinition): JsonObject {
  const initial: unknown = definition.initial_state;
  return isJsonObject(initial) ? copyJson(initial) : {};
}

function harness(
  kind: HarnessErrorKind,
  message: string,
  details: Problem[],
  variant: string,
  rule: number | null,
): CallOutcome {
  return { kind: "harness_error", harness_kind: kind, message, details, variant, rule };
}

function summary(problems: readonly Problem[]): string {
  return problems.map((p) => `${p.path || "/"}: ${p.message}`).join("; ");
}

function delayOf(delay: CompiledDelay): number | undefined {
  if (!delay.ok) {
    const message = "delay_ms must be an integer from 0 to 30000";
    throw new RenderFailure("bad_literal", message, [{ path: delay.at, message }]);
  }
  return delay.ms;
}

/** Filled by runCall for callers that need to know which step refused a call (example checks). */
export interface CallTrace {
  /** True when the arguments failed the input schema (step 1), as opposed to an expression. */
  inputSchemaFailed: boolean;
}

/**
 * Runs one call. Never throws: every failure is an outcome, and an unexpected exception (a bug,
 * or a validator that throws) becomes a harness error of kind "internal".
 *
 * @example
 * const outcome = executeCall({ input_schema, output_schema, definition, args: { id: "P-1" }, state, validator });
 * if (outcome.kind === "result" && outcome.state_changed) saveState(outcome.state);
 */
export function executeCall(request: CallRequest): CallOutcome {
  return runCall(request, null);
}

/** executeCall, optionally reporting which step refused the call through `trace`. */
export function runCall(request: CallRequest, trace: CallTrace | null): CallOutcome {
  let variantName = "";
  let ruleIndex: number | null = null;
  try {
    const definition = request.definition;
    const requested: unknown = request.variant ?? definition.default_variant;
    variantName = typeof requested === "string" ? requested : "";
    const compiled = compileDefinition(definition);
    const variant = compiled.variants.get(variantName);
    if (variant === undefined) {
      const message = `the definition has no variant named ${describe(requested)}`;
      return harness("unknown_variant", message, [{ path: "/variants", message }], variantName, null);
    }

    // Step 1: the arguments. A failure here is the agent's to fix; the state is not read.
    const args = request.args;
    const inputProblems = request.validator.validate(request.input_schema, args);
    if (inputProblems.length > 0) {
      if (trace) trace.inputSchemaFailed = true;
      return {
        kind: "tool_input_error",
        message: `the arguments do not match the input schema: ${summary(inputProblems)}`,
        details: inputProblems,
        variant: variantName,
        rule: null,
      };
    }
    if (!isJsonObject(args)) {
      if (trace) trace.inputSchemaFailed = true;
      const message = `the arguments must be a JSON object; got ${describe(args)}`;
      return { kind: "tool_input_error", message, details: [{ path: "", message }], variant: variantName, rule: null };
    }

    // Steps 2-4: the first rule whose conditions all hold on the pre-call state; result,
    // set_state and delay_ms each fall back to the variant's on their own.
    const state = request.state;
    // Version 2: expressions see the pre-call state as `before`, and the call has a cost budget.
    const scope: RenderScope | null = compiled.version === 2 ? { before: state, locals: {}, meter: new Meter() } : null;
    let resultTemplate = variant.result;
    let setState: CompiledSetState = variant.setState;
    let writes: readonly CompiledWrite[] = variant.writes;
    let delay = delayOf(variant.delay);
    const rules = variant.rules;
    const candidates = variant.ruleIndex === null ? null : candidateRules(variant.ruleIndex, args, state);
    const count = candidates === null ? rules.length : candidates.length;
    for (let c = 0; c < count; c++) {
      // SAFETY: c < count, the length of whichever list is walked; candidate lists only hold
      // indices below rules.length, so both lookups hit an element.
      const index = candidates === null ? c : (candidates[c] as number);
      const rule = rules[index] as CompiledRule;
      if (allHold(rule.when, args, state, scope)) {
        ruleIndex = index;
        if (rule.result !== undefined) resultTemplate = rule.result;
        if (rule.setState !== undefined) setState = rule.setState;
        if (rule.writes !== undefined) writes = rule.writes;
        const ruleDelay = delayOf(rule.delay);
        if (ruleDelay !== undefined) delay = ruleDelay;
        break;
      }
    }

    if (scope !== null) {
      // Version 2, steps 5-7: the writes in order, each seeing the state the ones before it
      // left; then the result, rendered against the state after the writes.
      const work = new WorkingState(state, request.written ?? null);
      applyWrites(writes, args, work, scope);
      const result = render(resultTemplate, args, work.root, scope);
      const outputProblems = request.validator.validate(request.output_schema, result);
      if (outputProblems.length > 0) {
        const message = `the rendered result does not match the output schema: ${summary(outputProblems)}`;
        return harness("output_schema", message, outputProblems, variantName, ruleIndex);
      }
      return {
        kind: "result",
        result,
        state: work.changed ? work.root : state,
        state_changed: work.changed,
        variant: variantName,
        rule: ruleIndex,
        delay_ms: delay ?? 0,
      };
    }

    // Step 5: render everything against the same pre-call state before anything is written.
    const result = render(resultTemplate, args, state);
    const newValues: JsonValue[] = [];
    for (const entry of setState) newValues.push(render(entry.template, args, state));

    // Step 6: the result must be what the operation promises; if not, the fixture is wrong.
    const outputProblems = request.validator.validate(request.output_schema, result);
    if (outputProblems.length > 0) {
      const message = `the rendered result does not match the output schema: ${summary(outputProblems)}`;
      return harness("output_schema", message, outputProblems, variantName, ruleIndex);
    }

    // Step 7: apply set_state to a copy, and copy only when some value actually changes.
    let nextState = state;
    let changed = false;
    for (let i = 0; i < setState.length && !changed; i++) {
      const current = resolvePath(state, setState[i]?.segments ?? []);
      changed = current === undefined || !jsonEqual(current, newValues[i]);
    }
    if (changed) {
      nextState = copyJson(state);
      let i = 0;
      for (const entry of setState) {
        // SAFETY: newValues was filled from setState in the same order, one value per entry.
        const problem = setPath(nextState, entry.segments, newValues[i++] as JsonValue);
        if (problem !== null) {
          return harness("missing_reference", problem, [{ path: entry.at, message: problem }], variantName, ruleIndex);
        }
      }
    }
    return {
      kind: "result",
      result,
      state: nextState,
      state_changed: changed,
      variant: variantName,
      rule: ruleIndex,
      delay_ms: delay ?? 0,
    };
  } catch (error) {
    if (error instanceof RenderFailure) {
      if (error.kind === "tool_input_error") {
        return {
          kind: "tool_input_error",
          message: error.message,
          details: error.details,
          variant: variantName,
          rule: ruleIndex,
        };
      }
      return harness(error.kind, error.message, error.details, variantName, ruleIndex);
    }
    const message = `internal error while running the call: ${error instanceof Error ? error.message : describe(error)}`;
    return harness("internal", message, [], variantName, ruleIndex);
  }
}
