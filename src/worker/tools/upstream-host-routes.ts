/**
 * The tenant's allowlist of upstream hosts a real-tools run may call, with an API key holding
 * AIManager:Admin: GET /api/upstream-hosts, PUT /api/upstream-hosts {"hosts": [...]} (replaces the
 * list). An entry is a host name (`api.example.com`), `*.example.com` for its subdomains, or an IP
 * address, spelled as the URL parser spells a host (`127.0.0.1`, not `127.1`: anything else could
 * never match); ports are not part of it. An empty list (the default) allows no real call at all.
 */
import { Hono } from "hono";
import { z } from "zod";
import { listUpstreamHosts, replaceUpstreamHosts } from "../../adapters/d1/upstreams.js";
import { allowlistEntryProblem } from "../../core/tools/upstream.js";
import type { AppEnv } from "../platform/env.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { requirePermission } from "../http/auth.js";

const HOST =
  /^(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$|^[0-9a-f:]{2,39}$/;
export const hostsRequest = z.strictObject({
  hosts: z
    .array(
      z
        .string()
        .max(253)
        .transform((host) => host.toLowerCase())
        .refine(
          (host) => HOST.test(host),
          "expected a host name (api.example.com), *.example.com, or an IP address, without scheme, port or path",
        )
        .superRefine((host, context) => {
          // Only entries of the right shape: one problem per entry.
          const problem = HOST.test(host) ? allowlistEntryProblem(host) : null;
          if (problem !== null) context.addIssue({ code: "custom", message: problem });
        }),
    )
    .max(200, "expected at most 200 hosts"),
});

export const upstreamHostRoutes = new Hono<AppEnv>();
upstreamHostRoutes.use("*", requirePermission("AIManager:Admin"));

upstreamHostRoutes.get("/", async (c) =>
  c.json({ hosts: await listUpstreamHosts(c.var.db, c.var.principal.tenantId) }),
);

upstreamHostRoutes.put("/", async (c) => {
  const body = await readBodyWithHints(c, hostsRequest, 64 * 1024);
  const hosts = [...new Set(body.hosts)].sort();
  await replaceUpstreamHosts(c.var.db, c.var.principal.tenantId, hosts, c.var.principal.keyId);
  return c.json({ hosts });
});
