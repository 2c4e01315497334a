/** Runs the project's npm-script entry points (scripts/*.ts) as child processes, the way npm runs them. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Starts `node --import tsx scripts/<script> ...args` in the project root, as the npm scripts do:
 * one process, so signals reach the script itself.
 */
export function spawnScript(
  script: string,
  args: readonly string[],
  env: Record<string, string> = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", script), ...args], {
    cwd: ROOT,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0", ...env },
  });
}

/** Runs a script to completion, killing it after `timeoutMs`. */
export function runScript(script: string, args: readonly string[], timeoutMs = 120_000): Promise<Finished> {
  const child = spawnScript(script, args);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Parses a JSON document a script printed, failing with its output when it is not JSON. */
export function jsonOutput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`expected JSON, got:\n${text}`);
  }
}

/**
 * A child process to its end, with only PATH and `env` in its environment. Never spawnSync in a
 * test whose server's Miniflare shares this process: a blocked event loop could stall the very
 * request the child waits for.
 */
export function finished(command: string, args: string[], env: Record<string, string>): Promise<Finished> {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
