/**
 * API keys over HTTP (Admin): mint, list, revoke. What `npm run admin -- key ...` does to a local
 * database, for a deployment that has only its HTTP surface after POST /api/bootstrap.
 *
 * The rules an operator relies on:
 * - A key is shown once, in the create answer; only its SHA-256 is kept, and no list shows it.
 * - A key grants only what it holds: Admin implies ManageTools and RunEvals, never RunRealTools
 *   (env.ts), so RunRealTools reaches a new key only from a key that holds it explicitly (the
 *   bootstrap key does).
 * - Revoking is immediate (the auth middleware looks every request's key up in D1) and idempotent.
 * - The tenant's last unrevoked Admin key cannot be revoked: nobody could mint or revoke keys after it.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  createApiKey,
  getKey,
  listKeysPage,
  revokeKeyKeepingAnAdmin,
  type StoredKey,
} from "../../adapters/d1/api-keys.js";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { ALL_PERMISSIONS, type AppEnv, type Permission, type Principal } from "../platform/env.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { ApiError, notFound } from "../http/errors.js";
import { grants, requirePermission } from "../http/auth.js";
import { pageCursor, pageLimit, CREATED_CURSOR } from "../http/pagination.js";
import { apiKeyName } from "./api-key-name.js";

export const createKeyRequest = z.strictObject({
  name: apiKeyName,
  permissions: z
    .array(
      z.enum(ALL_PERMISSIONS as [Permission, ...Permission[]], {
        error: `expected one of: ${ALL_PERMISSIONS.join(", ")}`,
      }),
    )
    .min(1, `expected at least one of: ${ALL_PERMISSIONS.join(", ")}`)
    .max(ALL_PERMISSIONS.length, `expected at most ${ALL_PERMISSIONS.length} permissions`),
});

/** A key as lists and answers show it: never the key, never its hash. */
export function keyView(key: StoredKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    permissions: key.permissions,
    created_at: key.created_at,
    last_used_at: key.last_used_at,
    revoked_at: key.revoked_at,
  };
}

export const keyRoutes = new Hono<AppEnv>();
keyRoutes.use("*", requirePermission("AIManager:Admin"));

keyRoutes.post("/", async (c) => {
  const body = await readBodyWithHints(c, createKeyRequest, 4096);
  const permissions = [...new Set(body.permissions)];
  refuseWiderGrant(c.var.principal, permissions, body.permissions);
  const { key, record } = await createApiKey(c.var.db, {
    tenantId: c.var.principal.tenantId,
    name: body.name,
    permissions,
  });
  return c.json({ key, ...keyView(record) }, 201);
});

keyRoutes.get("/", async (c) => {
  const limit = pageLimit(c);
  const after = pageCursor(c, CREATED_CURSOR);
  const page = await listKeysPage(c.var.db, c.var.principal.tenantId, { limit, after });
  return c.json({
    items: page.items.map(keyView),
    next_cursor: page.next ? encodeCursor([page.next.created_at, page.next.id]) : null,
  });
});

keyRoutes.get("/:id", async (c) => {
  const key = await getKey(c.var.db, c.var.principal.tenantId, c.req.param("id"));
  if (!key) throw notFound("API key");
  return c.json(keyView(key));
});

keyRoutes.delete("/:id", async (c) => {
  const revocation = await revokeKeyKeepingAnAdmin(c.var.db, c.var.principal.tenantId, c.req.param("id"));
  switch (revocation.kind) {
    case "missing":
      // Another tenant's key reads exactly like one that does not exist.
      throw notFound("API key");
    case "last_admin":
      throw new ApiError(
        "last_admin_key",
        `key ${revocation.key.id} is this tenant's last unrevoked AIManager:Admin key: revoking it would leave no key that can mint or revoke keys; create another Admin key first (POST /api/keys), then revoke this one`,
        { key_id: revocation.key.id },
      );
    case "revoked":
    case "already_revoked":
      return c.json(keyView(revocation.key));
  }
});

/** Each asked-for permission the calling key does not hold itself, named by its place in the body. */
function refuseWiderGrant(
  principal: Principal,
  permissions: readonly Permission[],
  asked: readonly Permission[],
): void {
  // RunRealTools is the one permission Admin does not imply (env.ts): only holding it lets a key hand it on.
  const holds = (permission: Permission) =>
    permission === "AIManager:RunRealTools" ? principal.permissions.has(permission) : grants(principal, permission);
  const beyond = permissions.filter((permission) => !holds(permission));
  if (beyond.length === 0) return;
  const problems = beyond.map((permission) => ({
    path: `/permissions/${asked.indexOf(permission)}`,
    message: `this API key does not hold ${permission}, so it cannot grant it`,
  }));
  throw new ApiError(
    "forbidden",
    `a key grants only permissions it holds: this API key does not hold ${beyond.join(", ")}`,
    { problems },
  );
}
