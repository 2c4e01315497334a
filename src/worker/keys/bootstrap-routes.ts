/**
 * POST /api/bootstrap: the first Admin key of a deployed instance, which has no local admin CLI.
 *
 * - Opened by the Worker secret TOOLPROOF_BOOTSTRAP_TOKEN (`Authorization: Bearer <token>`),
 *   compared in constant time over both SHA-256 hashes (equal lengths whatever was sent).
 * - Mints only while the database holds no API key at all (adapters/d1/bootstrap.ts checks that in
 *   the same transaction that writes the key, so two bootstraps at once cannot both mint).
 * - A wrong or missing token and a deployment that has keys already get one and the same 401: the
 *   answer never tells a caller without the token whether the door is still open, and after the
 *   first key it is shut for good, token or not.
 * - Without the secret (or with one too short to resist guessing) the route is off and says how
 *   to turn it on: 503 secret_not_configured, like the other routes that need a Worker secret.
 */
import { Hono } from "hono";
import { z } from "zod";
import { constantTimeEqual, sha256Hex } from "../../adapters/crypto.js";
import { anyApiKeyExists, mintFirstAdminKey } from "../../adapters/d1/bootstrap.js";
import { ALL_PERMISSIONS, type AppEnv } from "../platform/env.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { ApiError } from "../http/errors.js";
import { bearerToken } from "../http/auth.js";
import { apiKeyName } from "./api-key-name.js";

/** Shorter secrets are refused: the route is reachable by anyone until the first key exists. */
const BOOTSTRAP_TOKEN_MIN_LENGTH = 32;
const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/**
 * The deployment's root key holds every permission, RunRealTools included: a key grants only what
 * it holds (routes/keys.ts), and Admin does not imply RunRealTools, so without it here no key of
 * the deployment could ever be given RunRealTools.
 */
const BOOTSTRAP_PERMISSIONS = ALL_PERMISSIONS;
const SETUP =
  "set one with `openssl rand -hex 32 | npx wrangler secret put TOOLPROOF_BOOTSTRAP_TOKEN` (README, Deploy)";

export const bootstrapRequest = z.strictObject({
  tenant: z
    .string({ error: "required: the name of the tenant the first Admin key belongs to" })
    .regex(TENANT_NAME, "expected 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit"),
  key_name: apiKeyName.optional(),
});

export const bootstrapRoutes = new Hono<AppEnv>();

bootstrapRoutes.post("/", async (c) => {
  const secret = c.env.TOOLPROOF_BOOTSTRAP_TOKEN ?? "";
  if (secret.trim() === "") {
    throw new ApiError(
      "secret_not_configured",
      `bootstrap is off: this deployment has no TOOLPROOF_BOOTSTRAP_TOKEN secret; ${SETUP}`,
    );
  }
  if (secret.length < BOOTSTRAP_TOKEN_MIN_LENGTH) {
    throw new ApiError(
      "secret_not_configured",
      `bootstrap is off: TOOLPROOF_BOOTSTRAP_TOKEN is shorter than ${BOOTSTRAP_TOKEN_MIN_LENGTH} characters; ${SETUP}`,
    );
  }
  const sent = bearerToken(c.req.header("authorization")) ?? "";
  if (!constantTimeEqual(sha256Hex(sent), sha256Hex(secret))) throw refused();
  // Once a key exists even the right token gets the refusal, before its body is looked at.
  if (await anyApiKeyExists(c.var.db)) throw refused();
  const body = await readBodyWithHints(c, bootstrapRequest, 4096);
  const minted = await mintFirstAdminKey(c.var.db, {
    tenantName: body.tenant,
    keyName: body.key_name ?? "bootstrap admin",
    permissions: BOOTSTRAP_PERMISSIONS,
  });
  if (!minted) throw refused();
  return c.json(
    {
      tenant: minted.tenant,
      key: minted.key,
      key_id: minted.record.id,
      name: minted.record.name,
      prefix: minted.record.prefix,
      permissions: minted.record.permissions,
      created_at: minted.record.created_at,
    },
    201,
  );
});

/** One answer for a wrong token, a missing one and a deployment that already has keys. */
function refused(): ApiError {
  return new ApiError(
    "unauthorized",
    "bootstrap refused: the token is not this deployment's TOOLPROOF_BOOTSTRAP_TOKEN, or the deployment has API keys already (bootstrap mints only the very first key)",
  );
}
