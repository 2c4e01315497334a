/**
 * D1 refuses a row over 2,000,000 bytes (its limit on a string, a BLOB and a row), and a Durable
 * Object's SQLite the same. Miniflare's local D1 and objects take far more, so a write past it
 * passes every local run and fails deployed, as a 500 for what is the client's mistake. Values that
 * grow with what a client sends are measured here before they are written, and refused with the
 * size and what to do instead.
 */
import { utf8Length } from "../../core/utf8.js";

export const D1_ROW_LIMIT_BYTES = 2_000_000;

/** A value that one stored row cannot hold; the HTTP layer answers it as 413 payload_too_large. */
export class RowTooLarge extends Error {
  constructor(
    message: string,
    readonly bytes: number,
    /** The most the row takes of what was refused (less than the whole row when the row holds more). */
    readonly limitBytes: number = D1_ROW_LIMIT_BYTES,
  ) {
    super(message);
    this.name = "RowTooLarge";
  }
}

/**
 * Throws RowTooLarge when `text` (or its parts together), stored as UTF-8, is past the limit.
 * `what` names the value in the message ("the suite"), `instead` says what fits, `row` which row
 * would hold it.
 */
export function requireFitsRow(
  text: string | readonly string[],
  what: string,
  instead: string,
  row = "one D1 row",
): void {
  const parts = typeof text === "string" ? [text] : text;
  // A UTF-16 unit is at most 3 UTF-8 bytes, so short texts need no counting to be known to fit.
  if (parts.reduce((sum, part) => sum + part.length, 0) * 3 <= D1_ROW_LIMIT_BYTES) return;
  const bytes = parts.reduce((sum, part) => sum + utf8Length(part), 0);
  if (bytes <= D1_ROW_LIMIT_BYTES) return;
  throw new RowTooLarge(
    `${what} as stored would be ${bytes} bytes; a stored document may be at most ${D1_ROW_LIMIT_BYTES} bytes (${row}): ${instead}`,
    bytes,
  );
}
