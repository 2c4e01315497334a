/**
 * The names agents call tools by. One rule everywhere (MCP tools/list, HTTP dispatch, evidence,
 * suites, policies): the tool's name when the tool has one operation, else
 * `<name>__<operation_id>`, always within ^[A-Za-z0-9_-]{1,64}$ so every model API accepts it.
 */

export const FUNCTION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_LENGTH = 64;
/** Room for "_" and 8 hex digits of the hash that keeps shortened names distinct. */
const HASH_SUFFIX_LENGTH = 9;

/**
 * The function name of one operation of a tool with `operationCount` operations.
 *
 * Characters outside [A-Za-z0-9_-] become "_". A name longer than 64 characters is cut and given
 * a suffix derived from the full name, so two long names that share a prefix still differ and the
 * same operation gets the same name in every simulation.
 *
 * @example functionName("calendar", "book", 2) === "calendar__book"
 * @example functionName("weather", "get", 1) === "weather"
 */
export function functionName(toolName: string, operationId: string, operationCount: number): string {
  const full = operationCount === 1 ? sanitize(toolName) : `${sanitize(toolName)}__${sanitize(operationId)}`;
  if (full.length === 0) return `tool_${fnv1a(`${toolName}\u0000${operationId}`)}`;
  if (full.length <= MAX_LENGTH) return full;
  return `${full.slice(0, MAX_LENGTH - HASH_SUFFIX_LENGTH)}_${fnv1a(full)}`;
}

function sanitize(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** FNV-1a (32 bit) as 8 hex digits: a stable, synchronous name shortener, not a security hash. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}
