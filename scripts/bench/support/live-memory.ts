/**
 * Resident memory per live Durable Object, as the memory benchmarks read it: workerd's memory once
 * its server is up (idle) and again once every object was called, and the SQLite files it holds
 * open, one per live object. Per live object = (live − idle) ÷ live objects (side); bench:memory
 * also reads the server with half of its objects live (halves), for the marginal cost per object.
 */
import type { WrkRequest } from "../wrk.js";
import { ownWorkerdPids, type ProcessMemory, processMemory } from "./process-memory.js";

export interface Side {
  idle: ProcessMemory;
  live: ProcessMemory;
  live_objects: number;
  rss_mb_per_object: number;
  anon_mb_per_object: number;
}

/** Calls in flight at once while objects are called. */
const CONCURRENCY = 32;

function progress(line: string): void {
  process.stderr.write(`… ${line}\n`);
}

/** workerd's memory now; the live objects are the SQLite files it holds open (one per object, counted before and after). */
export async function readMemory(pid: number): Promise<ProcessMemory> {
  const before = await processMemory(pid);
  const after = await processMemory(pid);
  // An object unloaded meanwhile would be counted as live but hold nothing.
  return { ...after, sqlite_files: Math.min(before.sqlite_files, after.sqlite_files) };
}

/** Calls every object `passes` times (a second call finds each object loaded, with its state), then reads. */
export async function liveReading(
  pid: number,
  url: string,
  requests: readonly WrkRequest[],
  passes: number,
): Promise<ProcessMemory> {
  await callPasses(url, requests, passes);
  return readMemory(pid);
}

/** Sends every request `passes` times, one pass after the other. */
export async function callPasses(url: string, requests: readonly WrkRequest[], passes: number): Promise<void> {
  for (let pass = 1; pass <= passes; pass++) {
    const started = performance.now();
    await callAll(url, requests);
    progress(`pass ${pass}: ${requests.length} calls in ${Math.round(performance.now() - started)} ms`);
  }
}

/** Sends every request once, CONCURRENCY at a time; fails on any answer outside 2xx. */
export async function callAll(url: string, requests: readonly WrkRequest[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < requests.length; i = next++) {
      const request = requests[i];
      if (!request) return;
      const { Host: _host, ...headers } = request.headers ?? {};
      const response = await fetch(`${url}${request.path}`, {
        method: request.method,
        headers,
        ...(request.body === undefined ? {} : { body: request.body }),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${request.method} ${request.path} answered ${response.status}: ${text}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

export function side(idle: ProcessMemory, live: ProcessMemory): Side {
  const objects = live.sqlite_files - idle.sqlite_files;
  const per = (key: "rss_mb" | "anon_mb") => Math.round(((live[key] - idle[key]) / Math.max(1, objects)) * 1000) / 1000;
  return {
    idle,
    live,
    live_objects: objects,
    rss_mb_per_object: per("rss_mb"),
    anon_mb_per_object: per("anon_mb"),
  };
}

/**
 * Three readings of one server: idle, with the first half of the objects live, with all of them.
 * The marginal figure is what the second half added per object it made live, so whatever the
 * process pays once (code compiled, a dataset parsed once per isolate, the allocators' high-water
 * marks from the first bursts of calls) falls on the first half and not on it; the average is the
 * whole run's, idle to all live, one-time costs included.
 */
export interface Halves {
  idle: ProcessMemory;
  half: ProcessMemory;
  full: ProcessMemory;
  /** Objects live at the end (SQLite files beyond the idle ones). */
  live_objects: number;
  /** Objects the second half made live. */
  marginal_objects: number;
  rss_mb_per_object_marginal: number;
  anon_mb_per_object_marginal: number;
  rss_mb_per_object_average: number;
  anon_mb_per_object_average: number;
}

export function halves(idle: ProcessMemory, half: ProcessMemory, full: ProcessMemory): Halves {
  const whole = side(idle, full);
  const second = side(half, full);
  return {
    idle,
    half,
    full,
    live_objects: whole.live_objects,
    marginal_objects: second.live_objects,
    rss_mb_per_object_marginal: second.rss_mb_per_object,
    anon_mb_per_object_marginal: second.anon_mb_per_object,
    rss_mb_per_object_average: whole.rss_mb_per_object,
    anon_mb_per_object_average: whole.anon_mb_per_object,
  };
}

/** The one workerd process started since `before` was listed. */
export async function onlyNewWorkerd(before: readonly number[]): Promise<number> {
  const pids = (await ownWorkerdPids()).filter((pid) => !before.includes(pid));
  const pid = pids[0];
  if (pids.length !== 1 || pid === undefined) throw new Error(`expected one new workerd process, found ${pids.length}`);
  return pid;
}
