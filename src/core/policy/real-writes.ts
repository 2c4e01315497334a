/**
 * Which operations a real-tools run treats as writes: the ones the policy's own rules call writes.
 * A name that starts with one of the policy's write verbs (the write-verb rule), or a tool the
 * policy says must always require approval. Without a policy the default write verbs apply, so a
 * real-tools run without a policy is no less careful than one with the default policy.
 */
import { DEFAULT_WRITE_VERBS } from "./parse-policy.js";
import type { Policy } from "./types.js";

/** Why the policy calls this operation a write, in words, or null when it does not. */
export function writeReason(
  policy: Policy | null,
  names: { function_name: string; operation_id: string; tool_name: string },
): string | null {
  const verbs = policy?.write_verbs ?? DEFAULT_WRITE_VERBS;
  for (const name of [names.function_name, names.operation_id]) {
    const lower = name.toLowerCase();
    const verb = verbs.find((prefix) => lower.startsWith(prefix.toLowerCase()));
    if (verb !== undefined) return `"${name}" starts with the write verb "${verb}"`;
  }
  for (const name of [names.function_name, names.tool_name]) {
    if (policy?.tools.get(name) === "always_require") return `the policy says "${name}" must always require approval`;
  }
  return null;
}
