/**
 * Management-route authentication: `Authorization: Bearer <api key>` → the key's tenant and
 * permissions. Attempt routes use capability tokens instead and do not pass through here.
 */
import { createMiddleware } from "hono/factory";
import { constantTimeEqual, sha256Hex } from "../../adapters/crypto.js";
import { KEY_PREFIX, findActiveKeyByHash, touchKey } from "../../adapters/d1/api-keys.js";
import { ATTEMPT_TOKEN_PREFIX } from "./attempt-token-prefix.js";
import { ALL_PERMISSIONS, type AppEnv, type Database, type Permission, type Principal } from "../platform/env.js";
import { ApiError } from "./errors.js";

const ATTEMPT_TOKEN_HERE = `this is an attempt token (${ATTEMPT_TOKEN_PREFIX}...): it opens only its attempt's routes (dispatch, mcp, the attempt, evidence, complete); this route needs an API key (${KEY_PREFIX}...)`;

/** last_used_at is advisory: writing it at most once a minute keeps D1 writes off the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return match?.[1];
}

export const authenticate = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("authorization");
  const key = bearerToken(header);
  if (!key)
    throw unauthorized(
      header === undefined || header.trim() === ""
        ? "missing API key: send Authorization: Bearer <key>"
        : malformedAuthorization(header),
    );
  const keyHash = sha256Hex(key);
  const found = await activeKey(c.var.db, keyHash);
  if (!found) {
    // An attempt's token is a capability for that attempt's routes only; say so rather than "unknown".
    if (key.startsWith(ATTEMPT_TOKEN_PREFIX)) throw unauthorized(ATTEMPT_TOKEN_HERE);
    throw unauthorized("unknown or revoked API key");
  }
  c.set("principal", found.principal);
  touchLater(c.var.db, c.executionCtx, found);
  await next();
});

/**
 * The API key whose SHA-256 is `keyHash`, while it is not revoked, as the principal it acts for.
 * The one key check: the API's middleware and the dashboard's sessions (which keep the hash) both use it.
 */
export async function activeKey(
  db: Database,
  keyHash: string,
): Promise<{ principal: Principal; lastUsedAt: string | null } | undefined> {
  const stored = await findActiveKeyByHash(db, keyHash);
  // The lookup is by hash, so a near-miss key finds nothing; the explicit comparison keeps the
  // final decision free of early exits as well.
  if (!stored || !constantTimeEqual(stored.key_hash, keyHash)) return undefined;
  const permissions = new Set(
    stored.permissions.filter((p): p is Permission => (ALL_PERMISSIONS as readonly string[]).includes(p)),
  );
  return { principal: { tenantId: stored.tenant_id, keyId: stored.id, permissions }, lastUsedAt: stored.last_used_at };
}

/** Records the key's use after the response, at most once a minute. */
export function touchLater(
  db: Database,
  ctx: { waitUntil(promise: Promise<unknown>): void },
  found: { principal: Principal; lastUsedAt: string | null },
): void {
  const now = Date.now();
  if (!found.lastUsedAt || now - Date.parse(found.lastUsedAt) > TOUCH_INTERVAL_MS) {
    ctx.waitUntil(touchKey(db, found.principal.keyId, new Date(now).toISOString()).catch(() => undefined));
  }
}

/** Admin keys may do everything; other keys need the named permission. */
export function grants(principal: Principal, permission: Permission): boolean {
  return principal.permissions.has(permission) || principal.permissions.has("AIManager:Admin");
}

export function requirePermission(permission: Permission) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!grants(c.var.principal, permission)) {
      throw new ApiError("forbidden", `this API key lacks the permission ${permission}`, {
        required_permission: permission,
      });
    }
    await next();
  });
}

/** What is wrong with an Authorization header that carries no bearer token, never echoing a secret. */
function malformedAuthorization(header: string): string {
  const [first = "", ...rest] = header.trim().split(/\s+/);
  const fix = "use Authorization: Bearer <key>";
  if (/^bearer$/i.test(first))
    return rest.length === 0
      ? `the Authorization header has no key after Bearer: ${fix}`
      : `the Authorization header has more than one value after Bearer: ${fix}`;
  if (first.startsWith(KEY_PREFIX))
    return `the Authorization header holds an API key without the Bearer scheme: ${fix}`;
  if (first.startsWith(ATTEMPT_TOKEN_PREFIX))
    return `the Authorization header holds an attempt token without the Bearer scheme, and this route needs an API key: ${fix}`;
  if (rest.length > 0 && /^[A-Za-z][A-Za-z0-9-]{0,19}$/.test(first))
    return `the Authorization header uses the scheme "${first}": ${fix}`;
  return `the Authorization header holds no Bearer key: ${fix}`;
}

function unauthorized(message: string): ApiError {
  return new ApiError("unauthorized", message);
}
