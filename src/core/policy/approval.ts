/** Reading approval modes (one mode, or the MCP per-tool form) and resolving them for one tool. */
import { at, describeValue, isRecord, type ProblemList, readNameList, refuseUnknownKeys } from "./fields.js";
import { APPROVAL_MODES, type ApprovalMode, type ApprovalSpec } from "./types.js";

/** Why an unset mode reads as never_require, for messages that report the default it silently means. */
export const UNSET_APPROVAL_SOURCE = "an unset mode means never_require";

function isApprovalMode(value: unknown): value is ApprovalMode {
  return typeof value === "string" && (APPROVAL_MODES as readonly string[]).includes(value);
}

export function readApprovalMode(value: unknown, path: string, problems: ProblemList): ApprovalMode | undefined {
  if (isApprovalMode(value)) return value;
  problems.add(path, `expected "never_require" or "always_require", got ${describeValue(value)}`);
  return undefined;
}

/** `"always_require"`, `"never_require"`, or `{"always_require": [...], "never_require": [...]}`. */
export function readApprovalSpec(value: unknown, path: string, problems: ProblemList): ApprovalSpec | undefined {
  if (typeof value === "string") return readApprovalMode(value, path, problems);
  if (!isRecord(value)) {
    problems.add(
      path,
      `expected "never_require", "always_require" or {"always_require": [...], "never_require": [...]}, got ${describeValue(value)}`,
    );
    return undefined;
  }
  refuseUnknownKeys(value, APPROVAL_MODES, path, problems);
  const always =
    value.always_require === undefined ? [] : readNameList(value.always_require, at(path, "always_require"), problems);
  const never =
    value.never_require === undefined ? [] : readNameList(value.never_require, at(path, "never_require"), problems);
  if (always === undefined || never === undefined) return undefined;
  return { always_require: always, never_require: never };
}

export interface ResolvedApproval {
  mode: ApprovalMode;
  /** False when nothing set the mode and `mode` is the default it silently falls back to. */
  explicit: boolean;
}

/**
 * The mode a spec gives one tool. Approval wins when a tool is in both lists (the safe reading of a
 * contradiction); a tool in neither list, like an absent spec, gets the default.
 */
export function resolveApproval(spec: ApprovalSpec | null, tool: string, fallback: ApprovalMode): ResolvedApproval {
  if (spec === null) return { mode: fallback, explicit: false };
  if (typeof spec === "string") return { mode: spec, explicit: true };
  if (spec.always_require.includes(tool)) return { mode: "always_require", explicit: true };
  if (spec.never_require.includes(tool)) return { mode: "never_require", explicit: true };
  return { mode: fallback, explicit: false };
}
