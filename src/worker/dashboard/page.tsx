/** @jsxImportSource hono/jsx */
/**
 * The page helper: every dashboard page is `page(options, load)`. It finds the signed-in viewer
 * (else redirects to the sign-in form, coming back afterwards), refuses in words when the key
 * lacks the page's permission (the same rule as the API's requirePermission), runs the page's
 * loader and wraps what it returns in the layout.
 */
import type { Context } from "hono";
import { html } from "hono/html";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ApiError } from "../http/errors.js";
import type { AppEnv, Permission } from "../platform/env.js";
import { grants } from "../http/auth.js";
import { Layout, type Section } from "./layout.js";
import { Notice } from "./components.js";
import { type Viewer, currentViewer } from "./session.js";

export type DashboardContext = Context<AppEnv>;

export interface PageResult {
  title: string;
  body: Child;
  /** 200 unless the page says otherwise (404 for a missing tool...). */
  status?: ContentfulStatusCode;
  /**
   * Reload the page every this many seconds (a live run's page): a <meta http-equiv="refresh">,
   * so no script is needed and the CSP stays as strict as on every other page.
   */
  refreshSeconds?: number;
}

interface PageOptions {
  section: Section;
  /** The permission the API asks for the same data. */
  permission: Permission;
}

/** Renders a whole document (doctype and layout). */
export function renderDocument(
  c: DashboardContext,
  result: PageResult,
  viewer: Viewer | undefined,
  section?: Section,
): Response | Promise<Response> {
  const signedIn = viewer ? { tenantName: viewer.tenantName, csrfToken: viewer.csrfToken } : undefined;
  const document = (
    <Layout title={result.title} section={section} signedIn={signedIn} refreshSeconds={result.refreshSeconds}>
      {result.body}
    </Layout>
  );
  c.header("cache-control", "no-store");
  c.header("x-frame-options", "DENY");
  c.header("referrer-policy", "same-origin");
  c.header(
    "content-security-policy",
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  );
  return c.html(html`<!doctype html>${document}`, result.status ?? 200);
}

export function page(
  options: PageOptions,
  load: (c: DashboardContext, viewer: Viewer) => Promise<PageResult | Response>,
) {
  return async (c: DashboardContext): Promise<Response> => {
    const viewer = await currentViewer(c);
    if (!viewer) {
      const url = new URL(c.req.url);
      return c.redirect(`/sign-in?next=${encodeURIComponent(url.pathname + url.search)}`, 303);
    }
    if (!grants(viewer.principal, options.permission)) {
      return renderDocument(c, forbiddenPage(options.permission), viewer, options.section);
    }
    let result: PageResult | Response;
    try {
      result = await load(c, viewer);
    } catch (error) {
      // The API's own checks (a bad cursor, a bad name) speak through ApiError: the same words, as a page; the message already names the first problem.
      if (!(error instanceof ApiError)) throw error;
      result = errorPage(error);
    }
    return result instanceof Response ? result : renderDocument(c, result, viewer, options.section);
  };
}

function forbiddenPage(permission: Permission): PageResult {
  return {
    title: "Permission needed",
    status: 403,
    body: (
      <>
        <h1>Permission needed</h1>
        <Notice kind="error">
          <p>
            This page needs the permission <code>{permission}</code>, and the API key you signed in with lacks it. Sign
            out and sign in with a key that has it (or an Admin key).
          </p>
        </Notice>
      </>
    ),
  };
}

export function errorPage(error: ApiError): PageResult {
  const problems = problemsOf(error.details);
  return {
    title: "Cannot show this page",
    status: error.status,
    body: (
      <>
        <h1>Cannot show this page</h1>
        <Notice kind="error">
          <p>{error.message}</p>
          {problems.length > 1 ? (
            <ul>
              {problems.map((p) => (
                <li>
                  <code>{p.path}</code>: {p.message}
                </li>
              ))}
            </ul>
          ) : null}
        </Notice>
      </>
    ),
  };
}

function problemsOf(details: unknown): Array<{ path: string; message: string }> {
  if (typeof details !== "object" || details === null || !("problems" in details) || !Array.isArray(details.problems))
    return [];
  return details.problems.flatMap((p: unknown) =>
    typeof p === "object" &&
    p !== null &&
    "path" in p &&
    "message" in p &&
    typeof p.path === "string" &&
    typeof p.message === "string"
      ? [{ path: p.path, message: p.message }]
      : [],
  );
}

/** A page's "there is no such thing" answer, inside the layout. */
export function notFoundPage(what: string, back: { href: string; label: string }): PageResult {
  return {
    title: `No such ${what}`,
    status: 404,
    body: (
      <>
        <h1>{`No such ${what}`}</h1>
        <p>
          This tenant has no such {what}. <a href={back.href}>{back.label}</a>
        </p>
      </>
    ),
  };
}

/** A path parameter of the page's route (always present when the route matched). */
export function pathParam(c: DashboardContext, name: string): string {
  return c.req.param(name) ?? "";
}

/** A query parameter that must be a positive integer, or undefined (missing or malformed). */
export function positiveIntQuery(c: DashboardContext, name: string): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || !/^[1-9][0-9]{0,8}$/.test(raw)) return undefined;
  return Number(raw);
}
