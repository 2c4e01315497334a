/** Shared setup for workerd tests: real tenants and keys in the test file's D1, requests through the real app. */
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { databaseOf } from "../../src/adapters/d1/database.js";
import { createApiKey, createTenant } from "../../src/adapters/d1/api-keys.js";
import { ALL_PERMISSIONS, type Permission } from "../../src/worker/platform/env.js";

export const db = () => databaseOf(env.DB);

export interface TestTenant {
  id: string;
  name: string;
  /** A key with every permission. */
  key: string;
  keyId: string;
}

let counter = 0;

export async function newTenant(name = `tenant-${++counter}-${crypto.randomUUID().slice(0, 8)}`): Promise<TestTenant> {
  const tenant = await createTenant(db(), name);
  const { key, record } = await createApiKey(db(), { tenantId: tenant.id, name: "test", permissions: ALL_PERMISSIONS });
  return { ...tenant, key, keyId: record.id };
}

export async function keyWith(tenantId: string, permissions: Permission[]): Promise<string> {
  return (await createApiKey(db(), { tenantId, name: "limited", permissions })).key;
}

/** Calls the Worker's own fetch handler, as a client on the network would. */
export function call(
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  return exports.default.fetch(new Request(`http://toolproof.test${path}`, { method, headers, body }));
}

export async function json(response: Response): Promise<unknown> {
  return response.json();
}

/** A response as status and parsed body, for whole-answer assertions. */
export async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

/** The whole 400 invalid_request answer for `problems`, its message naming the first. */
export function invalidAnswer(...problems: Array<{ path: string; message: string }>): {
  status: number;
  body: unknown;
} {
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  return {
    status: 400,
    body: {
      error: { code: "invalid_request", message: `${first?.path}: ${first?.message}${more}`, details: { problems } },
    },
  };
}
