/**
 * Management-route authentication: `Authorization: Bearer <api key>` → the key's tenant and
 * permissions. Attempt routes use capability tokens instead and do not pass through here.
 */
import { createMiddleware } from "hono/factory";
import { constantTimeEqual, sha256Hex } from "../../adapters/crypto.js";
import { findActiveKeyByHash, touchKey } from "../../adapters/d1/api-keys.js";
import { ALL_PERMISSIONS, type AppEnv, type Permission } from "../env.js";
import { ApiError } from "../http-error.js";

/** last_used_at is advisory: writing it at most once a minute keeps D1 writes off the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const key = bearerToken(c.req.header("authorization"));
  if (!key) throw unauthorized("missing API key: send Authorization: Bearer <key>");
  const keyHash = sha256Hex(key);
  const stored = await findActiveKeyByHash(c.var.db, keyHash);
  // The lookup is by hash, so a near-miss key finds nothing; the explicit comparison keeps the
  // final decision free of early exits as well.
  if (!stored || !constantTimeEqual(stored.key_hash, keyHash)) throw unauthorized("unknown or revoked API key");
  const permissions = new Set(stored.permissions.filter((p): p is Permission => (ALL_PERMISSIONS as readonly string[]).includes(p)));
  c.set("principal", { tenantId: stored.tenant_id, keyId: stored.id, permissions });
  const now = Date.now();
  if (!stored.last_used_at || now - Date.parse(stored.last_used_at) > TOUCH_INTERVAL_MS) {
    c.executionCtx.waitUntil(touchKey(c.var.db, stored.id, new Date(now).toISOString()).catch(() => undefined));
  }
  await next();
});

/** Admin keys may do everything; other keys need the named permission. */
export function requirePermission(permission: Permission) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const granted = c.var.principal.permissions;
    if (!granted.has(permission) && !granted.has("AIManager:Admin")) {
      throw new ApiError("forbidden", `this API key lacks the permission ${permission}`, { required_permission: permission });
    }
    await next();
  });
}

function unauthorized(message: string): ApiError {
  return new ApiError("unauthorized", message);
}
