/**
 * A connection's secrets (its API key and header values) sealed together into the row's `sealed`
 * column, bound to the tenant and the connection's name, and opened again into the config the
 * openai adapter takes.
 */
import type { StoredConnection } from "../../adapters/d1/connections.js";
import type { ModelConnectionConfig } from "../../adapters/model/openai-client.js";
import { connectionContext, openJson, seal } from "../../adapters/secret-box.js";

interface ConnectionSecrets {
  api_key: string;
  headers: Record<string, string>;
}

export function sealConnectionSecrets(
  key: CryptoKey,
  tenantId: string,
  name: string,
  secrets: ConnectionSecrets,
): Promise<string> {
  return seal(
    key,
    JSON.stringify({ api_key: secrets.api_key, headers: secrets.headers }),
    connectionContext(tenantId, name),
  );
}

/** The secrets, or undefined when they do not open (another secret, another row, altered). */
export async function openConnectionSecrets(
  key: CryptoKey,
  row: Pick<StoredConnection, "tenant_id" | "name" | "sealed">,
): Promise<ConnectionSecrets | undefined> {
  const parsed = await openJson(key, row.sealed, connectionContext(row.tenant_id, row.name));
  if (typeof parsed !== "object" || parsed === null || !("api_key" in parsed) || !("headers" in parsed))
    return undefined;
  const { api_key, headers } = parsed;
  if (typeof api_key !== "string" || typeof headers !== "object" || headers === null) return undefined;
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (typeof value === "string") values[name] = value;
  return { api_key, headers: values };
}

export function connectionConfig(row: StoredConnection, secrets: ConnectionSecrets): ModelConnectionConfig {
  return {
    name: row.name,
    base_url: row.base_url,
    model: row.model,
    api_key: secrets.api_key,
    api_version: row.api_version,
    headers: secrets.headers,
    timeout_ms: row.timeout_ms,
    max_retries: row.max_retries,
    max_concurrency: row.max_concurrency,
    structured_output: row.structured_output,
  };
}

/** Says why a stored connection cannot be used, naming it. */
export function unreadableMessage(name: string): string {
  return `the stored API key of connection "${name}" does not open with the current TOOLPROOF_SECRET (the secret was changed, or the row was copied from elsewhere): PUT the connection again with its api_key`;
}
