/** @jsxImportSource hono/jsx */
/** Sign-in with an API key (a form) and sign-out. GET / sends people to the sign-in or their home page. */
import { Hono } from "hono";
import type { AppEnv } from "../platform/env.js";
import { Notice } from "./components.js";
import { type DashboardContext, type PageResult, renderDocument } from "./page.js";
import {
  CSRF_FIELD,
  csrfRefusal,
  currentViewer,
  formField,
  signIn,
  signInToken,
  signInTokenMatches,
  signOut,
} from "./session.js";

/** Where a signed-in person lands from / and after signing in without a `next`. */
export const HOME_PATH = "/runs";
/** A form with one key in it is tiny; anything bigger is not ours. */
const FORM_LIMIT = 16 * 1024;

export const signInPages = new Hono<AppEnv>();

signInPages.get("/", async (c) => {
  const viewer = await currentViewer(c);
  return c.redirect(viewer ? HOME_PATH : "/sign-in", 303);
});

signInPages.get("/sign-in", async (c) => {
  const viewer = await currentViewer(c);
  const next = safeNext(c.req.query("next"));
  if (viewer) return c.redirect(next, 303);
  return renderDocument(c, signInPage(signInToken(c), next), undefined);
});

signInPages.post("/sign-in", async (c) => {
  const form = await readForm(c);
  const next = safeNext(form ? formField(form, "next") : undefined);
  if (!form)
    return renderDocument(
      c,
      signInPage(signInToken(c), next, "the form could not be read: send it from the sign-in page", 400),
      undefined,
    );
  const token = formField(form, CSRF_FIELD);
  const refusal = csrfRefusal(c, signInTokenMatches(c, token) ? token : undefined, token);
  if (refusal) return renderDocument(c, signInPage(signInToken(c), next, refusal, 403), undefined);
  const key = formField(form, "api_key")?.trim() ?? "";
  if (key === "") return renderDocument(c, signInPage(signInToken(c), next, "enter an API key", 400), undefined);
  const viewer = await signIn(c, key);
  if (!viewer) return renderDocument(c, signInPage(signInToken(c), next, "unknown or revoked API key", 403), undefined);
  return c.redirect(next, 303);
});

signInPages.post("/sign-out", async (c) => {
  const viewer = await currentViewer(c);
  if (viewer) {
    const form = await readForm(c);
    const refusal = csrfRefusal(c, viewer.csrfToken, form ? formField(form, CSRF_FIELD) : undefined);
    if (refusal) {
      return renderDocument(
        c,
        {
          title: "Not signed out",
          status: 403,
          body: (
            <>
              <h1>Not signed out</h1>
              <Notice kind="error">{`${refusal}.`}</Notice>
            </>
          ),
        },
        viewer,
      );
    }
    await signOut(c);
  }
  return c.redirect("/sign-in", 303);
});

/** The form body, or undefined when it is too big or not a form. */
export async function readForm(c: DashboardContext): Promise<FormData | undefined> {
  const length = Number(c.req.header("content-length") ?? "0");
  if (!Number.isFinite(length) || length > FORM_LIMIT) return undefined;
  const type = c.req.header("content-type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) return undefined;
  return c.req.formData().catch(() => undefined);
}

/**
 * Only a path on this site: never another origin (//host, /\\host) and never a scheme. Browsers drop
 * tabs and newlines inside a URL ("/\t/host" is "//host"), so only plain URL characters pass.
 */
export function safeNext(next: string | undefined): string {
  if (
    next === undefined ||
    !/^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*$/.test(next) ||
    next.startsWith("//") ||
    next.startsWith("/sign-")
  )
    return HOME_PATH;
  return next;
}

function signInPage(token: string, next: string, problem?: string, status: 400 | 403 = 400): PageResult {
  return {
    title: "Sign in",
    status: problem ? status : 200,
    body: (
      <>
        <h1>Sign in</h1>
        <p class="lede">
          Sign in with a toolproof API key. The key is checked once; the browser then holds only a session cookie, never
          the key.
        </p>
        {problem ? <Notice kind="error">{`Not signed in: ${problem}.`}</Notice> : null}
        <form class="stack" method="post" action="/sign-in">
          <input type="hidden" name={CSRF_FIELD} value={token} />
          <input type="hidden" name="next" value={next} />
          <div>
            <label for="api_key">API key</label>
            <input
              id="api_key"
              name="api_key"
              type="password"
              autocomplete="off"
              required
              aria-describedby="api_key_hint"
              size={48}
            />
            <p class="hint" id="api_key_hint">
              Starts with <code>tpk_</code>. <code>npm start</code> prints one for the local demo tenant.
            </p>
          </div>
          <div>
            <button class="primary" type="submit">
              Sign in
            </button>
          </div>
        </form>
      </>
    ),
  };
}
