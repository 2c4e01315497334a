/**
 * The human-readable text of anything thrown. JavaScript lets code throw values that are not
 * Errors (strings, objects, undefined), and every place that reports a caught failure needs the
 * same answer, so it lives here once.
 */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
