/**
 * An upstream's credentials (a bearer token, header values) sealed like connection keys
 * (secret-box.ts), bound to the tenant and the tool: copied into another row, they do not open.
 * They are opened only by the Worker, to send one call, and never returned by any route.
 */
import { openJson, seal } from "../../../adapters/secret-box.js";

interface UpstreamCredentials {
  /** Header name (lowercase) → value; a bearer token is kept as its Authorization header. */
  headers: Record<string, string>;
}

function upstreamContext(tenantId: string, toolId: string): string {
  return JSON.stringify(["upstream", tenantId, toolId]);
}

export function sealUpstreamCredentials(
  key: CryptoKey,
  tenantId: string,
  toolId: string,
  credentials: UpstreamCredentials,
): Promise<string> {
  return seal(key, JSON.stringify({ headers: credentials.headers }), upstreamContext(tenantId, toolId));
}

/** The credentials, or undefined when they do not open (another secret, another row, altered). */
export async function openUpstreamCredentials(
  key: CryptoKey,
  tenantId: string,
  toolId: string,
  sealed: string,
): Promise<UpstreamCredentials | undefined> {
  const parsed = await openJson(key, sealed, upstreamContext(tenantId, toolId));
  if (
    typeof parsed !== "object" ||
    parsed === null ||
    !("headers" in parsed) ||
    typeof parsed.headers !== "object" ||
    parsed.headers === null
  )
    return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed.headers)) if (typeof value === "string") headers[name] = value;
  return { headers };
}
