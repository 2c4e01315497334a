/**
 * Which part of an attempt's storage layout costs how much resident memory per live object (issue
 * 21 item 6: toolproof's memory per live attempt against the runtime's floor). A probe, not a
 * benchmark of toolproof: each layout is a Worker with no toolproof code whose Durable Object runs
 * the SQL an attempt's storage runs (support/layout-worker.ts), one thing added at a time, each on
 * a fresh server with every object kept loaded, read as `npm run bench:memory` reads it.
 *
 *   node --import tsx scripts/bench/memory-layout.ts [--objects 1000] [--only floor,tables] [--json]
 *
 * Layouts, each the one before plus one thing:
 *   floor        bench:memory's floor: one table, one row per call
 *   tables       the attempt's tables as MIGRATIONS makes them (each statement its own exec), its
 *                setup row, and one evidence row per call
 *   statements   plus every other statement an attempt runs to load, answer and flush a call
 *   alarm        plus the lease alarm: the attempt's storage, all of it (before this change)
 * and two that take one thing away again from `alarm`:
 *   small-setup  a 200-byte setup row instead of SETUP_BYTES
 *   current      the schema storage.ts makes for a new attempt now (freshSchema: one statement, only
 *                the tables the setup needs, text keys WITHOUT ROWID)
 */
import os from "node:os";
import { freshSchema, MIGRATIONS } from "../../src/worker/attempts/storage.js";
import { EVIDENCE_COLUMNS } from "../../src/core/simulation/evidence.js";
import { listFlag, positiveFlag, stringFlag } from "./flags.js";
import { type Layout, type Statement, startLayout } from "./support/layout-worker.js";
import { liveReading, onlyNewWorkerd, readMemory, type Side, side } from "./support/live-memory.js";
import { ownWorkerdPids } from "./support/process-memory.js";
import { runBenchmark } from "./support/toolproof-api.js";

const OBJECTS = positiveFlag("objects", 1000, true);
const AS_JSON = process.argv.includes("--json");
const STATE_PARENT = stringFlag("state-parent") ?? os.tmpdir();
/** About the size of the setup row of bench:memory's small tool (one operation, its schemas and definition). */
const SETUP_BYTES = positiveFlag("setup-bytes", 2500, true);

const s = (sql: string, ...bind: (string | number | null)[]): Statement => ({ sql, bind });

const OPEN = s(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('attempt', 'meta')`);
const HAS_META = s(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`, "meta");
const META = [
  s(`CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), schema_version INTEGER NOT NULL)`),
  s(
    `INSERT INTO meta (id, schema_version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET schema_version = excluded.schema_version`,
    MIGRATIONS.length,
  ),
];
/** The attempt row and its setup (a table of its own since version 7). */
const INSERT_ATTEMPT = [
  s(`INSERT INTO attempt (id, status, expires_at) VALUES (1, 'active', ?)`, Date.now()),
  s(`INSERT INTO attempt_setup (id, setup) VALUES (1, ?)`, "{setup}"),
];
const INSERT_CALL = s(
  `INSERT INTO calls (${EVIDENCE_COLUMNS.join(", ")}) VALUES (${EVIDENCE_COLUMNS.map(() => "?").join(", ")})`,
  "{seq}",
  null,
  "patients",
  "get_patient",
  1,
  "found",
  null,
  '{"patient_id":"P-0042"}',
  "result",
  "{row}",
  null,
  0,
  "2026-12-05T09:00:00.000Z",
  null,
  null,
);
/** What an attempt runs besides its schema and inserts: loading itself, and flushing a call to D1. */
const OTHER = [
  OPEN,
  s(`SELECT schema_version FROM meta`),
  s(
    `SELECT (SELECT setup FROM attempt_setup) AS setup, status, expires_at, lease_ended, completion, (SELECT max(seq) FROM calls) AS max_seq FROM attempt`,
  ),
  s(
    `SELECT (SELECT count(*) FROM calls WHERE seq > attempt.flushed_seq) + (attempt.changes > attempt.flushed_changes) AS pending FROM attempt`,
  ),
  s(`SELECT flushed_seq, changes, flushed_changes, completion FROM attempt`),
  s(`SELECT ${EVIDENCE_COLUMNS.join(", ")} FROM calls WHERE seq > ? ORDER BY seq LIMIT ?`, 0, 100),
  s(`UPDATE attempt SET flushed_seq = max(flushed_seq, ?), flushed_changes = max(flushed_changes, ?)`, "{seq}", 0),
];

const historySchema = MIGRATIONS.flatMap((step) => step.statements.map((sql) => s(sql)));

function layouts(): Layout[] {
  const floor: Layout = {
    name: "floor",
    setup: [s(`CREATE TABLE IF NOT EXISTS calls (seq INTEGER PRIMARY KEY, body TEXT NOT NULL)`)],
    call: [s(`INSERT INTO calls (body) VALUES (?)`, "{row}")],
    alarm: false,
    setupBytes: 0,
  };
  const tables: Layout = {
    name: "tables",
    setup: [OPEN, HAS_META, ...historySchema, ...META, ...INSERT_ATTEMPT],
    call: [INSERT_CALL],
    alarm: false,
    setupBytes: SETUP_BYTES,
  };
  const statements: Layout = { ...tables, name: "statements", call: [...OTHER, INSERT_CALL] };
  const alarm: Layout = { ...statements, name: "alarm", alarm: true };
  return [
    floor,
    tables,
    statements,
    alarm,
    { ...alarm, name: "small-setup", setupBytes: 200 },
    {
      ...alarm,
      name: "current",
      setup: [OPEN, s(freshSchema({ forwards: false, datasetRecords: false })), ...INSERT_ATTEMPT],
    },
  ];
}

function progress(line: string): void {
  process.stderr.write(`… ${line}\n`);
}

async function measure(layout: Layout): Promise<Side> {
  const before = await ownWorkerdPids();
  const server = await startLayout(STATE_PARENT, layout);
  try {
    const pid = await onlyNewWorkerd(before);
    const idle = await readMemory(pid);
    const live = await liveReading(pid, server.url, server.requests(OBJECTS), 2);
    progress(`${layout.name}: idle ${JSON.stringify(idle)}, live ${JSON.stringify(live)}`);
    return side(idle, live);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const results: Record<string, Side> = {};
  const all = layouts();
  // Checked before anything starts: a misspelt layout is an error, not a run that measures nothing.
  const only = listFlag(
    "only",
    all.map((layout) => layout.name),
  );
  for (const layout of all) {
    if (only.length > 0 && !only.includes(layout.name)) continue;
    results[layout.name] = await measure(layout);
  }
  if (AS_JSON) {
    console.log(JSON.stringify({ objects: OBJECTS, setup_bytes: SETUP_BYTES, results }, null, 2));
    return;
  }
  console.log(`resident memory per live Durable Object by storage layout, ${OBJECTS} objects each`);
  const floor = results.floor?.rss_mb_per_object;
  for (const [name, r] of Object.entries(results))
    console.log(
      `${name.padEnd(12)} ${r.rss_mb_per_object.toFixed(3)} MiB/object (anon ${r.anon_mb_per_object.toFixed(3)}), ${r.live_objects} live` +
        (floor ? `, ${(r.rss_mb_per_object / floor).toFixed(2)} × floor` : ""),
    );
}

runBenchmark(main);
