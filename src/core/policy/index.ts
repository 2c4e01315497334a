/**
 * Tool policies as data: parse a reviewed policy, read an agent's manifest in any supported shape,
 * check one against the other, and score called tools with the tool-permission metric.
 *
 * @example
 * const policy = parsePolicy(JSON.parse(policyText));
 * if (!policy.ok) throw new Error(policy.problems.map((p) => `${p.path}: ${p.message}`).join("\n"));
 * const manifest = readManifest(JSON.parse(manifestText), policy.policy, { format: "openai" });
 * if (manifest.ok) console.log(checkManifest(policy.policy, manifest.manifest).findings);
 */
export { checkManifest } from "./check.js";
export { readManifest, type ManifestOptions, type ManifestRead } from "./manifest.js";
export { DEFAULT_MIN_DESCRIPTION_LENGTH, DEFAULT_WRITE_VERBS, parsePolicy, type PolicyParse } from "./parse-policy.js";
export { parseText, syntaxFor, type TextParse, type TextSyntax } from "./parse-text.js";
export {
  DEFAULT_PERMISSION_THRESHOLD,
  measureToolPermission,
  type ToolPermissionOptions,
  type ToolPermissionOutcome,
  type ToolPermissionResult,
  type UnauthorizedTool,
} from "./permission-metric.js";
export { RULES, type RuleId } from "./rules.js";
export * from "./types.js";
