/** @jsxImportSource hono/jsx */
/** The frame of every dashboard page: skip link, site header with nav and sign-out, the page's main. */
import type { Child } from "hono/jsx";
import { CsrfField } from "./components.js";
import { FAVICON_PATH } from "./favicon.js";
import { STYLESHEET_PATH } from "./styles.js";

/** The nav's sections; a page names the one it belongs to so the link is marked current. */
export type Section = "runs" | "tools" | "policies" | "judges" | "datasets";

const NAV: ReadonlyArray<{ section: Section; label: string; href: string }> = [
  { section: "runs", label: "Runs", href: "/runs" },
  { section: "tools", label: "Tools", href: "/tools" },
  { section: "policies", label: "Policies", href: "/policies" },
  { section: "judges", label: "Judges", href: "/judges" },
  { section: "datasets", label: "Datasets", href: "/datasets" },
];

interface LayoutProps {
  title: string;
  section?: Section;
  /** Present when someone is signed in: the nav and the sign-out form are shown. */
  signedIn?: { tenantName: string; csrfToken: string };
  /** Set only on a page that changes while it is read (a live run): reload every this many seconds. */
  refreshSeconds?: number;
  children: Child;
}

export function Layout(props: LayoutProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {props.refreshSeconds !== undefined ? (
          <meta http-equiv="refresh" content={String(props.refreshSeconds)} />
        ) : null}
        <title>{`${props.title} · toolproof`}</title>
        <link rel="icon" href={FAVICON_PATH} type="image/x-icon" />
        <link rel="stylesheet" href={STYLESHEET_PATH} />
      </head>
      <body>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="site">
          <div class="bar">
            <a class="brand" href="/">
              toolproof
            </a>
            {props.signedIn ? (
              <nav class="main" aria-label="Main">
                <ul>
                  {NAV.map((item) => (
                    <li>
                      <a href={item.href} aria-current={item.section === props.section ? "page" : undefined}>
                        {item.label}
                      </a>
                    </li>
                  ))}
                  <li>
                    <form method="post" action="/sign-out">
                      <CsrfField token={props.signedIn.csrfToken} />
                      <button type="submit">Sign out</button>
                    </form>
                  </li>
                </ul>
              </nav>
            ) : null}
            {props.signedIn ? <span class="tenant">Tenant {props.signedIn.tenantName}</span> : null}
          </div>
        </header>
        <main id="main" tabindex={-1}>
          {props.children}
        </main>
      </body>
    </html>
  );
}
