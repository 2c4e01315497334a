/** A tenant's stored policy read back as a Policy, and the rule for policy names: shared by the policy routes, metrics, suites, real tools and the dashboard. */
import type { StoredPolicyVersion } from "../../adapters/d1/policies.js";
import { parsePolicy } from "../../core/policy/parse-policy.js";
import type { Policy } from "../../core/policy/types.js";
import { documentName } from "../http/document-body.js";
import { ApiError } from "../http/errors.js";

/** Parses a stored document; it passed this parser when saved, so a failure means the rules grew stricter since. */
export function storedPolicy(stored: StoredPolicyVersion): Policy {
  const parsed = parsePolicy(stored.document);
  if (parsed.ok) return parsed.policy;
  throw new ApiError(
    "stored_policy_invalid",
    `policy "${stored.name}" version ${stored.version} no longer passes validation; PUT a corrected version`,
    { problems: parsed.problems },
  );
}

/** Policy names follow the rule of every stored document's name. */
export const policyName = documentName;
