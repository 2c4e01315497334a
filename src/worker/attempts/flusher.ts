/**
 * Copies an attempt's evidence from the object's SQLite to D1. The object sees one method,
 * flush(): it copies every call and change not yet in D1, one flush at a time, and throws when
 * D1 refuses (nothing is marked flushed then, so the next flush sends the same rows again).
 */
import { flushableRows, writeEvidence, type AttemptSync } from "../../adapters/d1/simulations.js";
import type { Database } from "../platform/env.js";
import type { EvidenceRow } from "../../core/simulation/evidence.js";
import type { AttemptStorage } from "./storage.js";

/** Rows read per flush round; the sink sends them as one statement, cut down further by size. */
const FLUSH_BATCH_ROWS = 500;

/** Where flushed evidence goes: D1 in the service. */
interface EvidenceSink {
  write(sync: AttemptSync, rows: readonly EvidenceRow[]): Promise<void>;
}

export function d1EvidenceSink(db: Database): EvidenceSink {
  return { write: (sync, rows) => writeEvidence(db, sync, rows) };
}

export interface EvidenceFlusher {
  /** Resolves once D1 holds everything the object held when it was called (and what came meanwhile). */
  flush(): Promise<void>;
}

/**
 * `attempt` is read at every round, so the status and state that travel with the rows are the
 * latest ones.
 */
export function evidenceFlusher(
  storage: AttemptStorage,
  sink: EvidenceSink,
  attempt: () => Omit<AttemptSync, "completion">,
): EvidenceFlusher {
  let running: Promise<void> | null = null;

  async function copyAll(): Promise<void> {
    for (;;) {
      const marks = storage.flushMarks();
      const rows = flushableRows(storage.callsAfter(marks.flushedSeq, FLUSH_BATCH_ROWS));
      if (rows.length === 0 && marks.changes === marks.flushedChanges) return;
      await sink.write({ ...attempt(), completion: marks.completion }, rows);
      storage.markFlushed(rows[rows.length - 1]?.seq ?? marks.flushedSeq, marks.changes);
    }
  }

  return {
    async flush() {
      // One flush at a time: a caller arriving mid-flush waits for it, then flushes what is left.
      while (running) await running.catch(() => undefined);
      running = copyAll();
      try {
        await running;
      } finally {
        running = null;
      }
    },
  };
}
