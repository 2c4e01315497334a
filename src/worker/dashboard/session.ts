/**
 * Dashboard sign-in state. The browser holds only a random session id (cookie tp_session,
 * HttpOnly, SameSite=Strict, Secure except over plain http to a loopback host); D1 keeps its
 * SHA-256, the API key's hash, the expiry and the session's CSRF token. Each page load runs the
 * API's own key check (activeKey), so a revoked key ends every session it opened.
 */
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { constantTimeEqual, randomSecret, sha256Hex } from "../../adapters/crypto.js";
import {
  createSession,
  deleteExpiredSessions,
  deleteSession,
  findSession,
} from "../../adapters/d1/dashboard-sessions.js";
import { findTenantName } from "../../adapters/d1/api-keys.js";
import type { AppEnv, Principal } from "../platform/env.js";
import { activeKey, touchLater } from "../http/auth.js";

const SESSION_COOKIE = "tp_session";
/** The sign-in form's own token (double-submit), since there is no session yet to hold one. */
const SIGN_IN_COOKIE = "tp_sign_in";
/** The hidden field every dashboard form carries. */
export const CSRF_FIELD = "csrf_token";
/** A sign-in lasts a working day; signing in again is cheap. */
const SESSION_SECONDS = 8 * 60 * 60;

export interface Viewer {
  principal: Principal;
  /** The tenant's name, for the header (its id is what the API uses). */
  tenantName: string;
  /** The session's CSRF token, for the hidden field of every form a page renders. */
  csrfToken: string;
}

type Ctx = Context<AppEnv>;

/** Plain http is allowed only to this machine; anywhere else the cookie must be Secure. */
function secureCookies(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  const loopback = hostname === "localhost" || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname);
  return !(protocol === "http:" && loopback);
}

function cookieOptions(c: Ctx, maxAge: number) {
  return { path: "/", httpOnly: true, secure: secureCookies(c.req.url), sameSite: "Strict" as const, maxAge };
}

/** The signed-in viewer, or undefined when there is no live session or its key was revoked. */
export async function currentViewer(c: Ctx): Promise<Viewer | undefined> {
  const id = getCookie(c, SESSION_COOKIE);
  if (!id) return undefined;
  const session = await findSession(c.var.db, sha256Hex(id), new Date().toISOString());
  if (!session) return undefined;
  const found = await activeKey(c.var.db, session.key_hash);
  if (!found) {
    await deleteSession(c.var.db, sha256Hex(id));
    return undefined;
  }
  touchLater(c.var.db, c.executionCtx, found);
  return {
    principal: found.principal,
    tenantName: await tenantNameOf(c, found.principal.tenantId),
    csrfToken: session.csrf_token,
  };
}

/** Signs in with an API key: a new session when the key is active, else undefined. */
export async function signIn(c: Ctx, key: string): Promise<Viewer | undefined> {
  const keyHash = sha256Hex(key);
  const found = await activeKey(c.var.db, keyHash);
  if (!found) return undefined;
  const id = randomSecret(32);
  const csrfToken = randomSecret(24);
  const now = Date.now();
  await createSession(c.var.db, {
    id_hash: sha256Hex(id),
    key_hash: keyHash,
    tenant_id: found.principal.tenantId,
    csrf_token: csrfToken,
    expires_at: new Date(now + SESSION_SECONDS * 1000).toISOString(),
  });
  c.executionCtx.waitUntil(deleteExpiredSessions(c.var.db, new Date(now).toISOString()).catch(() => undefined));
  setCookie(c, SESSION_COOKIE, id, cookieOptions(c, SESSION_SECONDS));
  deleteCookie(c, SIGN_IN_COOKIE, { path: "/", secure: secureCookies(c.req.url) });
  return { principal: found.principal, tenantName: await tenantNameOf(c, found.principal.tenantId), csrfToken };
}

/** The tenant's name; its id when the row has none to give (never blank in the header). */
async function tenantNameOf(c: Ctx, tenantId: string): Promise<string> {
  return (await findTenantName(c.var.db, tenantId)) ?? tenantId;
}

export async function signOut(c: Ctx): Promise<void> {
  const id = getCookie(c, SESSION_COOKIE);
  if (id) await deleteSession(c.var.db, sha256Hex(id));
  deleteCookie(c, SESSION_COOKIE, { path: "/", secure: secureCookies(c.req.url) });
}

/** The sign-in form's token: the one in its cookie, or a new one set now. */
export function signInToken(c: Ctx): string {
  const existing = getCookie(c, SIGN_IN_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return existing;
  const token = randomSecret(24);
  setCookie(c, SIGN_IN_COOKIE, token, cookieOptions(c, 60 * 60));
  return token;
}

export function signInTokenMatches(c: Ctx, sent: string | undefined): boolean {
  const expected = getCookie(c, SIGN_IN_COOKIE);
  return expected !== undefined && sent !== undefined && constantTimeEqual(expected, sent);
}

/**
 * Why a form POST must be refused, or undefined when it may go on: a browser sends Origin on
 * every POST, so one from another origin (or "null") is refused, and the token must match.
 */
export function csrfRefusal(
  c: Ctx,
  expectedToken: string | undefined,
  sentToken: string | undefined,
): string | undefined {
  const origin = c.req.header("origin");
  if (origin !== undefined && origin !== new URL(c.req.url).origin)
    return `this form was sent from another origin (${origin})`;
  if (expectedToken === undefined || sentToken === undefined || !constantTimeEqual(expectedToken, sentToken)) {
    return "this form's security token is missing or out of date: reload the page and send it again";
  }
  return undefined;
}

/** A form field as a string, or undefined (files and absent fields alike). */
export function formField(form: FormData, name: string): string | undefined {
  const value = form.get(name);
  return typeof value === "string" ? value : undefined;
}
