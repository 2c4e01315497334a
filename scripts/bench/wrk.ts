/**
 * Load from wrk (a C load generator: one thread, keep-alive, no pipelining), with the server and
 * the load on separate cores where the machine has two or more. A load generator written in
 * JavaScript on the same cores as the server measured the generator: autocannon on this 2-core VM
 * reported 2,400 req/s for a route wrk drove at 5,100.
 *
 * Loopback only: every URL is checked before any request is sent.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

export interface Load {
  /** Requests wrk saw completed (any status). */
  requests: number;
  seconds: number;
  requests_per_second: number;
  p50_ms: number;
  p99_ms: number;
  /** Completed with a status outside 2xx/3xx. */
  non_2xx: number;
  /** Connect, read, write errors and timeouts. */
  errors: number;
}

/** One request as wrk sends it. Header names are written as given: send "Host", never "host". */
export interface WrkRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export function requireWrk(): void {
  try {
    execFileSync("wrk", ["--version"], { stdio: "ignore" });
  } catch (error) {
    // wrk --version exits 1 after printing its version; only a missing binary is a problem.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error(
        "the dispatch benchmarks drive load with wrk, which is not installed (Debian/Ubuntu: apt-get install wrk; macOS: brew install wrk)",
      );
    }
  }
}

export function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "[::1]")
    throw new Error(`refusing to load ${url}: the benchmarks run on loopback only`);
}

/** Cores for the server and for wrk: separate when there are two or more, and taskset exists. */
export interface CorePlan {
  server: number | null;
  load: number | null;
  note: string;
}

export function planCores(): CorePlan {
  const cores = os.availableParallelism();
  let taskset = true;
  try {
    execFileSync("taskset", ["--version"], { stdio: "ignore" });
  } catch {
    taskset = false;
  }
  if (cores < 2 || !taskset || process.platform !== "linux") {
    return {
      server: null,
      load: null,
      note: `server and load share ${cores} core(s) (no taskset or one core): figures include the load generator's own CPU`,
    };
  }
  return { server: 0, load: 1, note: `server on core 0, wrk on core 1 (of ${cores})` };
}

/** Pins this process and every thread in it (children started later inherit it: the workerd a benchmark starts). */
export function pinThisProcess(core: number | null): void {
  if (core === null) return;
  execFileSync("taskset", ["-a", "-p", "-c", String(core), String(process.pid)], { stdio: "ignore" });
}

function luaString(text: string): string {
  return JSON.stringify(text); // a JSON string literal is a valid Lua string literal for this text (ASCII, escapes \" \\ \n)
}

/**
 * A wrk script that sends the given requests round-robin and prints a JSON summary at the end.
 * Exported for the benchmarks' own use; the Lua API is wrk 4's (wrk.format, request, done).
 */
export function roundRobinScript(requests: readonly WrkRequest[]): string {
  const entries = requests.map((r) => {
    const headers = Object.entries(r.headers ?? {})
      .map(([name, value]) => `[${luaString(name)}]=${luaString(value)}`)
      .join(", ");
    return `  wrk.format(${luaString(r.method)}, ${luaString(r.path)}, {${headers}}, ${r.body === undefined ? "nil" : luaString(r.body)}),`;
  });
  return `local requests = {}
local counter = 0
init = function(args)
  requests = {
${entries.join("\n")}
  }
end
request = function()
  counter = counter + 1
  return requests[((counter - 1) % #requests) + 1]
end
done = function(summary, latency, _)
  local e = summary.errors
  io.write(string.format('\\nTOOLPROOF_WRK {"requests":%d,"micros":%d,"p50":%d,"p99":%d,"status":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
`;
}

export interface WrkRun {
  url: string;
  requests: readonly WrkRequest[];
  seconds: number;
  connections: number;
  core: number | null;
}

/** Runs wrk once and reads the JSON line its script prints. */
export async function runWrk(run: WrkRun): Promise<Load> {
  assertLoopback(run.url);
  const dir = await mkdtemp(path.join(os.tmpdir(), "toolproof-wrk-"));
  try {
    const script = path.join(dir, "load.lua");
    await writeFile(script, roundRobinScript(run.requests));
    const args = ["-t1", `-c${run.connections}`, `-d${run.seconds}s`, "--timeout", "30s", "-s", script, run.url];
    const [command, commandArgs] =
      run.core === null ? ["wrk", args] : ["taskset", ["-c", String(run.core), "wrk", ...args]];
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(command, commandArgs, { stdio: ["ignore", "pipe", "pipe"] });
      let text = "";
      child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.stderr.on("data", (chunk: Buffer) => (text += chunk.toString()));
      child.on("error", reject);
      child.on("close", (code) =>
        code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}: ${text.trim()}`)),
      );
    });
    const line = output.split("\n").find((l) => l.startsWith("TOOLPROOF_WRK "));
    if (!line) throw new Error(`wrk printed no summary: ${output.trim()}`);
    const raw = JSON.parse(line.slice("TOOLPROOF_WRK ".length)) as {
      requests: number;
      micros: number;
      p50: number;
      p99: number;
      status: number;
      errors: number;
    };
    const seconds = raw.micros / 1e6;
    return {
      requests: raw.requests,
      seconds,
      requests_per_second: raw.requests / seconds,
      p50_ms: raw.p50 / 1000,
      p99_ms: raw.p99 / 1000,
      non_2xx: raw.status,
      errors: raw.errors,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
