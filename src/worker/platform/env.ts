/**
 * Bindings the Worker receives (wrangler.toml) and the per-request variables set by middleware.
 * The one declaration of Env: globals.d.ts makes the Workers types' global Cloudflare.Env this same
 * type, so the Worker and the workerd tests cannot drift apart.
 */
import type { Database } from "../../adapters/d1/database.js";
import type { Ids } from "../../core/ports.js";
import type { CallbackMessage, EvalMessage } from "./queue-messages.js";

export interface Env {
  DB: D1Database;
  ATTEMPTS: DurableObjectNamespace;
  /** Dataset versions' JSON, one object per content hash (core/datasets/keys.ts); the rows that name them are in D1. */
  DATASETS: R2Bucket;
  /** One RunCoordinator per eval run (run-coordinator.ts). */
  RUNS: DurableObjectNamespace;
  /** One message per repetition of a run (evals/messages.ts); consumed by the same Worker (evals/queue.ts). */
  EVAL_QUEUE: Queue<EvalMessage>;
  /** One message per ended run that has a webhook callback (webhooks/callbacks.ts); consumed by the same Worker. */
  CALLBACK_QUEUE: Queue<CallbackMessage>;
  /** Refused deliveries per client address on POST /api/webhooks/:id (wrangler.toml [[ratelimits]], webhooks/refusal-throttle.ts). */
  WEBHOOK_REFUSALS: RateLimit;
  /** Static files (wrangler.toml [assets], scripts/static-assets.ts): the /docs viewer's bundle and styles. */
  ASSETS: Fetcher;
  /** Seconds before a failed callback's first retry, doubling after (default 10; tests shorten it). */
  CALLBACK_RETRY_DELAY_SECONDS?: string;
  /** Messages of one queue batch carried out at once (default 32): local throughput comes from this. */
  EVAL_BATCH_CONCURRENCY?: string;
  /** Seconds after a batch starts during which its free slots take their runs' next repetitions ahead of their messages (default 300; 0: never). */
  EVAL_TAKE_AHEAD_SECONDS?: string;
  /** Milliseconds a repetition may go without a result before the watchdog sends it again (default 600000). */
  EVAL_REPETITION_TIMEOUT_MS?: string;
  /** Milliseconds a run may take before it ends as an error with what was missing (default 7200000). */
  EVAL_RUN_TIMEOUT_MS?: string;
  TOOLPROOF_ENV?: string;
  /** Scales simulated delay_ms waits: 1 (default) honours them, 0 skips them (tests), 0..1 compresses. */
  DELAY_SCALE?: string;
  /** Milliseconds an attempt must be quiet before its evidence is copied to D1 (default 10000; tests shorten it). */
  EVIDENCE_IDLE_FLUSH_MS?: string;
  /**
   * The deployment secret (a Worker secret: `wrangler secret put TOOLPROOF_SECRET`; `npm start`
   * makes one in its state folder): 32 random bytes as base64url, the key that seals connection
   * API keys. Without it, routes that store or use a key answer 503 and say how to set it.
   */
  TOOLPROOF_SECRET?: string;
  /**
   * Where agents reach this deployment (https://toolproof.example.com): the base of the
   * dispatch_url and mcp_url an external agent's job carries. External runs refuse to start without it.
   */
  TOOLPROOF_PUBLIC_URL?: string;
  /** "1" on a local instance (npm start, the tests): real-tools runs may call loopback upstreams. Never set on a deployed Worker. */
  TOOLPROOF_ALLOW_LOOPBACK_UPSTREAMS?: string;
  /**
   * Opens POST /api/bootstrap, which mints the first Admin key of a deployed instance while no API
   * key exists (a Worker secret of at least 32 characters; routes/bootstrap.ts). Unset: the route is off.
   */
  TOOLPROOF_BOOTSTRAP_TOKEN?: string;
  /**
   * Days an ended run is kept in D1; the Cron Trigger's sweep (retention.ts) deletes older ones
   * with everything they own. Unset or empty: runs are kept for good.
   */
  TOOLPROOF_RETENTION_DAYS?: string;
}

export type Permission = "AIManager:ManageTools" | "AIManager:RunEvals" | "AIManager:Admin" | "AIManager:RunRealTools";
/** RunRealTools is never implied, not even by Admin: a key has it only when an admin grants it (see requireGranted). */
export const ALL_PERMISSIONS: readonly Permission[] = [
  "AIManager:ManageTools",
  "AIManager:RunEvals",
  "AIManager:Admin",
  "AIManager:RunRealTools",
];
/** Every permission but RunRealTools: what a key made for convenience (the local demo key) gets. */
export const STANDARD_PERMISSIONS: readonly Permission[] = ALL_PERMISSIONS.filter(
  (permission) => permission !== "AIManager:RunRealTools",
);

/** Who is calling a management route: resolved from the API key by the auth middleware. */
export interface Principal {
  tenantId: string;
  keyId: string;
  permissions: ReadonlySet<Permission>;
}

export type { Database };

export interface AppEnv {
  Bindings: Env;
  Variables: {
    db: Database;
    /** Where new simulation and attempt ids come from (createApp's services). */
    ids: Ids;
    principal: Principal;
  };
}
