/**
 * A throwaway Worker whose one Durable Object class does, in SQL, what an attempt object's storage
 * does and nothing else: no toolproof code runs, so what it costs per live object is the storage
 * layout's share of an attempt's memory. The memory-layout probe runs it once per layout.
 *
 * Each object's first call runs `setup` (each entry one `sql.exec`, as storage.ts runs them) and,
 * when `alarm` is set, sets an alarm an hour ahead, as an attempt's lease does; every call then
 * runs `call`. `?o=<n>` picks the object.
 */
import { startProbeWorker } from "./probe-worker.js";
import type { WrkRequest } from "../wrk.js";

export interface Layout {
  name: string;
  /** Statements run once per object; a statement is SQL text and the names of its bindings. */
  setup: readonly Statement[];
  call: readonly Statement[];
  alarm: boolean;
  /** Bytes of the text bound as `{setup}` (an attempt's setup row). */
  setupBytes: number;
}

export interface Statement {
  sql: string;
  /** Values bound in order: "{setup}", "{row}" and "{seq}" stand for the texts above, anything else is itself. */
  bind?: readonly (string | number | null)[];
}

const WORKER = "layout";

function script(layout: Layout): string {
  return `
import { DurableObject } from "cloudflare:workers";
const LAYOUT = ${JSON.stringify(layout)};
const SETUP = "x".repeat(LAYOUT.setupBytes);
const ROW = JSON.stringify({ tool: "patients", arguments: { patient_id: "P-0042" }, result: { patient_id: "P-0042", name: "Ada Lovelace", status: "active" } });
export class Probe extends DurableObject {
  constructor(ctx, env) {
    super(ctx, env);
    this.calls = 0;
  }
  run(statements) {
    for (const s of statements) {
      const values = (s.bind ?? []).map((v) => (v === "{setup}" ? SETUP : v === "{row}" ? ROW : v === "{seq}" ? this.calls : v));
      this.ctx.storage.sql.exec(s.sql, ...values).toArray();
    }
  }
  call() {
    this.calls++;
    if (this.calls === 1) {
      this.ctx.storage.transactionSync(() => this.run(LAYOUT.setup));
      if (LAYOUT.alarm) this.ctx.storage.setAlarm(Date.now() + 3600000);
    }
    this.run(LAYOUT.call);
    return this.calls;
  }
  alarm() {}
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const stub = env.PROBE.get(env.PROBE.idFromName(url.searchParams.get("o") ?? "0"));
    return new Response(JSON.stringify({ calls: await stub.call() }), { headers: { "content-type": "application/json" } });
  },
};`;
}

export interface LayoutServer {
  url: string;
  stop(): Promise<void>;
  /** One request per object. */
  requests(objects: number): WrkRequest[];
}

/** Starts the layout's Worker, every object kept loaded however long it idles, its state in a fresh directory under `stateParent`. */
export async function startLayout(stateParent: string, layout: Layout): Promise<LayoutServer> {
  const probe = await startProbeWorker({
    name: WORKER,
    script: script(layout),
    binding: "PROBE",
    className: "Probe",
    stateParent,
    preventEviction: true,
  });
  return {
    url: probe.url,
    stop: probe.stop,
    requests: (objects) => Array.from({ length: objects }, (_, o) => ({ method: "GET", path: `/call?o=${o}` })),
  };
}
