/**
 * The runtime's V8 inspector (workerd's, opened with Miniflare's inspectorPort), for one number:
 * how much JavaScript heap each isolate still holds after a full garbage collection.
 *
 * workerd answers no HeapProfiler.collectGarbage, but a heap snapshot collects first, so a
 * snapshot (streamed, counted, discarded) followed by Runtime.getHeapUsage is the heap that is
 * really retained, not whatever V8 has not swept yet. Miniflare lists its own workers too (the
 * local D1, queue broker and entry workers), which is how a benchmark tells the service's heap
 * from the local simulators'.
 */
import { field } from "../../local/narrow.js";

export interface IsolateHeap {
  /** The inspector target's id: "core:user:<worker>" for a Worker, other prefixes for Miniflare's own. */
  isolate: string;
  /** Heap in use before the collection, MiB: live objects and garbage V8 has not swept yet. */
  used_before_mb: number;
  /** Heap in use after the collection, MiB: what the isolate really retains. */
  used_mb: number;
  /** What V8 has reserved for the heap, MiB (it grows under load and shrinks slowly). */
  total_mb: number;
}

interface Target {
  id: string;
  url: string;
}

const SNAPSHOT_TIMEOUT_MS = 60_000;

async function targets(port: number): Promise<Target[]> {
  const list: unknown = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
  const found: Target[] = [];
  for (const entry of Array.isArray(list) ? list : []) {
    const id = field(entry, "id");
    const url = field(entry, "webSocketDebuggerUrl");
    if (typeof id === "string" && typeof url === "string") found.push({ id, url });
  }
  return found;
}

/** Collects the isolate's garbage (through a heap snapshot) and reads its heap. */
async function heapAfterCollection(target: Target): Promise<IsolateHeap> {
  const socket = new WebSocket(target.url);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.addEventListener("message", (event: MessageEvent) => {
    const message: unknown = JSON.parse(String(event.data));
    const id = field(message, "id");
    // Snapshot chunks arrive as events without an id and are dropped: only the collection matters.
    if (typeof id === "number") waiting.get(id)?.(field(message, "result") ?? field(message, "error") ?? null);
  });
  const send = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(
        () => reject(new Error(`${target.id}: no answer to ${method} in ${SNAPSHOT_TIMEOUT_MS} ms`)),
        SNAPSHOT_TIMEOUT_MS,
      );
      waiting.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      socket.send(JSON.stringify({ id, method, params }));
    });
  const mb = (usage: unknown, key: string) => Math.round((Number(field(usage, key) ?? 0) / 1024 / 1024) * 10) / 10;
  try {
    const before = await send("Runtime.getHeapUsage");
    await send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
    const after = await send("Runtime.getHeapUsage");
    return {
      isolate: target.id,
      used_before_mb: mb(before, "usedSize"),
      used_mb: mb(after, "usedSize"),
      total_mb: mb(after, "totalSize"),
    };
  } finally {
    socket.close();
  }
}

/** Every isolate's heap after a collection, in the inspector's order. */
export async function isolateHeaps(port: number): Promise<IsolateHeap[]> {
  const heaps: IsolateHeap[] = [];
  for (const target of await targets(port)) heaps.push(await heapAfterCollection(target));
  return heaps;
}
