/**
 * The run coordinator's own SQLite: its schema, versioned and migrated on load like the attempt
 * object's (object-schema.ts), and every statement the coordinator runs. Synchronous on purpose: a record is checked and written with no await between,
 * so two deliveries of one repetition can never both be applied.
 */
import type { RepetitionRecord } from "../../../core/evals/agent-types.js";
import type { ConversationUsage } from "../../../core/evals/conversation-usage.js";
import type { RepetitionVerdict } from "../../../core/scoring/repetition-verdict.js";
import { applyPending, hasTable, type Migration } from "../../platform/object-schema.js";
import type { RunEnding } from "./progress.js";
import type { RunStart } from "./replies.js";
import type { StoredAttemptPlans } from "./run-start.js";

const RUN_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE IF NOT EXISTS run (
         id INTEGER PRIMARY KEY CHECK (id = 1),
         start TEXT NOT NULL,
         status TEXT NOT NULL,
         started_at INTEGER,
         finished_at INTEGER,
         ending TEXT,
         final_written INTEGER NOT NULL DEFAULT 0
       )`,
      `CREATE TABLE IF NOT EXISTS repetitions (
         seq INTEGER PRIMARY KEY,
         scenario_index INTEGER NOT NULL,
         repetition INTEGER NOT NULL,
         attempt_id TEXT NOT NULL,
         token_hash TEXT NOT NULL,
         sends INTEGER NOT NULL DEFAULT 1,
         sent_at INTEGER NOT NULL,
         claims INTEGER NOT NULL DEFAULT 0,
         claimed_at INTEGER,
         last_error TEXT,
         record TEXT,
         verdict TEXT,
         outcome TEXT
       )`,
    ],
  },
  {
    // External agents (external/job.ts): when the job's deadline falls, and when the agent completed or ran out of time.
    version: 2,
    statements: [
      `ALTER TABLE repetitions ADD COLUMN job_deadline INTEGER`,
      `ALTER TABLE repetitions ADD COLUMN completed_at INTEGER`,
      `ALTER TABLE repetitions ADD COLUMN timed_out_at INTEGER`,
    ],
  },
  {
    // The attempts' shared operations and tools lists (RunAttemptPlans.shared), one row each: inlined
    // in the run row, a large suite's start was over a SQLite value's ~2 MB.
    version: 3,
    statements: [`CREATE TABLE IF NOT EXISTS run_parts (idx INTEGER PRIMARY KEY, body TEXT NOT NULL)`],
  },
  {
    // External agents' conversations (runs/external/conversation.ts): the turns relayed so far, as
    // JSON, and since when the user model is being asked for the next one (null: nobody is).
    version: 4,
    statements: [
      `CREATE TABLE IF NOT EXISTS conversations (seq INTEGER PRIMARY KEY, state TEXT NOT NULL, asking_at INTEGER)`,
    ],
  },
  {
    // The number of recorded repetitions is read around every record (verdict-cache.ts). Counted
    // over the table, SQLite read past each row's record (often tens of KB, in overflow pages) to
    // the verdict stored after it: 0.8 s of the object's time over τ-bench's 345 conversations.
    // This index has an entry for each recorded repetition and nothing else, so counting is cheap.
    version: 5,
    statements: [`CREATE INDEX IF NOT EXISTS repetitions_recorded ON repetitions(seq) WHERE verdict IS NOT NULL`],
  },
];

/** A repetition's record (the repetitions table's record column). */
export function parseRecord(text: string): RepetitionRecord {
  // SAFETY: the record column is written only by the coordinator's record(), from JSON.stringify of a RepetitionRecord.
  return JSON.parse(text) as RepetitionRecord;
}

export interface StoredRun {
  /** The start document without its repetitions and its attempts' shared parts (those are rows). */
  start: Omit<RunStart, "repetitions" | "attempts"> & { attempts: StoredAttemptPlans };
  status: string;
  started_at: number | null;
  finished_at: number | null;
  ending: RunEnding | null;
  final_written: boolean;
}

export type SlotRow = {
  seq: number;
  scenario_index: number;
  repetition: number;
  attempt_id: string;
  token_hash: string;
  sends: number;
  sent_at: number;
  claims: number;
  claimed_at: number | null;
  last_error: string | null;
  record: string | null;
  verdict: string | null;
  outcome: string | null;
  /** An external agent's job was sent (or is being sent) and is due by then. */
  job_deadline: number | null;
  completed_at: number | null;
  timed_out_at: number | null;
};

const SLOT_COLUMNS =
  "seq, scenario_index, repetition, attempt_id, token_hash, sends, sent_at, claims, claimed_at, last_error, record, verdict, outcome, job_deadline, completed_at, timed_out_at";

export class RunStorage {
  constructor(
    private readonly sql: SqlStorage,
    private readonly transactionSync: <T>(fn: () => T) => T,
  ) {}

  static of(storage: DurableObjectStorage): RunStorage {
    return new RunStorage(storage.sql, (fn) => storage.transactionSync(fn));
  }

  holdsRun(): boolean {
    return hasTable(this.sql, "run");
  }

  migrate(migrations: readonly Migration[] = RUN_MIGRATIONS): void {
    this.transactionSync(() => applyPending(this.sql, migrations));
  }

  /** The schema, the run row, one row per shared part and one per repetition, together. */
  create(start: RunStart, now: number): void {
    const { repetitions, attempts, ...rest } = start;
    const stored: StoredRun["start"] = {
      ...rest,
      attempts: { expires_at: attempts.expires_at, scenarios: attempts.scenarios },
    };
    this.transactionSync(() => {
      applyPending(this.sql, RUN_MIGRATIONS);
      this.sql.exec(`INSERT INTO run (id, start, status) VALUES (1, ?, 'queued')`, JSON.stringify(stored));
      for (const [idx, body] of attempts.shared.entries())
        this.sql.exec(`INSERT INTO run_parts (idx, body) VALUES (?, ?)`, idx, body);
      for (const slot of repetitions) {
        this.sql.exec(
          `INSERT INTO repetitions (seq, scenario_index, repetition, attempt_id, token_hash, sent_at) VALUES (?, ?, ?, ?, ?, ?)`,
          slot.seq,
          slot.scenario_index,
          slot.repetition,
          slot.attempt_id,
          slot.token_hash,
          now,
        );
      }
    });
  }

  readRun(): StoredRun {
    const row = this.sql.exec<{ start: string }>(`SELECT start FROM run`).one();
    // SAFETY: written only by create(), from a RunStart the Worker built.
    return { start: JSON.parse(row.start) as StoredRun["start"], ...this.readState() };
  }

  /** The run row's changing columns. */
  readState(): Omit<StoredRun, "start"> {
    const row = this.sql
      .exec<{
        status: string;
        started_at: number | null;
        finished_at: number | null;
        ending: string | null;
        final_written: number;
      }>(`SELECT status, started_at, finished_at, ending, final_written FROM run`)
      .one();
    return {
      status: row.status,
      started_at: row.started_at,
      finished_at: row.finished_at,
      // SAFETY: the ending column is written only by writeEnded(), from JSON.stringify of a RunEnding.
      ending: row.ending === null ? null : (JSON.parse(row.ending) as RunEnding),
      final_written: row.final_written === 1,
    };
  }

  /** One shared part (RunAttemptPlans.shared[idx]), parsed; undefined when the run has no such part. */
  part(idx: number): unknown {
    const body = this.sql.exec<{ body: string }>(`SELECT body FROM run_parts WHERE idx = ?`, idx).toArray()[0]?.body;
    return body === undefined ? undefined : JSON.parse(body);
  }

  slot(seq: number): SlotRow | undefined {
    return this.sql.exec<SlotRow>(`SELECT ${SLOT_COLUMNS} FROM repetitions WHERE seq = ?`, seq).toArray()[0];
  }

  slots(afterSeq: number, limit: number): SlotRow[] {
    return this.sql
      .exec<SlotRow>(`SELECT ${SLOT_COLUMNS} FROM repetitions WHERE seq > ? ORDER BY seq LIMIT ?`, afterSeq, limit)
      .toArray();
  }

  /** The first repetition from `fromSeq` on that no delivery has claimed and that has no record. */
  firstUnclaimed(fromSeq: number): SlotRow | undefined {
    return this.sql
      .exec<SlotRow>(
        `SELECT ${SLOT_COLUMNS} FROM repetitions WHERE seq >= ? AND claims = 0 AND record IS NULL ORDER BY seq LIMIT 1`,
        fromSeq,
      )
      .toArray()[0];
  }

  total(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM repetitions`).one().n;
  }

  pendingCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM repetitions WHERE record IS NULL`).one().n;
  }

  /** Repetitions with no record yet, in seq order. */
  unrecorded(): SlotRow[] {
    return this.sql
      .exec<SlotRow>(`SELECT ${SLOT_COLUMNS} FROM repetitions WHERE record IS NULL ORDER BY seq`)
      .toArray();
  }

  /**
   * Every stored verdict (small JSON each), for recomputing the aggregate, with a conversation's
   * usage (read out of its record: only when the verdicts are loaded again, never per record).
   */
  verdicts(): Array<{
    seq: number;
    scenario_index: number;
    repetition: number;
    verdict: RepetitionVerdict;
    conversation_usage?: ConversationUsage;
  }> {
    return this.sql
      .exec<{
        seq: number;
        scenario_index: number;
        repetition: number;
        verdict: string;
        conversation_usage: string | null;
      }>(
        `SELECT seq, scenario_index, repetition, verdict, json_extract(record, '$.conversation.usage') AS conversation_usage FROM repetitions WHERE verdict IS NOT NULL ORDER BY seq`,
      )
      .toArray()
      .map((row) => ({
        seq: row.seq,
        scenario_index: row.scenario_index,
        repetition: row.repetition,
        // SAFETY: the verdict column is written only by writeRecord(), from JSON.stringify of a RepetitionVerdict.
        verdict: JSON.parse(row.verdict) as RepetitionVerdict,
        // SAFETY: extracted from the record column, JSON.stringify of a RepetitionRecord.
        ...(row.conversation_usage === null
          ? {}
          : { conversation_usage: JSON.parse(row.conversation_usage) as ConversationUsage }),
      }));
  }

  recordedCount(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM repetitions WHERE verdict IS NOT NULL`).one().n;
  }

  /** Marks a delivery as working on the repetition; answers the claim number. */
  claim(seq: number, now: number): number {
    return this.sql
      .exec<{ claims: number }>(
        `UPDATE repetitions SET claims = claims + 1, claimed_at = ? WHERE seq = ? RETURNING claims`,
        now,
        seq,
      )
      .one().claims;
  }

  /**
   * The delivery gave up (it will be retried): the repetition is free again, and the error kept for
   * a dead letter. `resentAt`: the caller is about to send it a message of its own, counted here as
   * a send at that time, so the watchdog waits its timeout from now rather than resend it as well.
   */
  release(seq: number, error: string, resentAt: number | null): void {
    // A job that could not be delivered is sent again from the start (its deadline with it).
    this.sql.exec(
      `UPDATE repetitions SET claimed_at = NULL, last_error = ?, job_deadline = CASE WHEN completed_at IS NULL AND timed_out_at IS NULL THEN NULL ELSE job_deadline END,
         sends = sends + (? IS NOT NULL), sent_at = coalesce(?, sent_at) WHERE seq = ?`,
      error,
      resentAt,
      resentAt,
      seq,
    );
  }

  /** The external agent's job is being sent, due by `deadline`. */
  markJobSent(seq: number, deadline: number): void {
    this.sql.exec(`UPDATE repetitions SET job_deadline = ? WHERE seq = ?`, deadline, seq);
  }

  /**
   * The agent completed (or ran out of time): the repetition waits for a delivery to score it,
   * and counts as sent now, so the watchdog resends its message if that delivery is lost.
   */
  markAgentDone(seq: number, column: "completed_at" | "timed_out_at", now: number): void {
    this.sql.exec(
      `UPDATE repetitions SET ${column} = ?, sent_at = ?, claimed_at = NULL WHERE seq = ? AND completed_at IS NULL AND timed_out_at IS NULL`,
      now,
      now,
      seq,
    );
  }

  /** Writes the record unless the repetition has one; answers whether it was written. */
  writeRecord(seq: number, record: string, verdict: string, outcome: string): boolean {
    return (
      this.sql.exec(
        `UPDATE repetitions SET record = ?, verdict = ?, outcome = ?, claimed_at = NULL WHERE seq = ? AND record IS NULL`,
        record,
        verdict,
        outcome,
        seq,
      ).rowsWritten > 0
    );
  }

  /** The watchdog sent these again. */
  markResent(seqs: readonly number[], now: number): void {
    this.transactionSync(() => {
      for (const seq of seqs)
        this.sql.exec(
          `UPDATE repetitions SET sends = sends + 1, sent_at = ?, claimed_at = NULL WHERE seq = ?`,
          now,
          seq,
        );
    });
  }

  writeStarted(now: number): void {
    this.sql.exec(
      `UPDATE run SET status = 'running', started_at = coalesce(started_at, ?) WHERE status = 'queued'`,
      now,
    );
  }

  writeEnded(status: "finished" | "cancelled", ending: string, now: number): void {
    this.sql.exec(
      `UPDATE run SET status = ?, ending = ?, finished_at = ?, started_at = coalesce(started_at, ?)`,
      status,
      ending,
      now,
      now,
    );
  }

  /** An external agent's conversation: its state as JSON text, and since when its user model is being asked. */
  conversation(seq: number): { state: string; asking_at: number | null } | undefined {
    return this.sql
      .exec<{
        state: string;
        asking_at: number | null;
      }>(`SELECT state, asking_at FROM conversations WHERE seq = ?`, seq)
      .toArray()[0];
  }

  /** The conversation's first state, unless it has one (a second delivery's opening loses). */
  openConversation(seq: number, state: string): void {
    this.sql.exec(`INSERT OR IGNORE INTO conversations (seq, state) VALUES (?, ?)`, seq, state);
  }

  writeConversation(seq: number, state: string, askingAt: number | null): void {
    this.sql.exec(`UPDATE conversations SET state = ?, asking_at = ? WHERE seq = ?`, state, askingAt, seq);
  }

  markFinalWritten(): void {
    this.sql.exec(`UPDATE run SET final_written = 1`);
  }
}
