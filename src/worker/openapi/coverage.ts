/**
 * Which routes of the app the API document must describe, and which it leaves out on purpose.
 * test/docs/openapi.test.ts walks the app's route table (Hono's app.routes) with these rules.
 *
 * Documented: every route under /api/, plus the JSON routes outside it named below.
 * Left out: everything else, which is HTML for people rather than API: the dashboard's pages under
 * / (sign-in, runs, tools, ...), and the reference viewer itself (/docs, its script and assets).
 */

/** JSON routes outside /api that the document describes. */
const DOCUMENTED_OUTSIDE_API: readonly string[] = ["/health", "/openapi.json"];

/** Left out, named so a reader of the test sees them: the viewer's page and files (routes/docs.ts). */
export const VIEWER_ROUTES: readonly string[] = ["/docs", "/docs/init.js", "/docs/assets/:file"];

type RouteMethod = "get" | "post" | "put" | "delete" | "patch";

/** A route of the app the document must hold: `methods` are the methods it must hold for that path. */
interface RequiredRoute {
  path: string;
  methods: RouteMethod[];
}

/**
 * The routes a route table asks the document for. Middleware (app.use: method ALL on a path
 * ending in *) is no route. A handler for every method (app.all, the MCP endpoint) must be
 * documented for POST, the method its clients use; the others answer 405.
 */
export function requiredRoutes(routes: ReadonlyArray<{ method: string; path: string }>): RequiredRoute[] {
  const byPath = new Map<string, Set<RouteMethod>>();
  for (const route of routes) {
    if (route.method === "ALL" && route.path.endsWith("*")) continue;
    if (!isDocumentedPath(route.path)) continue;
    const methods = byPath.get(route.path) ?? new Set<RouteMethod>();
    methods.add(route.method === "ALL" ? "post" : (route.method.toLowerCase() as RouteMethod));
    byPath.set(route.path, methods);
  }
  return [...byPath].map(([path, methods]) => ({ path, methods: [...methods].sort() }));
}

export function isDocumentedPath(path: string): boolean {
  return path.startsWith("/api/") || DOCUMENTED_OUTSIDE_API.includes(path);
}
