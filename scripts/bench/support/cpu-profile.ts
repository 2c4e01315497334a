/**
 * A CPU profile of one Worker's isolate through workerd's V8 inspector (Miniflare's inspectorPort):
 * the sampling profiler runs while `during` runs, and the samples are summed per function (self
 * time). workerd runs a Worker, its Durable Objects, and the runtime's own work for them (HTTP,
 * RPC, SQLite) on one thread, so the native time spent under a JavaScript call is counted to that
 * call; time outside any JavaScript shows as "(program)", and garbage collection as
 * "(garbage collector)".
 */
import { writeFile } from "node:fs/promises";
import { field } from "../../local/narrow.js";

export interface ProfileLine {
  /** Function name and where it is ("name file:line"), or V8's own pseudo-entries. */
  what: string;
  /** Share of all samples, idle excluded. */
  share: number;
  self_ms: number;
}

export interface ProfileSummary {
  /** Sampled time the isolate's thread was busy (idle excluded), ms. */
  busy_ms: number;
  top: ProfileLine[];
}

const SAMPLING_US = 200;
const MAX_SAMPLE_US = 2 * SAMPLING_US;

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

/** Every inspector target's id (Miniflare's own isolates beside "core:user:<worker>"). */
export async function inspectorTargets(port: number): Promise<string[]> {
  const list: unknown = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  return (Array.isArray(list) ? list : []).map((entry) => String(field(entry, "id")));
}

async function targetUrl(port: number, target: string): Promise<string> {
  const list: unknown = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  for (const entry of Array.isArray(list) ? list : []) {
    const id = field(entry, "id");
    const url = field(entry, "webSocketDebuggerUrl");
    if (id === target && typeof url === "string") return url;
  }
  throw new Error(`no inspector target ${target} on port ${port}`);
}

/** Profiles the worker's isolate while `during` runs; writes the raw .cpuprofile (for Chrome's DevTools) when `file` is given. */
export async function profileWhile(
  port: number,
  worker: string,
  during: () => Promise<void>,
  file?: string,
): Promise<ProfileSummary> {
  return profileTargetWhile(port, `core:user:${worker}`, during, file);
}

/** The same for any inspector target, named by its id (e.g. Miniflare's "assets:router:<worker>"). */
export async function profileTargetWhile(
  port: number,
  target: string,
  during: () => Promise<void>,
  file?: string,
): Promise<ProfileSummary> {
  const socket = new WebSocket(await targetUrl(port, target));
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let next = 1;
  const waiting = new Map<number, (message: unknown) => void>();
  socket.addEventListener("message", (event: MessageEvent) => {
    const message: unknown = JSON.parse(String(event.data));
    const id = field(message, "id");
    if (typeof id === "number") waiting.get(id)?.(message);
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      waiting.set(id, (message) => {
        const error = field(message, "error");
        if (error !== undefined) reject(new Error(`${method}: ${JSON.stringify(error)}`));
        else resolve(field(message, "result"));
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  try {
    await send("Profiler.enable");
    await send("Profiler.setSamplingInterval", { interval: SAMPLING_US });
    await send("Profiler.start");
    await during();
    const profile = field(await send("Profiler.stop"), "profile");
    if (file !== undefined) await writeFile(file, JSON.stringify(profile));
    return summarize(profile);
  } finally {
    socket.close();
  }
}

function summarize(profile: unknown): ProfileSummary {
  const nodes = field(profile, "nodes");
  const samples = field(profile, "samples");
  const deltas = field(profile, "timeDeltas");
  if (!Array.isArray(nodes) || !Array.isArray(samples) || !Array.isArray(deltas))
    throw new Error("the inspector returned no profile");
  const byId = new Map<number, string>();
  for (const raw of nodes as Node[]) {
    const frame = raw.callFrame;
    const file = frame.url ? ` ${frame.url.split("/").pop()}:${frame.lineNumber + 1}` : "";
    byId.set(raw.id, `${frame.functionName || "(anonymous)"}${file}`);
  }
  const self = new Map<string, number>();
  let busy = 0;
  // timeDeltas[i] is the time before sample i; the time up to the next sample belongs to sample i.
  for (let i = 0; i < samples.length; i++) {
    const what = byId.get(Number(samples[i])) ?? "?";
    // A gap far longer than the sampling interval is the thread waiting for a core on a busy
    // machine, not work: each sample counts for at most MAX_SAMPLE_US.
    const micros = Math.min(Number(deltas[i + 1] ?? 0), MAX_SAMPLE_US);
    if (what === "(idle)") continue;
    busy += micros;
    self.set(what, (self.get(what) ?? 0) + micros);
  }
  const top = [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 30)
    .map(([what, micros]) => ({ what, share: busy > 0 ? micros / busy : 0, self_ms: micros / 1000 }));
  return { busy_ms: busy / 1000, top };
}
