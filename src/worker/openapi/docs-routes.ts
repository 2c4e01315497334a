/**
 * The API reference, public (no key): GET /openapi.json (the document, built at request time from
 * the routes' zod schemas: src/worker/openapi) and GET /docs (Swagger UI). The viewer's bundle
 * and styles are Workers static assets copied from the swagger-ui-dist package
 * (scripts/static-assets.ts), served here through the ASSETS binding, so the page loads nothing
 * but this origin's files and works offline. Its Content-Security-Policy says so to the browser too.
 */
import { Hono } from "hono";
import type { AppEnv } from "../platform/env.js";
import { notFound } from "../http/errors.js";
import { openApiDocument } from "./document.js";

const DOCS_ASSETS = ["swagger-ui-bundle.js", "swagger-ui.css"] as const;

/** Only this origin; inline styles because Swagger UI sets style attributes; data: for its inline icons. */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>toolproof API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<noscript><p>This reference needs JavaScript. The document itself is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** validatorUrl null: Swagger UI would otherwise send the document to an online validator. */
const INIT = `window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#reference", deepLinking: true, validatorUrl: null, tryItOutEnabled: false, persistAuthorization: false });\n`;

export const docsRoutes = new Hono<AppEnv>();

docsRoutes.get("/openapi.json", (c) => c.json(openApiDocument()));

docsRoutes.get("/docs", (c) => c.html(PAGE, 200, { "content-security-policy": DOCS_CSP }));

docsRoutes.get("/docs/init.js", (c) => c.body(INIT, 200, { "content-type": "text/javascript; charset=utf-8" }));

docsRoutes.get("/docs/assets/:file", async (c) => {
  const file = c.req.param("file");
  if (!(DOCS_ASSETS as readonly string[]).includes(file)) throw notFound("asset");
  const asset = await c.env.ASSETS.fetch(new URL(`/docs/assets/${file}`, c.req.url));
  if (!asset.ok) throw notFound("asset");
  return asset;
});
