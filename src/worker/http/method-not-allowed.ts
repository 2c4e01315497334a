/**
 * 405 for a path the app serves, asked with a method it does not take (RFC 9110 §15.5.6), with an
 * Allow header naming the ones it does. Without it such a request fell through to the 404 for an
 * unknown path, or, on an attempt's routes, to the API-key check, which refused the attempt's own
 * token: both send the client looking for the wrong mistake.
 *
 * It runs before any authentication. Which methods a path takes is no secret (GET /openapi.json
 * lists them all), and the method is the first thing wrong with such a request.
 */
import type { MiddlewareHandler } from "hono";
import { TrieRouter } from "hono/router/trie-router";
import { ApiError } from "./errors.js";

const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH"] as const;

interface Route {
  method: string;
  path: string;
}

/** The middleware, over the app's own route table (read at the first request, when every route is mounted). */
export function methodNotAllowed(routeTable: () => readonly Route[]): MiddlewareHandler {
  let router: TrieRouter<true> | undefined;
  return async (c, next) => {
    router ??= routerOf(routeTable());
    const table = router;
    const path = c.req.path;
    // Hono answers HEAD with the GET route.
    const method = c.req.method === "HEAD" ? "GET" : c.req.method;
    if (!takes(table, method, path)) {
      const allowed = METHODS.filter((other) => takes(table, other, path));
      if (allowed.length > 0)
        return new ApiError("method_not_allowed", `${path} takes ${allowed.join(", ")}, not ${c.req.method}`, {
          allowed,
        }).toResponse({ allow: allowed.join(", ") });
    }
    return next();
  };
}

function routerOf(routes: readonly Route[]): TrieRouter<true> {
  const router = new TrieRouter<true>();
  for (const route of routes) {
    // Middleware (app.use: every method, on a path ending in *) serves no path by itself.
    if (route.method === "ALL" && route.path.endsWith("*")) continue;
    // A handler for every method (the MCP endpoint) answers a wrong method itself.
    for (const method of route.method === "ALL" ? METHODS : [route.method]) router.add(method, route.path, true);
  }
  return router;
}

function takes(router: TrieRouter<true>, method: string, path: string): boolean {
  return router.match(method, path)[0].length > 0;
}
