/** Outcomes the attempt object gives a call without running its definition: refusals and harness errors. */
import type { CallOutcome } from "../../core/contract/types.js";
import type { Problem } from "../../core/json.js";
import { unusableArgumentsMessage } from "../../core/simulation/dispatch-request.js";
import type { CallRefusal } from "./replies.js";

/** A parse that refused the request: unusable arguments are the agent's tool input error, anything else an invalid request. */
export function refusal(
  parsed: { ok: false; problems: Problem[] } | { ok: false; unusableArguments: Problem[] },
): CallRefusal {
  if ("unusableArguments" in parsed) {
    return {
      kind: "unusable_arguments",
      message: unusableArgumentsMessage(parsed.unusableArguments),
      problems: parsed.unusableArguments,
    };
  }
  return { kind: "invalid_request", problems: parsed.problems };
}

export function harnessOutcome(
  kind: Extract<CallOutcome, { kind: "harness_error" }>["harness_kind"],
  message: string,
  variant: string,
): CallOutcome {
  return { kind: "harness_error", harness_kind: kind, message, details: [], variant, rule: null };
}
