/**
 * The attempt object's own SQLite: its schema, versioned and migrated on load, and every
 * statement the object runs. Everything here is synchronous on purpose (see attempt-object.ts:
 * a call's read → render → write must not await).
 *
 * Schema versions: the `meta` table records which migration steps an object's storage has had.
 * Objects live for the lease and a day after it, across deploys, so a column added in a later
 * version must reach objects that already exist: each load applies the steps the storage lacks,
 * in order, in one transaction. Objects created before versioning have the version-1 tables and
 * no `meta` table; they count as version 0 and migrate like any other.
 */
import {
  EVIDENCE_COLUMNS,
  evidenceRowOf,
  evidenceValues,
  REAL_CALL_COUNTS,
  type EvidenceRow,
  type RealCallCounts,
} from "../../core/simulation/evidence.js";
import { type AttemptSetup, withoutCheckedExamples } from "../../core/simulation/setup.js";
import type { AttemptStatus } from "../../core/simulation/status.js";
import { applyPending, schemaVersion, type Migration } from "../platform/object-schema.js";

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE IF NOT EXISTS attempt (
         id INTEGER PRIMARY KEY CHECK (id = 1),
         setup TEXT NOT NULL,
         status TEXT NOT NULL,
         expires_at INTEGER NOT NULL,
         lease_ended INTEGER NOT NULL DEFAULT 0,
         completion TEXT,
         changes INTEGER NOT NULL DEFAULT 0,
         flushed_seq INTEGER NOT NULL DEFAULT 0,
         flushed_changes INTEGER NOT NULL DEFAULT 0
       )`,
      `CREATE TABLE IF NOT EXISTS state (tool TEXT PRIMARY KEY, value TEXT NOT NULL)`,
      `CREATE TABLE IF NOT EXISTS calls (
         seq INTEGER PRIMARY KEY,
         call_id TEXT UNIQUE,
         tool TEXT NOT NULL,
         operation_id TEXT NOT NULL,
         revision INTEGER,
         variant TEXT,
         rule INTEGER,
         arguments TEXT NOT NULL,
         outcome TEXT NOT NULL,
         result TEXT,
         error TEXT,
         delay_ms INTEGER NOT NULL,
         at TEXT NOT NULL
       )`,
    ],
  },
  {
    // Each call that changed its tool's state records the state before and after it (evidence.ts StateChange).
    version: 2,
    statements: [`ALTER TABLE calls ADD COLUMN state_change TEXT`],
  },
  {
    // Real-tools runs: what a forwarded call's real handler answered (status, latency, contract violations).
    version: 3,
    statements: [`ALTER TABLE calls ADD COLUMN upstream TEXT`],
  },
  {
    // Real calls with a call_id handed out to the Worker and not recorded yet: a repeat of the
    // call_id meanwhile waits for that answer instead of reaching the real handler again.
    version: 4,
    statements: [
      `CREATE TABLE IF NOT EXISTS forwards (
         call_id TEXT PRIMARY KEY,
         tool TEXT NOT NULL,
         operation_id TEXT NOT NULL,
         arguments TEXT NOT NULL,
         deadline INTEGER NOT NULL
       )`,
    ],
  },
  {
    // Tools that start from a pinned dataset keep only the records their calls changed
    // (attempts/dataset-state.ts): one row per record, `whole` for a top-level value changed as a
    // whole (record ''), a NULL value for a record a call removed.
    version: 5,
    statements: [
      `CREATE TABLE IF NOT EXISTS dataset_records (
         tool TEXT NOT NULL,
         collection TEXT NOT NULL,
         whole INTEGER NOT NULL,
         record TEXT NOT NULL,
         value TEXT,
         PRIMARY KEY (tool, collection, whole, record)
       )`,
    ],
  },
  {
    // Nothing changes for an object that exists: version 6 is how a *new* attempt's storage is
    // made (freshSchema below), with only the tables its setup needs. Objects already at 5 keep
    // theirs, and an older one gets every table through the steps above, as before.
    version: 6,
    statements: [],
  },
  {
    // The setup (tens of KB once a tool has many operations: every pinned definition and schema)
    // gets a table of its own. Stored in the attempt row ahead of the status, the lease and the
    // flush marks, every read of those walked the setup's overflow pages to reach them, and every
    // update of them (a completion, a lease end, each flush) wrote the whole setup again.
    version: 7,
    statements: [
      `CREATE TABLE IF NOT EXISTS attempt_setup (id INTEGER PRIMARY KEY CHECK (id = 1), setup TEXT NOT NULL)`,
      `INSERT OR IGNORE INTO attempt_setup (id, setup) SELECT 1, setup FROM attempt`,
      `ALTER TABLE attempt DROP COLUMN setup`,
    ],
  },
];

/** The version a new attempt's storage is created at: the last step's. */
const CURRENT_VERSION = Math.max(...MIGRATIONS.map((step) => step.version));

/**
 * The schema of a new attempt, created in one statement at CURRENT_VERSION instead of replaying
 * every step (the same tables and columns as an object migrated to it), and only what its setup
 * needs: `forwards` only when an operation is real, `dataset_records` only when a tool starts from a
 * dataset. Every table keyed by text is WITHOUT ROWID, so its key is its only b-tree.
 *
 * Why: every live object keeps its own SQLite connection, with the parsed schema, the pages it
 * touched and each statement it ran compiled and cached by workerd (one cache per object). A
 * table or index an attempt never uses still costs it memory while it is live; so does each of
 * the migration steps' statements run one by one. docs/simulations.md ("Memory per live
 * attempt") has the measurements.
 */
export function freshSchema(needs: { forwards: boolean; datasetRecords: boolean }): string {
  const tables = [
    `CREATE TABLE IF NOT EXISTS attempt (
       id INTEGER PRIMARY KEY CHECK (id = 1),
       status TEXT NOT NULL,
       expires_at INTEGER NOT NULL,
       lease_ended INTEGER NOT NULL DEFAULT 0,
       completion TEXT,
       changes INTEGER NOT NULL DEFAULT 0,
       flushed_seq INTEGER NOT NULL DEFAULT 0,
       flushed_changes INTEGER NOT NULL DEFAULT 0
     )`,
    `CREATE TABLE IF NOT EXISTS attempt_setup (id INTEGER PRIMARY KEY CHECK (id = 1), setup TEXT NOT NULL)`,
    `CREATE TABLE IF NOT EXISTS state (tool TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID`,
    `CREATE TABLE IF NOT EXISTS calls (
       seq INTEGER PRIMARY KEY,
       call_id TEXT UNIQUE,
       tool TEXT NOT NULL,
       operation_id TEXT NOT NULL,
       revision INTEGER,
       variant TEXT,
       rule INTEGER,
       arguments TEXT NOT NULL,
       outcome TEXT NOT NULL,
       result TEXT,
       error TEXT,
       delay_ms INTEGER NOT NULL,
       at TEXT NOT NULL,
       state_change TEXT,
       upstream TEXT
     )`,
  ];
  if (needs.forwards)
    tables.push(`CREATE TABLE IF NOT EXISTS forwards (
       call_id TEXT PRIMARY KEY,
       tool TEXT NOT NULL,
       operation_id TEXT NOT NULL,
       arguments TEXT NOT NULL,
       deadline INTEGER NOT NULL
     ) WITHOUT ROWID`);
  if (needs.datasetRecords)
    tables.push(`CREATE TABLE IF NOT EXISTS dataset_records (
       tool TEXT NOT NULL,
       collection TEXT NOT NULL,
       whole INTEGER NOT NULL,
       record TEXT NOT NULL,
       value TEXT,
       PRIMARY KEY (tool, collection, whole, record)
     ) WITHOUT ROWID`);
  tables.push(
    `CREATE TABLE IF NOT EXISTS meta (id INTEGER PRIMARY KEY CHECK (id = 1), schema_version INTEGER NOT NULL)`,
    `INSERT INTO meta (id, schema_version) VALUES (1, ${CURRENT_VERSION})
     ON CONFLICT (id) DO UPDATE SET schema_version = excluded.schema_version`,
  );
  return tables.join(";\n");
}

// The version-1 CREATE TABLE above lists the same columns by hand on purpose: a migration step must
// never change once released. The insert and the reads derive from EVIDENCE_COLUMNS.
const CALL_COLUMNS = EVIDENCE_COLUMNS.join(", ");
const INSERT_CALL = `INSERT INTO calls (${CALL_COLUMNS}) VALUES (${EVIDENCE_COLUMNS.map(() => "?").join(", ")})`;
const UPSERT_STATE = `INSERT INTO state (tool, value) VALUES (?, ?) ON CONFLICT (tool) DO UPDATE SET value = excluded.value`;

type SqlRow = Record<string, SqlStorageValue>;

/** The attempt row as load() needs it. */
export interface StoredAttempt {
  setup: AttemptSetup;
  status: string;
  expiresAt: number;
  leaseEnded: boolean;
  completed: boolean;
  maxSeq: number;
}

/** How far the flush to D1 has come, and what it still has to copy. */
interface FlushMarks {
  flushedSeq: number;
  changes: number;
  flushedChanges: number;
  completion: string | null;
}

/** A real call with a call_id that is out at its real handler: what it was, and until when its answer is awaited. */
interface ForwardOut {
  call_id: string;
  tool: string;
  operation_id: string;
  /** JSON text of the arguments, as the calls table keeps them. */
  arguments: string;
  /** ms since the epoch; past it, the Worker that sent the call is taken to be gone. */
  deadline: number;
}

/** One changed record of a dataset tool as stored: `whole` 1 for a top-level value (record ''), value null when removed. */
export interface StoredRecord {
  collection: string;
  whole: number;
  record: string;
  value: string | null;
}

interface CallCounts {
  calls: number;
  tool_input_errors: number;
  harness_errors: number;
}

export class AttemptStorage {
  /**
   * Whether the storage has the forwards table: a new attempt has it only when an operation is
   * real (freshSchema). Known once open() or create() ran; until then taken to be there.
   */
  private hasForwards = true;
  /**
   * Every call_id the calls table holds, so that a call with a new id (nearly every call) is told
   * apart without a query: read on first use, empty for a new attempt. It may hold more than the
   * table (an id whose insert was rolled back stays), never less, so an id it lacks is absent.
   */
  private callIds: Set<string> | null = null;

  constructor(
    private readonly sql: SqlStorage,
    private readonly transactionSync: <T>(fn: () => T) => T,
  ) {}

  static of(storage: DurableObjectStorage): AttemptStorage {
    return new AttemptStorage(storage.sql, (fn) => storage.transactionSync(fn));
  }

  /** The version the storage is at: 0 for tables made before versioning (or for none at all). */
  schemaVersion(): number {
    return schemaVersion(this.sql);
  }

  /** Applies, in order and in one transaction, every step newer than the storage's version. */
  migrate(migrations: readonly Migration[] = MIGRATIONS): { from: number; to: number } {
    return this.transactionSync(() => applyPending(this.sql, migrations));
  }

  /**
   * The attempt as load() needs it, migrating the storage first when it is behind; null when the
   * object holds no attempt. An object is loaded again each time the runtime has unloaded it, so
   * this is the cheap path for current storage: one look at which tables exist, one read of the
   * version, one read of the attempt (no transaction at all).
   */
  open(migrations: readonly Migration[] = MIGRATIONS): StoredAttempt | null {
    const tables = new Set(
      this.sql
        .exec<{ name: string }>(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('attempt', 'meta', 'forwards')`,
        )
        .toArray()
        .map((row) => row.name),
    );
    if (!tables.has("attempt")) return null;
    const version = tables.has("meta")
      ? (this.sql.exec<{ schema_version: number }>(`SELECT schema_version FROM meta`).toArray()[0]?.schema_version ?? 0)
      : 0;
    if (migrations.some((step) => step.version > version)) this.migrate(migrations);
    // Steps before version 6 made the forwards table for every object.
    this.hasForwards = tables.has("forwards") || version < 4;
    return this.readAttempt();
  }

  /**
   * Creates the schema (freshSchema, at CURRENT_VERSION) and the attempt row together; answers the
   * attempt as readAttempt() would read it now. `text`, when given, is the setup's JSON text with
   * no checked examples in it, stored as it is.
   */
  create(setup: AttemptSetup, text: string | null = null): StoredAttempt {
    const forwards = setup.operations.some((op) => op.real);
    const stored = text === null ? withoutCheckedExamples(setup) : setup;
    this.transactionSync(() => {
      this.sql.exec(freshSchema({ forwards, datasetRecords: setup.tools.some((tool) => tool.dataset) }));
      this.sql.exec(`INSERT INTO attempt (id, status, expires_at) VALUES (1, 'active', ?)`, setup.expires_at);
      this.sql.exec(`INSERT INTO attempt_setup (id, setup) VALUES (1, ?)`, text ?? JSON.stringify(stored));
    });
    this.hasForwards = forwards;
    this.callIds = new Set();
    return {
      setup: stored,
      status: "active",
      expiresAt: setup.expires_at,
      leaseEnded: false,
      completed: false,
      maxSeq: 0,
    };
  }

  readAttempt(): StoredAttempt {
    const row = this.sql
      .exec<{
        setup: string;
        status: string;
        expires_at: number;
        lease_ended: number;
        completion: string | null;
        max_seq: number | null;
      }>(
        `SELECT (SELECT setup FROM attempt_setup) AS setup, status, expires_at, lease_ended, completion, (SELECT max(seq) FROM calls) AS max_seq FROM attempt`,
      )
      .one();
    const maxSeq = row.max_seq ?? 0;
    return {
      // SAFETY: attempt_setup is written only by create() (or version 7's move), from an AttemptSetup the Worker built.
      setup: JSON.parse(row.setup) as AttemptSetup,
      status: row.status,
      expiresAt: row.expires_at,
      leaseEnded: row.lease_ended === 1,
      completed: row.completion !== null,
      maxSeq,
    };
  }

  /** The lease as storage has it (the alarm trusts storage, not memory). */
  readLease(): { expiresAt: number; leaseEnded: boolean; status: string } {
    const row = this.sql
      .exec<{ expires_at: number; lease_ended: number; status: string }>(
        `SELECT expires_at, lease_ended, status FROM attempt`,
      )
      .one();
    return { expiresAt: row.expires_at, leaseEnded: row.lease_ended === 1, status: row.status };
  }

  /** Runs several writes as one: all of them or none. */
  transaction(write: () => void): void {
    this.transactionSync(write);
  }

  insertCall(row: EvidenceRow): void {
    this.sql.exec(INSERT_CALL, ...evidenceValues(row));
    if (row.call_id !== null) this.callIds?.add(row.call_id);
  }

  writeState(toolName: string, state: string): void {
    this.sql.exec(UPSERT_STATE, toolName, state);
  }

  writeStatus(status: AttemptStatus): void {
    this.sql.exec(`UPDATE attempt SET status = ?`, status);
  }

  writeCompletion(completion: string, status: AttemptStatus): void {
    this.sql.exec(`UPDATE attempt SET completion = ?, status = ?, changes = changes + 1`, completion, status);
  }

  writeLeaseEnd(status: AttemptStatus): void {
    this.sql.exec(`UPDATE attempt SET lease_ended = 1, status = ?, changes = changes + 1`, status);
  }

  /** A dataset tool's changed records, whole top-level changes first in each collection (the order Overlay keeps). */
  readRecords(toolName: string): StoredRecord[] {
    return this.sql
      .exec<{ collection: string; whole: number; record: string; value: string | null }>(
        `SELECT collection, whole, record, value FROM dataset_records WHERE tool = ? ORDER BY collection, whole DESC, record`,
        toolName,
      )
      .toArray();
  }

  /** Stores one changed record; a whole change first forgets the record rows under it (as Overlay.merge does). */
  writeRecord(toolName: string, row: StoredRecord): void {
    if (row.whole === 1)
      this.sql.exec(
        `DELETE FROM dataset_records WHERE tool = ? AND collection = ? AND whole = 0`,
        toolName,
        row.collection,
      );
    this.sql.exec(
      `INSERT INTO dataset_records (tool, collection, whole, record, value) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (tool, collection, whole, record) DO UPDATE SET value = excluded.value`,
      toolName,
      row.collection,
      row.whole,
      row.record,
      row.value,
    );
  }

  /** The JSON text of a tool's state, when a call has set it. */
  readState(toolName: string): string | undefined {
    return this.sql.exec<{ value: string }>(`SELECT value FROM state WHERE tool = ?`, toolName).toArray()[0]?.value;
  }

  callById(callId: string): EvidenceRow | undefined {
    this.callIds ??= new Set(
      this.sql
        .exec<{ call_id: string }>(`SELECT call_id FROM calls WHERE call_id IS NOT NULL`)
        .toArray()
        .map((found) => found.call_id),
    );
    if (!this.callIds.has(callId)) return undefined;
    const row = this.sql.exec<SqlRow>(`SELECT ${CALL_COLUMNS} FROM calls WHERE call_id = ?`, callId).toArray()[0];
    return row ? evidenceRowOf(row) : undefined;
  }

  forwardById(callId: string): ForwardOut | undefined {
    if (!this.hasForwards) return undefined;
    return this.sql
      .exec<{ call_id: string; tool: string; operation_id: string; arguments: string; deadline: number }>(
        `SELECT call_id, tool, operation_id, arguments, deadline FROM forwards WHERE call_id = ?`,
        callId,
      )
      .toArray()[0];
  }

  /** Marks a call as out (replacing a mark whose deadline passed: the call is handed out again). */
  putForward(forward: ForwardOut): void {
    this.sql.exec(
      `INSERT INTO forwards (call_id, tool, operation_id, arguments, deadline) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (call_id) DO UPDATE SET tool = excluded.tool, operation_id = excluded.operation_id, arguments = excluded.arguments, deadline = excluded.deadline`,
      forward.call_id,
      forward.tool,
      forward.operation_id,
      forward.arguments,
      forward.deadline,
    );
  }

  deleteForward(callId: string): void {
    if (!this.hasForwards) return;
    this.sql.exec(`DELETE FROM forwards WHERE call_id = ?`, callId);
  }

  /** Every call in seq order, after `afterSeq`, at most `limit`. */
  callsAfter(afterSeq: number, limit: number): EvidenceRow[] {
    return this.sql
      .exec<SqlRow>(`SELECT ${CALL_COLUMNS} FROM calls WHERE seq > ? ORDER BY seq LIMIT ?`, afterSeq, limit)
      .toArray()
      .map(evidenceRowOf);
  }

  counts(): CallCounts {
    return this.sql
      .exec<{ calls: number; tool_input_errors: number; harness_errors: number }>(
        `SELECT count(*) AS calls,
                coalesce(sum(outcome = 'tool_input_error'), 0) AS tool_input_errors,
                coalesce(sum(outcome = 'harness_error'), 0) AS harness_errors
         FROM calls`,
      )
      .one();
  }

  /** Calls forwarded to real handlers, and those whose real answer broke the output schema. */
  realCounts(): RealCallCounts {
    return this.sql
      .exec<{ real_calls: number; contract_violations: number }>(`SELECT ${REAL_CALL_COUNTS} FROM calls`)
      .one();
  }

  readCompletion(): string | null {
    return this.sql.exec<{ completion: string | null }>(`SELECT completion FROM attempt`).one().completion;
  }

  flushMarks(): FlushMarks {
    const row = this.sql
      .exec<{ flushed_seq: number; changes: number; flushed_changes: number; completion: string | null }>(
        `SELECT flushed_seq, changes, flushed_changes, completion FROM attempt`,
      )
      .one();
    return {
      flushedSeq: row.flushed_seq,
      changes: row.changes,
      flushedChanges: row.flushed_changes,
      completion: row.completion,
    };
  }

  /** Records that D1 holds every call up to `lastSeq` and every change up to `changes`. */
  markFlushed(lastSeq: number, changes: number): void {
    this.sql.exec(
      `UPDATE attempt SET flushed_seq = max(flushed_seq, ?), flushed_changes = max(flushed_changes, ?)`,
      lastSeq,
      changes,
    );
  }

  hasUnflushed(): boolean {
    const row = this.sql
      .exec<{ pending: number }>(
        `SELECT (SELECT count(*) FROM calls WHERE seq > attempt.flushed_seq) + (attempt.changes > attempt.flushed_changes) AS pending FROM attempt`,
      )
      .one();
    return row.pending > 0;
  }
}
