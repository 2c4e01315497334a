/**
 * An attempt as D1 last heard of it, for when its object holds nothing any more (retired after its
 * lease and retention, or its storage lost): the same snapshot the object gives, rebuilt from the
 * attempt row and the flushed evidence rows, so GET /api/attempts/:id shows the same view either way.
 */
import {
  attemptCompletionOf,
  attemptStateOf,
  countEvidence,
  countRealEvidence,
  type AttemptRow,
} from "../../adapters/d1/simulations.js";
import { systemClock } from "../../core/ports.js";
import { statusWithoutObject } from "../../core/simulation/status.js";
import type { Database } from "../platform/env.js";
import { RETENTION_MS } from "./lifetimes.js";
import type { AttemptSnapshot } from "./replies.js";

export async function storedSnapshot(db: Database, attempt: AttemptRow): Promise<AttemptSnapshot> {
  const [counts, real] = await Promise.all([
    countEvidence(db, attempt.id),
    countRealEvidence(db, attempt.id, attempt.simulation_id),
  ]);
  return {
    id: attempt.id,
    simulation_id: attempt.simulation_id,
    status: statusWithoutObject(attempt.status, Date.parse(attempt.expires_at), RETENTION_MS, systemClock.now()),
    state: attemptStateOf(attempt),
    ...counts,
    ...real,
    expires_at: attempt.expires_at,
    lease_ended: true,
    completion: attemptCompletionOf(attempt),
  };
}
