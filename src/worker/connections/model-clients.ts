/**
 * The model client for a tenant's named connection, for everything that calls a model (the run
 * consumer's agent runner and judge, generation from instructions). Every reason it cannot give
 * one is a sentence naming the connection, ready to be recorded on a repetition or answered.
 */
import { findConnection } from "../../adapters/d1/connections.js";
import { tcpProbe } from "../../adapters/model/tcp-probe.js";
import { openAIModelClient, type ModelConnectionConfig } from "../../adapters/model/openai-client.js";
import { sealingKey } from "../../adapters/secret-box.js";
import type { ModelClient } from "../../core/ports.js";
import type { Database, Env } from "../platform/env.js";
import { connectionConfig, openConnectionSecrets, unreadableMessage } from "./connection-secrets.js";

type OpenedConnection =
  | { ok: true; config: ModelConnectionConfig }
  | { ok: false; reason: "not_found" | "secret_missing" | "unreadable"; message: string };

/** A stored connection with its secrets opened. */
export async function openStoredConnection(
  env: Env,
  db: Database,
  tenantId: string,
  name: string,
): Promise<OpenedConnection> {
  const row = await findConnection(db, tenantId, name);
  if (!row)
    return {
      ok: false,
      reason: "not_found",
      message: `there is no model connection "${name}": create it with PUT /api/connections/${encodeURIComponent(name)}`,
    };
  const key = await sealingKey(env.TOOLPROOF_SECRET);
  if (!key.ok)
    return { ok: false, reason: "secret_missing", message: `connection "${name}" cannot be used: ${key.message}` };
  const secrets = await openConnectionSecrets(key.key, row);
  if (!secrets) return { ok: false, reason: "unreadable", message: unreadableMessage(name) };
  return { ok: true, config: connectionConfig(row, secrets) };
}

export async function modelClientFor(
  env: Env,
  db: Database,
  tenantId: string,
  name: string,
): Promise<
  | {
      ok: true;
      client: ModelClient;
      connection: { name: string; model: string; max_concurrency: number; structured_output: boolean };
    }
  | { ok: false; message: string }
> {
  const opened = await openStoredConnection(env, db, tenantId, name);
  if (!opened.ok) return { ok: false, message: opened.message };
  const { config } = opened;
  return {
    ok: true,
    client: openAIModelClient(config, Date.now, { probe: tcpProbe }),
    connection: {
      name: config.name,
      model: config.model,
      max_concurrency: config.max_concurrency,
      structured_output: config.structured_output,
    },
  };
}
