/**
 * Binding library operations a simulation asks for in real mode to their real handlers: the
 * tool's declared upstream, checked against the tenant's host allowlist, the address rules and the
 * policy's idea of a write, at the moment the simulation is planned. Pure: the upstreams come
 * through a port, like the rest of the library.
 *
 * A real operation is pinned without a mock: no revision, and a placeholder definition that is
 * never run (its one variant, `real`, is what the pinned list and the evidence name). The attempt
 * object sees `real` on the operation and forwards instead.
 */
import type { MockDefinition } from "../contract/types.js";
import type { Problem } from "../json.js";
import { writeReason } from "../policy/real-writes.js";
import type { Policy } from "../policy/types.js";
import {
  addressRefusal,
  bindingUrl,
  hostAllowed,
  upstreamHost,
  type RealBinding,
  type UpstreamConfig,
} from "../tools/upstream.js";

export const REAL_VARIANT = "real";

/** The placeholder a real operation is pinned with: never executed, it only keeps the pinned shape whole. */
export const REAL_PLACEHOLDER: MockDefinition = {
  schema_version: 1,
  default_variant: REAL_VARIANT,
  variants: { [REAL_VARIANT]: { result: null } },
  examples: [],
};

/** A tool's stored upstream: the declaration, and its credentials still sealed. */
export interface StoredUpstream {
  tool_id: string;
  config: UpstreamConfig;
  sealed: string | null;
}

export interface RealToolContext {
  /** The tenant's upstreams of these tools; a tool without one is absent. */
  upstreams(toolIds: readonly string[]): Promise<ReadonlyMap<string, StoredUpstream>>;
  /** The tenant's allowlist of upstream hosts. */
  allowedHosts: readonly string[];
  /** A local instance: loopback upstreams are allowed (never private or link-local ones). */
  allowLoopback: boolean;
  /** The policy that says which operations are writes; null: the default write verbs. */
  policy: Policy | null;
}

export type RealRefusalCode = "upstream_not_configured" | "upstream_not_allowed" | "real_write_not_allowed";

export interface RealOperationRequest {
  /** JSON Pointer of the entry's `mode`. */
  path: string;
  tool_id: string;
  tool_name: string;
  operation_id: string;
  function_name: string;
}

type RealBindResult = { ok: true; bindings: RealBinding[] } | { ok: false; code: RealRefusalCode; problems: Problem[] };

/** The binding of each requested operation, in order, or the first kind of refusal with every offender of that kind. */
export async function bindRealOperations(
  requests: readonly RealOperationRequest[],
  context: RealToolContext | undefined,
): Promise<RealBindResult> {
  if (requests.length === 0) return { ok: true, bindings: [] };
  const refused: Record<RealRefusalCode, Problem[]> = {
    upstream_not_configured: [],
    upstream_not_allowed: [],
    real_write_not_allowed: [],
  };
  if (!context) {
    return {
      ok: false,
      code: "upstream_not_configured",
      problems: requests.map((r) => ({ path: r.path, message: "real tools cannot be used from here" })),
    };
  }
  const upstreams = await context.upstreams([...new Set(requests.map((r) => r.tool_id))]);
  const bindings: RealBinding[] = [];
  for (const request of requests) {
    const upstream = upstreams.get(request.tool_id);
    if (!upstream) {
      refused.upstream_not_configured.push({
        path: request.path,
        message: `tool "${request.tool_name}" declares no real handler: PUT /api/tools/${request.tool_id}/upstream first`,
      });
      continue;
    }
    const binding = bindingOf(upstream, request.operation_id);
    if (!binding) {
      refused.upstream_not_configured.push({
        path: request.path,
        message: `the upstream of tool "${request.tool_name}" declares no operation "${request.operation_id}" (it declares ${Object.keys(upstream.config.operations).join(", ") || "none"})`,
      });
      continue;
    }
    const url = bindingUrl(binding.binding);
    const address = addressRefusal(url, context.allowLoopback);
    if (address !== null) {
      refused.upstream_not_allowed.push({ path: request.path, message: address });
      continue;
    }
    const host = upstreamHost(url);
    if (!hostAllowed(host, context.allowedHosts)) {
      refused.upstream_not_allowed.push({
        path: request.path,
        message: `the host ${host} is not on this tenant's upstream allowlist: an admin adds it with PUT /api/upstream-hosts`,
      });
      continue;
    }
    const write = writeReason(context.policy, request);
    if (write !== null && !binding.allow_writes) {
      refused.real_write_not_allowed.push({
        path: request.path,
        message: `${write}, so a real call could change a real system: set allow_writes: true on operation "${request.operation_id}" of the tool's upstream to allow it`,
      });
      continue;
    }
    bindings.push(binding.binding);
  }
  for (const code of ["upstream_not_configured", "upstream_not_allowed", "real_write_not_allowed"] as const) {
    if (refused[code].length > 0) return { ok: false, code, problems: refused[code] };
  }
  return { ok: true, bindings };
}

function bindingOf(
  upstream: StoredUpstream,
  operationId: string,
): { binding: RealBinding; allow_writes: boolean } | undefined {
  const { config } = upstream;
  const common = {
    tool_id: upstream.tool_id,
    timeout_ms: config.timeout_ms,
    max_body_bytes: config.max_body_bytes,
    sealed: upstream.sealed,
  };
  if (config.kind === "http") {
    const op = Object.hasOwn(config.operations, operationId) ? config.operations[operationId] : undefined;
    if (!op) return undefined;
    return {
      binding: {
        ...common,
        kind: "http",
        base_url: config.base_url,
        method: op.method,
        path: op.path,
        query: op.query ?? null,
        body: op.body ?? null,
      },
      allow_writes: op.allow_writes === true,
    };
  }
  const op = Object.hasOwn(config.operations, operationId) ? config.operations[operationId] : undefined;
  if (!op) return undefined;
  return {
    binding: { ...common, kind: "mcp", mcp_url: config.mcp_url, tool: op.tool ?? operationId },
    allow_writes: op.allow_writes === true,
  };
}
