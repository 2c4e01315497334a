/**
 * D1 refuses a row over 2,000,000 bytes (its limit on a string, a BLOB and a row). Miniflare's local
 * D1 takes far more, so a write past it passes every local run and fails deployed, as a 500 for
 * what is the client's mistake. Values that grow with what a client sends are measured here before
 * they are written, and refused with the size and what to do instead.
 */
export const D1_ROW_LIMIT_BYTES = 2_000_000;

/** A value that one D1 row cannot hold; the HTTP layer answers it as 413 payload_too_large. */
export class RowTooLarge extends Error {
  constructor(
    message: string,
    readonly bytes: number,
  ) {
    super(message);
    this.name = "RowTooLarge";
  }
}

const encoder = new TextEncoder();

/**
 * Throws RowTooLarge when `text`, stored as UTF-8, is past the limit. `what` names the value in the
 * message ("the suite"), `instead` says what fits.
 */
export function requireFitsRow(text: string, what: string, instead: string): void {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so short texts need no encoding to be known to fit.
  if (text.length * 3 <= D1_ROW_LIMIT_BYTES) return;
  const bytes = encoder.encode(text).byteLength;
  if (bytes <= D1_ROW_LIMIT_BYTES) return;
  throw new RowTooLarge(
    `${what} as stored would be ${bytes} bytes; a stored document may be at most ${D1_ROW_LIMIT_BYTES} bytes (one D1 row): ${instead}`,
    bytes,
  );
}
