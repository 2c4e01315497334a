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
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at)) if (at === process.pid) return true;
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
  return { rss_mb: Math.round(rss / 1024), anon_mb: Math.round(anon / 1024), sqlite_files: sqlite };
}
