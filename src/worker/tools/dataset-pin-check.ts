/**
 * A saved definition that pins a dataset version must name a stored one: checked at save time (the
 * definition's check is pure and never reads the catalog), so a revision never points at nothing.
 * Versions are append-only, so what is stored when the revision is saved stays stored.
 */
import { resolveDatasetPins } from "../../adapters/d1/dataset-pins.js";
import { pinKey, readDatasetPin, unknownPinMessage } from "../../core/datasets/pin.js";
import { isJsonObject } from "../../core/json.js";
import type { Database } from "../platform/env.js";
import { ApiError } from "../http/errors.js";

/** Throws a 404 naming `at` when `definition` pins a version the tenant does not have. */
export async function refuseUnknownDatasetPin(
  db: Database,
  tenantId: string,
  definition: unknown,
  at: string,
): Promise<void> {
  if (!isJsonObject(definition) || !Object.hasOwn(definition, "dataset")) return;
  const read = readDatasetPin(definition.dataset, at);
  // A malformed pin never gets here: the definition's check refused it already.
  if ("problems" in read) return;
  const found = await resolveDatasetPins(db, tenantId, [read.pin]);
  if (found.has(pinKey(read.pin))) return;
  const message = unknownPinMessage(read.pin);
  throw new ApiError("not_found", `${at}: ${message}`, { problems: [{ path: at, message }] });
}
