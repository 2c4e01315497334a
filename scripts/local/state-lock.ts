/**
 * One server per state directory. Two servers on the same files would each run their own copy
 * of every Durable Object (an attempt's state and evidence would split in two), so a start takes
 * a lock file and refuses while another live process holds it. The admin CLI takes no lock: it
 * only touches D1, whose SQLite locking makes sharing safe.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { field } from "./narrow.js";

export class StateDirInUseError extends Error {}

export interface StateLock {
  release(): void;
}

export function lockStateDir(stateDir: string, holder: string): StateLock {
  const file = path.join(stateDir, "server.lock");
  const content = `${JSON.stringify({ pid: process.pid, holder, since: new Date().toISOString() })}\n`;
  for (let tries = 0; tries < 2; tries++) {
    try {
      // "wx" fails when the file exists: creating it is the test-and-set.
      writeFileSync(file, content, { flag: "wx" });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        process.removeListener("exit", release);
        // Only remove our own lock (a later holder may have replaced a lock we thought stale).
        if (ownerPid(file) === process.pid) rmSync(file, { force: true });
      };
      process.on("exit", release);
      return { release };
    } catch (error) {
      if (!(error instanceof Error) || !("code" in error) || error.code !== "EEXIST") throw error;
      const pid = ownerPid(file);
      if (pid !== undefined && isAlive(pid)) {
        throw new StateDirInUseError(
          `${stateDir} is in use by another toolproof server (pid ${pid}: ${holderOf(file)}); stop it, or use another --state-dir`,
        );
      }
      // The holder is gone (killed without cleaning up): the lock is stale.
      rmSync(file, { force: true });
    }
  }
  throw new StateDirInUseError(`could not lock ${stateDir}`);
}

function readLock(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

function ownerPid(file: string): number | undefined {
  const pid = field(readLock(file), "pid");
  return typeof pid === "number" && Number.isInteger(pid) ? pid : undefined;
}

function holderOf(file: string): string {
  const holder = field(readLock(file), "holder");
  return typeof holder === "string" ? holder : "unknown";
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else; still alive.
    return error instanceof Error && "code" in error && error.code === "EPERM";
  }
}
