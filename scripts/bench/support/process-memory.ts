/**
 * Memory of the workerd processes a benchmark started, read from Linux's /proc (null elsewhere).
 * Resident memory is what the operating system charges the runtime; anonymous mappings are its
 * heaps (V8's and the native allocator's), the rest is mostly the binary's own pages.
 */
import { readdir, readFile, readlink } from "node:fs/promises";

export interface ProcessMemory {
  rss_mb: number;
  anon_mb: number;
  /** SQLite files the process holds open: one per live Durable Object, plus the runtime's own few. */
  sqlite_files: number;
}

/** The workerd processes descended from this one (a benchmark's own runtime, not a neighbour's). */
export async function ownWorkerdPids(): Promise<number[]> {
  let entries: string[];
  try {
    entries = (await readdir("/proc")).filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const parents = new Map<number, number>();
  const workerd: number[] = [];
  for (const pid of entries) {
    try {
      const status = await readFile(`/proc/${pid}/status`, "utf8");
      const parent = /^PPid:\s+(\d+)/m.exec(status)?.[1];
      if (parent !== undefined) parents.set(Number(pid), Number(parent));
      if (/^Name:\s+workerd/m.test(status)) workerd.push(Number(pid));
    } catch {
      // the process ended between readdir and readFile
    }
  }
  const isOurs = (pid: number): boolean => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at))
      if (at === process.pid) return true;
    return false;
  };
  return workerd.filter(isOurs);
}

/** Resident memory of this benchmark's workerd processes together, in MiB; null when there is none or no /proc. */
export async function workerdRssMb(): Promise<number | null> {
  let kib = 0;
  for (const pid of await ownWorkerdPids()) {
    try {
      kib += Number(/^VmRSS:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kib > 0 ? kib / 1024 : null;
}

/** One process's resident and anonymous memory and its open SQLite files. */
export async function processMemory(pid: number): Promise<ProcessMemory> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const rss = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
  let sqlite = 0;
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    try {
      if ((await readlink(`/proc/${pid}/fd/${fd}`)).endsWith(".sqlite")) sqlite++;
    } catch {
      // closed meanwhile
    }
  }
  let anon = 0;
  let unnamed = false;
  for (const line of (await readFile(`/proc/${pid}/smaps`, "utf8")).split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \d+\s*(.*)$/.exec(line);
    if (header) {
      unnamed = (header[1] ?? "") === "";
      continue;
    }
    const resident = /^Rss:\s+(\d+) kB/.exec(line);
    if (resident && unnamed) anon += Number(resident[1]);
  }
  // One decimal: the benchmarks divide differences by a few hundred objects.
  return { rss_mb: Math.round(rss / 102.4) / 10, anon_mb: Math.round(anon / 102.4) / 10, sqlite_files: sqlite };
}

/**
 * CPU time (user + system, ms) the given processes have used so far, from /proc/<pid>/stat; null
 * without /proc. Read before and after a load, it is what the load cost the runtime, whatever
 * else the machine was doing meanwhile (where wall-clock figures on a shared machine are not).
 */
export async function cpuMs(pids: readonly number[]): Promise<number | null> {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const stat = await readFile(`/proc/${pid}/stat`, "utf8");
      // The fields after the command name (which may hold spaces) start at its closing parenthesis.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime and stime: fields 14 and 15 of stat
    } catch {
      return null;
    }
  }
  return pids.length > 0 ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : null;
}

/** Linux's USER_HZ, which /proc reports times in: 100 on every common build. */
const CLOCK_TICKS_PER_SECOND = 100;
