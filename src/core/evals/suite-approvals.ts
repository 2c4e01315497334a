/**
 * The approval mode of each of a suite's functions, which the built-in runner obeys (an
 * `always_require` call is recorded as an approval request and not executed).
 *
 * With `agent.policy`, the stored policy decides (keyed by function name, as policies are), and a
 * function it does not list is a problem: the reviewed policy is the one source of truth, so a
 * tool nobody reviewed is never run under a silent default. Without a policy, each tool entry's
 * `approval_mode` applies to every operation it selects, unset meaning never_require (as in agent
 * frameworks).
 */
import type { Problem } from "../json.js";
import { DEFAULT_APPROVAL_MODE, type ApprovalMode, type Policy } from "../policy/types.js";
import type { PinnedOperation } from "../simulation/setup.js";
import { entryIndexOf } from "./suite-tools.js";
import type { Suite } from "./suite-types.js";

/** What identifies a pinned operation: a PinnedOperation or a stored PinnedRecord both have it. */
type OperationIdentity = Pick<PinnedOperation, "function_name" | "tool_id" | "tool_name" | "operation_id">;

type SuiteApprovals = { ok: true; approval: Record<string, ApprovalMode> } | { ok: false; problems: Problem[] };

/**
 * `operations` are what planning pinned for `suite.agent.tools`; `policy` is the named policy's
 * parsed latest version (null when the suite names none). The result's `approval` is
 * AgentRunInputs.approval.
 */
export function suiteApprovals(
  suite: Suite,
  operations: readonly OperationIdentity[],
  policy: Policy | null,
): SuiteApprovals {
  const approval: Record<string, ApprovalMode> = {};
  const set = (name: string, mode: ApprovalMode): void => {
    // defineProperty: a function may be called "__proto__".
    Object.defineProperty(approval, name, { value: mode, enumerable: true, writable: true, configurable: true });
  };
  const problems: Problem[] = [];
  const policyName = suite.agent.policy;

  if (policyName !== undefined && policy === null) {
    return {
      ok: false,
      problems: [
        {
          path: "/agent/policy",
          message: `the suite names policy "${policyName}", and its approval modes were not given`,
        },
      ],
    };
  }
  for (const op of operations) {
    const index = entryIndexOf(suite.agent.tools, op);
    if (policyName === undefined || policy === null) {
      const entry = suite.agent.tools[index];
      set(op.function_name, entry?.approval_mode ?? DEFAULT_APPROVAL_MODE);
      continue;
    }
    const mode = policy.tools.get(op.function_name);
    if (mode !== undefined) {
      set(op.function_name, mode);
      continue;
    }
    const listed = [...policy.tools.keys()];
    problems.push({
      path: index >= 0 ? `/agent/tools/${index}` : "/agent/tools",
      message: `policy "${policyName}" does not list "${op.function_name}" (it lists ${listed.length > 0 ? listed.join(", ") : "no tools"}); add it with its approval mode to the policy, or remove the tool from the agent`,
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, approval };
}
