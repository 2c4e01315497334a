/**
 * Every stored verdict, parsed once. The aggregate is recomputed from all of them after each record
 * (never kept as running totals), so parsing each verdict again per record would make a run of n
 * repetitions cost n² parses. Kept in memory as records are written, and read again from storage
 * whenever the count there differs (another instance wrote, or this one just loaded).
 */
import type { ConversationUsage } from "../../../core/evals/conversation-usage.js";
import type { RepetitionVerdict } from "../../../core/scoring/repetition-verdict.js";
import type { StoredVerdict } from "./progress.js";
import type { RunStorage, SlotRow } from "./storage.js";

export class VerdictCache {
  private readonly bySeq = new Map<number, StoredVerdict>();

  constructor(private readonly storage: RunStorage) {}

  all(): StoredVerdict[] {
    if (this.storage.recordedCount() !== this.bySeq.size) {
      this.bySeq.clear();
      for (const { seq, ...verdict } of this.storage.verdicts()) this.bySeq.set(seq, verdict);
    }
    return [...this.bySeq.values()];
  }

  /** Called right after storage took the slot's first record: kept only while the cache is otherwise current. */
  recorded(slot: SlotRow, verdict: RepetitionVerdict, conversationUsage?: ConversationUsage): void {
    if (this.bySeq.size === this.storage.recordedCount() - 1)
      this.bySeq.set(slot.seq, {
        scenario_index: slot.scenario_index,
        repetition: slot.repetition,
        verdict,
        ...(conversationUsage ? { conversation_usage: conversationUsage } : {}),
      });
  }
}
