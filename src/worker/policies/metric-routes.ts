/**
 * POST /api/metrics/tool-permission: the tool-permission metric on one list of called tools, with
 * the allow/deny lists in the body or taken from a stored policy. Deterministic, no model.
 */
import { Hono } from "hono";
import { z } from "zod";
import { findPolicyVersion } from "../../adapters/d1/policies.js";
import { measureToolPermission, type ToolPermissionOptions } from "../../core/policy/permission-metric.js";
import type { AppEnv } from "../platform/env.js";
import { invalidRequest, notFound } from "../http/errors.js";
import { requirePermission } from "../http/auth.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { policyName, storedPolicy } from "./stored-policy.js";

/** A long agent run is a few thousand calls; arguments ride along but are not used. */
const METRIC_BODY_LIMIT = 1024 * 1024;
const MAX_TOOL_CALLS = 10_000;

const name = z.string().min(1, "expected a non-empty tool name").max(256, "expected at most 256 characters");
const nameList = z.array(name).max(10_000).nullable().optional();

/** `input` as in the API docs; the other fields are deepeval's ToolCall, accepted so its JSON can be sent as is. */
const toolCall = z.strictObject({
  name,
  input: z.unknown().optional(),
  input_parameters: z.unknown().optional(),
  output: z.unknown().optional(),
  description: z.unknown().optional(),
  reasoning: z.unknown().optional(),
});

export const metricBody = z.strictObject({
  allowed_tools: nameList,
  denied_tools: nameList,
  policy: z.string().optional(),
  policy_version: z.number().int().positive().optional(),
  threshold: z.number().min(0, "expected a number from 0 to 1").max(1, "expected a number from 0 to 1").optional(),
  strict_mode: z.boolean().optional(),
  include_reason: z.boolean().optional(),
  verbose_mode: z.boolean().optional(),
  tools_called: z
    .array(toolCall, { error: 'required: the called tools, [{"name": "..."}] (an empty array when none were called)' })
    .max(MAX_TOOL_CALLS, `expected at most ${MAX_TOOL_CALLS} calls`),
});

export const metricRoutes = new Hono<AppEnv>();

metricRoutes.use("*", requirePermission("AIManager:ManageTools"));

metricRoutes.post("/tool-permission", async (c) => {
  const body = await readBodyWithHints(c, metricBody, METRIC_BODY_LIMIT);
  const lists = await permissionLists(c.var.db, c.var.principal.tenantId, body);
  const options: ToolPermissionOptions = {
    ...lists.lists,
    ...(body.threshold === undefined ? {} : { threshold: body.threshold }),
    ...(body.strict_mode === undefined ? {} : { strict_mode: body.strict_mode }),
    ...(body.include_reason === undefined ? {} : { include_reason: body.include_reason }),
    ...(body.verbose_mode === undefined ? {} : { verbose_mode: body.verbose_mode }),
  };
  const outcome = measureToolPermission(
    options,
    body.tools_called.map((call) => call.name),
  );
  if (!outcome.ok) throw invalidRequest(outcome.problems);
  return c.json({ ...outcome.result, ...(lists.policy ? { policy: lists.policy } : {}) });
});

type MetricBody = z.output<typeof metricBody>;

async function permissionLists(
  db: AppEnv["Variables"]["db"],
  tenantId: string,
  body: MetricBody,
): Promise<{
  lists: Pick<ToolPermissionOptions, "allowed_tools" | "denied_tools">;
  policy?: { name: string; version: number };
}> {
  if (body.policy === undefined) {
    if (body.policy_version !== undefined)
      throw invalidRequest([{ path: "/policy_version", message: "only meaningful with policy" }]);
    return { lists: { allowed_tools: body.allowed_tools ?? null, denied_tools: body.denied_tools ?? null } };
  }
  const given = (["allowed_tools", "denied_tools"] as const).filter(
    (field) => body[field] !== undefined && body[field] !== null,
  );
  if (given.length > 0) {
    throw invalidRequest(
      given.map((field) => ({ path: `/${field}`, message: "give the lists in the body or name a policy, not both" })),
    );
  }
  let policyNameValue: string;
  try {
    policyNameValue = policyName(body.policy);
  } catch {
    throw invalidRequest([
      { path: "/policy", message: "expected a policy name: 1 to 128 letters, digits, '_', '.' or '-'" },
    ]);
  }
  const stored = await findPolicyVersion(db, tenantId, policyNameValue, body.policy_version);
  if (!stored) throw notFound(body.policy_version === undefined ? "policy" : "policy version");
  const policy = storedPolicy(stored);
  if (policy.allowed_tools === null && policy.denied_tools === null) {
    throw invalidRequest([
      {
        path: "/policy",
        message: `policy "${stored.name}" version ${stored.version} has neither allowed_tools nor denied_tools; add one, or give the lists in the body`,
      },
    ]);
  }
  return {
    lists: { allowed_tools: policy.allowed_tools, denied_tools: policy.denied_tools },
    policy: { name: stored.name, version: stored.version },
  };
}
