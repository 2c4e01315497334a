/** A run coordinator's slot (storage.ts SlotRow) built for the pure decisions' tests: sent once, never claimed. */
import type { SlotRow } from "../../../../src/worker/runs/coordinator/storage.js";

export function slot(seq: number, fields: Partial<SlotRow> = {}): SlotRow {
  return {
    seq,
    scenario_index: 0,
    repetition: seq,
    attempt_id: `att_${seq}`,
    token_hash: "h",
    sends: 1,
    sent_at: 0,
    claims: 0,
    claimed_at: null,
    last_error: null,
    record: null,
    verdict: null,
    outcome: null,
    job_deadline: null,
    completed_at: null,
    timed_out_at: null,
    ...fields,
  };
}
