/**
 * The one mapping from a planning refusal (core/simulation/plan.ts) to its API error, shared by
 * POST /api/simulations and POST /api/suites/:name/runs, so a stale revision reads the same
 * whichever route pinned it.
 */
import type { Problem } from "../../core/json.js";
import type { PlanRefusal } from "../../core/simulation/plan.js";
import { ApiError, invalidRequest } from "./errors.js";

export function planRefusalError(refusal: PlanRefusal): ApiError {
  switch (refusal.kind) {
    case "invalid_request":
      return invalidRequest(refusal.problems);
    case "not_found":
      return new ApiError("not_found", summarize(refusal.problems), { problems: refusal.problems });
    case "invalid_definition": {
      const [first] = refusal.definitions;
      const paths = refusal.definitions.map((d) => d.path);
      return new ApiError("invalid_definition", `the mock definition at ${paths.join(", ")} does not pass its check`, {
        path: first?.path,
        ...first?.report,
        invalid: paths,
      });
    }
    case "no_current_revision": {
      const names = refusal.offenders.map((o) => `${o.tool_id}/${o.operation_id} (${o.reason})`).join(", ");
      return new ApiError(
        "no_current_revision",
        `these operations have no mock revision checked against their current contract: ${names}; save one first`,
        {
          offenders: refusal.offenders,
        },
      );
    }
    case "initial_state_conflict":
      return new ApiError("initial_state_conflict", summarize(refusal.problems), { problems: refusal.problems });
    case "real_tools_refused":
      return new ApiError(refusal.code, summarize(refusal.problems), { problems: refusal.problems });
  }
}

function summarize(problems: Problem[]): string {
  const first = problems[0];
  if (!first) return "invalid request";
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : "";
  return `${first.path}: ${first.message}${more}`;
}
