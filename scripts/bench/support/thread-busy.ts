/**
 * How long the benchmark's own workerd has had its main thread on a CPU, from Linux's
 * /proc/<pid>/task/<pid>/schedstat (the first field: nanoseconds run). workerd runs every isolate,
 * Durable Object and SQLite database of a local instance on that one thread, so the difference
 * over a run is the run's whole work on it: a steadier measure of toolproof's own cost than wall
 * time, which also counts waiting. (Not quite independent of the model latency: the same run
 * costs the thread more per answer at 200 ms than at 1 ms, its wake-ups batched less.) null where
 * there is no /proc.
 */
import { readFile } from "node:fs/promises";
import { ownWorkerdPids } from "./process-memory.js";

export async function runtimeThreadBusyMs(): Promise<number | null> {
  const pids = await ownWorkerdPids();
  if (pids.length === 0) return null;
  let nanoseconds = 0;
  for (const pid of pids) {
    try {
      nanoseconds += Number((await readFile(`/proc/${pid}/task/${pid}/schedstat`, "utf8")).split(" ")[0]);
    } catch {
      return null;
    }
  }
  return Number.isFinite(nanoseconds) ? nanoseconds / 1e6 : null;
}

/** The busy time between two readings, per model answer: null when either reading is missing. */
export function busyPerAnswer(
  before: number | null,
  after: number | null,
  answers: number,
): { busy_ms: number; per_answer_ms: number } | null {
  if (before === null || after === null || answers <= 0) return null;
  const busy = after - before;
  return { busy_ms: Math.round(busy), per_answer_ms: Math.round((busy / answers) * 100) / 100 };
}

/** The line both conversation benchmarks print. */
export function busyLine(busy: { busy_ms: number; per_answer_ms: number }): string {
  return `  the runtime's thread was busy ${(busy.busy_ms / 1000).toFixed(2)} s, ${busy.per_answer_ms} ms per model answer`;
}
