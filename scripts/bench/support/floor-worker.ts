/**
 * The durable floor under dispatch: a throwaway Worker with no toolproof code in it, doing the
 * steps every dispatch must take, on the same runtime toolproof runs on. Its three routes:
 *   /bare   a Worker route that answers at once
 *   /rpc    one Durable Object RPC that only reads memory
 *   /write  the same RPC plus one SQLite INSERT of an evidence-sized row (one durable commit)
 * `?o=<n>` picks the object, so a benchmark can go round-robin over as many objects as toolproof's
 * attempts. The row is about the size of one call's evidence (arguments and result).
 */
import { startProbeWorker } from "./probe-worker.js";
import type { WrkRequest } from "../wrk.js";

const script = `
import { DurableObject } from "cloudflare:workers";
export class Probe extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS calls (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    this.calls = 0;
  }
  read(n) { this.calls++; return "ok " + n; }
  write(n) { this.calls++; this.ctx.storage.sql.exec("INSERT INTO calls (body) VALUES (?)", ROW + n); return "ok " + n; }
}
const ROW = JSON.stringify({ tool: "patients", arguments: { patient_id: "P-0042" }, result: { patient_id: "P-0042", name: "Ada Lovelace", status: "active" } });
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/bare") return new Response('{"ok":true}', { headers: { "content-type": "application/json" } });
    const stub = env.PROBE.get(env.PROBE.idFromName(url.searchParams.get("o") ?? "0"));
    const answer = url.pathname === "/write" ? await stub.write(1) : await stub.read(1);
    return new Response(JSON.stringify({ answer }), { headers: { "content-type": "application/json" } });
  },
};`;

export type FloorRoute = "bare" | "rpc" | "write";

export interface FloorServer {
  url: string;
  stateDir: string;
  stop(): Promise<void>;
  /** One request per object, round-robin order, for wrk. */
  requests(route: FloorRoute, objects: number): WrkRequest[];
}

/** The worker's name, which is also its inspector target's suffix ("core:user:floor"). */
export const FLOOR_WORKER = "floor";

/** Starts the floor Worker with its state in a fresh directory under `stateParent`. */
export async function startFloor(
  stateParent: string,
  inspectorPort?: number,
  /** Keep every object loaded however long it idles (the memory benchmark). */
  preventEviction = false,
): Promise<FloorServer> {
  const probe = await startProbeWorker({
    name: FLOOR_WORKER,
    script,
    binding: "PROBE",
    className: "Probe",
    stateParent,
    preventEviction,
    ...(inspectorPort === undefined ? {} : { inspectorPort }),
  });
  const host = new URL(probe.url).host;
  return {
    ...probe,
    requests: (route, objects) =>
      Array.from({ length: objects }, (_, o) => ({
        method: "GET",
        path: `/${route}?o=${o}`,
        headers: { Host: host },
      })),
  };
}
