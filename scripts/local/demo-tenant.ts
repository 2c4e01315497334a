/**
 * The `demo` tenant and its key. A key is shown only once when it is created, so the local
 * server keeps the demo key in a file beside the database it belongs to and prints it on every
 * start. The file is for local development only: it holds a usable secret in clear.
 */
import { chmod, readFile, writeFile } from "node:fs/promises";
import { sha256Hex } from "../../src/adapters/crypto.js";
import { createApiKey, createTenant, findActiveKeyByHash, findTenantByName } from "../../src/adapters/d1/api-keys.js";
import { STANDARD_PERMISSIONS, type Database } from "../../src/worker/platform/env.js";
import { stringField } from "./narrow.js";
import { demoKeyFile } from "./paths.js";

export const DEMO_TENANT = "demo";
const DEMO_KEY_NAME = "demo (local development)";

export interface DemoCredentials {
  tenantId: string;
  keyId: string;
  key: string;
  /** True when this call created the key (first start, or the stored one was revoked). */
  created: boolean;
}

export async function ensureDemoTenant(db: Database, stateDir: string): Promise<DemoCredentials> {
  const tenant = await ensureTenant(db, DEMO_TENANT);
  const stored = await readStoredKey(demoKeyFile(stateDir));
  if (stored) {
    const active = await findActiveKeyByHash(db, sha256Hex(stored.key));
    if (active && active.tenant_id === tenant.id)
      return { tenantId: tenant.id, keyId: active.id, key: stored.key, created: false };
  }
  // No file, or its key was revoked or belongs to a database that was reset: issue a new one.
  const { key, record } = await createApiKey(db, {
    tenantId: tenant.id,
    name: DEMO_KEY_NAME,
    permissions: STANDARD_PERMISSIONS,
  });
  await writeStoredKey(demoKeyFile(stateDir), { tenant: DEMO_TENANT, key_id: record.id, key });
  return { tenantId: tenant.id, keyId: record.id, key, created: true };
}

async function ensureTenant(db: Database, name: string): Promise<{ id: string; name: string }> {
  const existing = await findTenantByName(db, name);
  if (existing) return existing;
  try {
    return await createTenant(db, name);
  } catch (error) {
    // Two processes starting on a fresh database at once: the other one created it first.
    const created = await findTenantByName(db, name);
    if (created) return created;
    throw error;
  }
}

async function readStoredKey(file: string): Promise<{ key: string } | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return undefined;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    const key = stringField(parsed, "key");
    return key ? { key } : undefined;
  } catch {
    return undefined;
  }
}

async function writeStoredKey(file: string, content: { tenant: string; key_id: string; key: string }): Promise<void> {
  const document = {
    ...content,
    note: "Local development only: the API key of the demo tenant of this local database, kept so npm start can print it on every start. Never use it anywhere else.",
  };
  await writeFile(file, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode applies only when it creates the file.
  await chmod(file, 0o600);
}
