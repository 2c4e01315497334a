/**
 * A call of a real operation, decided inside the attempt object: arguments that break the input
 * schema are the agent's tool input error, as for a mock; arguments that keep it go out as a
 * forward (nothing is recorded yet); an answer that came back is checked against the output schema
 * and becomes the call's result. A real answer that breaks the contract is still the agent's
 * answer: the evidence records the violation.
 */
import type { CallOutcome } from "../../../core/contract/types.js";
import type { DispatchRequest } from "../../../core/simulation/dispatch-request.js";
import type { UpstreamRecord } from "../../../core/simulation/evidence.js";
import type { PinnedOperation } from "../../../core/simulation/setup.js";
import { pathArgumentProblems } from "../../../core/tools/upstream.js";
import { schemaValidator } from "../../platform/services.js";
import { harnessOutcome } from "../call-outcomes.js";
import type { ForwardRequest, UpstreamAnswer } from "../replies.js";

type RealOutcome =
  | { kind: "forward"; forward: ForwardRequest }
  | { kind: "outcome"; outcome: CallOutcome; upstream: UpstreamRecord | null };

export function realOutcome(
  attempt: { attempt_id: string; tenant_id: string },
  operation: PinnedOperation,
  request: DispatchRequest,
  upstream: UpstreamAnswer | undefined,
): RealOutcome {
  const validator = schemaValidator();
  const inputProblems = validator.validate(operation.input_schema, request.arguments);
  if (inputProblems.length > 0) {
    const message = `the arguments do not match the input schema of ${operation.function_name}: ${inputProblems.map((p) => `${p.path || "/"}: ${p.message}`).join("; ")}`;
    return {
      kind: "outcome",
      outcome: { kind: "tool_input_error", message, details: inputProblems, variant: operation.variant, rule: null },
      upstream: null,
    };
  }
  const binding = operation.real;
  const pathProblems = pathArgumentProblems(binding ?? null, request.arguments);
  if (pathProblems.length > 0) {
    const message = `the arguments cannot be sent to the real handler of ${operation.function_name}: ${pathProblems.map((p) => `${p.path}: ${p.message}`).join("; ")}`;
    return {
      kind: "outcome",
      outcome: { kind: "tool_input_error", message, details: pathProblems, variant: operation.variant, rule: null },
      upstream: null,
    };
  }
  if (!binding)
    return {
      kind: "outcome",
      outcome: harnessOutcome("internal", "the real operation has no binding", operation.variant),
      upstream: null,
    };
  if (!upstream)
    return {
      kind: "forward",
      forward: { attempt_id: attempt.attempt_id, tenant_id: attempt.tenant_id, request, binding },
    };
  if (!upstream.ok) {
    return {
      kind: "outcome",
      outcome: harnessOutcome(
        "upstream",
        `the real handler of ${operation.function_name} gave no usable answer: ${upstream.message}`,
        operation.variant,
      ),
      upstream: { status: upstream.status, latency_ms: upstream.latency_ms, contract_violations: [] },
    };
  }
  const violations = validator.validate(operation.output_schema, upstream.body);
  return {
    kind: "outcome",
    outcome: {
      kind: "result",
      result: upstream.body,
      state: {},
      state_changed: false,
      variant: operation.variant,
      rule: null,
      delay_ms: 0,
    },
    upstream: { status: upstream.status, latency_ms: upstream.latency_ms, contract_violations: violations },
  };
}
