/**
 * The D1 schema, in one place. drizzle-kit generates the SQL migrations in migrations/ from this
 * file (npm run db:generate); triggers that drizzle cannot express live in hand-written migrations.
 * JSON documents are stored as text and parsed at the repository boundary.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

export const tenants = sqliteTable("tenants", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  created_at: createdAt(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    tenant_id: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    /** The first characters of the key, shown to people so they can tell keys apart. */
    prefix: text("prefix").notNull(),
    /** Lowercase hex SHA-256 of the whole key; the key itself is never stored. */
    key_hash: text("key_hash").notNull().unique(),
    /** JSON array of permission names. */
    permissions: text("permissions").notNull(),
    created_at: createdAt(),
    last_used_at: text("last_used_at"),
    revoked_at: text("revoked_at"),
  },
  (t) => [index("api_keys_tenant").on(t.tenant_id)],
);

export const tools = sqliteTable(
  "tools",
  {
    id: text("id").primaryKey(),
    tenant_id: text("tenant_id")
      .notNull()
      .references(() => tenants.id),
    name: text("name").notNull(),
    description: text("description").notNull(),
    kind: text("kind").notNull(),
    /** JSON Schema used by operations that have none of their own, or null. */
    output_schema: text("output_schema"),
    /** JSON: where the tool came from (import format, MCP allowed_tools, platform envelope...). */
    source: text("source"),
    created_at: createdAt(),
    updated_at: text("updated_at").notNull(),
    /**
     * When DELETE /api/tools/:id archived the tool, or null while it is in the library. The row
     * stays, with its operations and revisions, for the simulations that pinned it.
     */
    archived_at: text("archived_at"),
  },
  (t) => [
    index("tools_tenant_created").on(t.tenant_id, t.created_at, t.id),
    // Partial: an archived tool no longer holds its name, so a new tool may take it.
    uniqueIndex("tools_tenant_name").on(t.tenant_id, t.name).where(sql`archived_at IS NULL`),
  ],
);

export const toolOperations = sqliteTable(
  "tool_operations",
  {
    tool_id: text("tool_id")
      .notNull()
      .references(() => tools.id),
    operation_id: text("operation_id").notNull(),
    tenant_id: text("tenant_id").notNull(),
    position: integer("position").notNull(),
    description: text("description").notNull(),
    input_schema: text("input_schema").notNull(),
    /** The operation's own output schema, or null to fall back to the tool's. */
    output_schema: text("output_schema"),
    /** JSON object of MCP annotations (readOnlyHint, destructiveHint, ...), or null. */
    annotations: text("annotations"),
    /** SHA-256 over the effective contract; revisions checked against another hash are stale. */
    contract_hash: text("contract_hash").notNull(),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tool_id, t.operation_id] })],
);

/** Append-only: triggers in migrations/ abort every UPDATE, DELETE and insert over an existing key (REPLACE). */
export const toolMockRevisions = sqliteTable(
  "tool_mock_revisions",
  {
    tenant_id: text("tenant_id").notNull(),
    tool_id: text("tool_id").notNull(),
    operation_id: text("operation_id").notNull(),
    revision: integer("revision").notNull(),
    contract_hash: text("contract_hash").notNull(),
    definition: text("definition").notNull(),
    created_by: text("created_by").notNull(),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tool_id, t.operation_id, t.revision] })],
);

/** Append-only like revisions (the same triggers): each PUT of a policy adds a version. */
export const policyVersions = sqliteTable(
  "policy_versions",
  {
    tenant_id: text("tenant_id").notNull(),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    document: text("document").notNull(),
    created_by: text("created_by").notNull(),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenant_id, t.name, t.version] })],
);

/**
 * Append-only like policy versions (the same triggers): each stored dataset version. The JSON
 * itself lives in R2 (a D1 row holds at most about 2 MB; a dataset may be 25 MB and more) under
 * `datasetObjectKey` (core/datasets/keys.ts), named by its content hash, so equal content is stored once.
 */
export const datasetVersions = sqliteTable(
  "dataset_versions",
  {
    tenant_id: text("tenant_id").notNull(),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    /** sha256 hex of the dataset's canonical JSON text (the R2 object's name). */
    content_hash: text("content_hash").notNull(),
    /** Bytes of the canonical JSON text in R2. */
    bytes: integer("bytes").notNull(),
    description: text("description"),
    created_by: text("created_by").notNull(),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenant_id, t.name, t.version] })],
);

export const simulations = sqliteTable(
  "simulations",
  {
    id: text("id").primaryKey(),
    tenant_id: text("tenant_id").notNull(),
    created_by: text("created_by").notNull(),
    lease_seconds: integer("lease_seconds").notNull(),
    /** JSON: what was pinned (tool, operation, revision, variant, contract hash) per operation. */
    pinned: text("pinned").notNull(),
    created_at: createdAt(),
  },
  (t) => [index("simulations_tenant").on(t.tenant_id, t.created_at)],
);

export const attempts = sqliteTable(
  "attempts",
  {
    id: text("id").primaryKey(),
    simulation_id: text("simulation_id")
      .notNull()
      .references(() => simulations.id),
    tenant_id: text("tenant_id").notNull(),
    /** SHA-256 of the capability token; the token itself is shown once and never stored. */
    token_hash: text("token_hash").notNull().unique(),
    expires_at: text("expires_at").notNull(),
    /** Last status the attempt object reported: active, completed, harness_failed, expired. */
    status: text("status").notNull(),
    /** JSON: the external agent's final output and transcript, once completed. */
    completion: text("completion"),
    /** JSON: per tool name, the attempt's state as of the object's last flush (survives the object). */
    state: text("state"),
    created_at: createdAt(),
  },
  (t) => [index("attempts_simulation").on(t.simulation_id)],
);

/** Evidence of every call, flushed from the attempt objects in batches; keyed so a re-flush is a no-op. */
export const attemptCalls = sqliteTable(
  "attempt_calls",
  {
    attempt_id: text("attempt_id").notNull(),
    seq: integer("seq").notNull(),
    tenant_id: text("tenant_id").notNull(),
    call_id: text("call_id"),
    tool: text("tool").notNull(),
    operation_id: text("operation_id").notNull(),
    revision: integer("revision"),
    variant: text("variant"),
    rule: integer("rule"),
    arguments: text("arguments").notNull(),
    /** result, tool_input_error or harness_error. */
    outcome: text("outcome").notNull(),
    result: text("result"),
    error: text("error"),
    delay_ms: integer("delay_ms").notNull(),
    at: text("at").notNull(),
    /** JSON {tool, before, after}: the tool's state around a call that changed it; null otherwise. */
    state_change: text("state_change"),
    /** Real-tools calls only: JSON {status, latency_ms, contract_violations} of the forwarded call; null for a mock's answer. */
    upstream: text("upstream"),
  },
  (t) => [
    primaryKey({ columns: [t.attempt_id, t.seq] }),
    uniqueIndex("attempt_calls_call_id").on(t.attempt_id, t.call_id),
  ],
);

/**
 * Model endpoints (OpenAI-compatible) the eval runner and judge call. Mutable: a PUT replaces the
 * row. The API key and the header values are sealed together (AES-GCM under the deployment secret),
 * so a copy of the database alone reveals neither.
 */
export const connections = sqliteTable(
  "connections",
  {
    tenant_id: text("tenant_id").notNull(),
    name: text("name").notNull(),
    base_url: text("base_url").notNull(),
    /** The model, or the Azure deployment. */
    model: text("model").notNull(),
    /** Azure's dated API version (AzureOpenAI), or null for the OpenAI-style /v1 API. */
    api_version: text("api_version"),
    /** JSON array of the extra headers' names; their values are sealed. */
    header_names: text("header_names").notNull(),
    /** base64url of IV + AES-GCM ciphertext of the JSON {api_key, headers}. */
    sealed: text("sealed").notNull(),
    timeout_ms: integer("timeout_ms").notNull(),
    max_retries: integer("max_retries").notNull(),
    max_concurrency: integer("max_concurrency").notNull(),
    /** Whether to ask for structured output (response_format json_schema); off for endpoints without it. */
    structured_output: integer("structured_output", { mode: "boolean" }).notNull(),
    created_by: text("created_by").notNull(),
    created_at: createdAt(),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenant_id, t.name] })],
);

/** Append-only like policy versions (the same triggers): each PUT of a changed suite adds a version (an identical one adds none). */
export const suiteVersions = sqliteTable(
  "suite_versions",
  {
    tenant_id: text("tenant_id").notNull(),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    /** The normalized suite (core/evals/suite-types.ts), defaults filled in. */
    document: text("document").notNull(),
    created_by: text("created_by").notNull(),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenant_id, t.name, t.version] })],
);

/**
 * One row per eval run. The run's coordinator (a Durable Object per run) owns its progress and
 * writes its status, verdict and figures here as they change; D1 is what lists and outlives it.
 */
export const runs = sqliteTable(
  "runs",
  {
    id: text("id").primaryKey(),
    tenant_id: text("tenant_id").notNull(),
    suite_name: text("suite_name").notNull(),
    suite_version: integer("suite_version").notNull(),
    label: text("label"),
    /** queued, running, finished, cancelled. */
    status: text("status").notNull(),
    /** pass, fail, error, uncalibrated; null until the run has ended. */
    verdict: text("verdict"),
    hard_fail: integer("hard_fail", { mode: "boolean" }).notNull().default(false),
    pass_rate: real("pass_rate"),
    runs_per_scenario: integer("runs_per_scenario").notNull(),
    total_repetitions: integer("total_repetitions").notNull(),
    finished_repetitions: integer("finished_repetitions").notNull().default(0),
    /** JSON: what started the run ({kind: "api"} now; webhooks and CI add theirs). */
    trigger: text("trigger").notNull(),
    /** JSON: the pinned revisions per scenario, each distinct record once (runPinnedColumn in adapters/d1/runs.ts). */
    pinned: text("pinned").notNull(),
    /** JSON: the verdict's figures and reasons (core/scoring RunVerdict), once there are any. */
    summary: text("summary"),
    created_by: text("created_by").notNull(),
    created_at: createdAt(),
    started_at: text("started_at"),
    finished_at: text("finished_at"),
  },
  (t) => [
    index("runs_tenant_created").on(t.tenant_id, t.created_at, t.id),
    index("runs_tenant_suite").on(t.tenant_id, t.suite_name, t.created_at),
  ],
);

/** Each finished repetition of a run, copied from its coordinator when the run ends. */
export const runRepetitions = sqliteTable(
  "run_repetitions",
  {
    run_id: text("run_id").notNull(),
    /** 1..total, in scenario order then repetition order. */
    seq: integer("seq").notNull(),
    tenant_id: text("tenant_id").notNull(),
    scenario_id: text("scenario_id").notNull(),
    /** 1..runs_per_scenario within the scenario. */
    repetition: integer("repetition").notNull(),
    attempt_id: text("attempt_id").notNull(),
    /** pass, fail, error. */
    outcome: text("outcome").notNull(),
    /** JSON: the whole repetition record (calls, approval requests, answer, judge, verdict, transcript). */
    record: text("record").notNull(),
  },
  // The attempt page finds its run and repetition by the attempt id alone (src/worker/dashboard).
  (t) => [primaryKey({ columns: [t.run_id, t.seq] }), index("run_repetitions_attempt").on(t.attempt_id)],
);

/**
 * Signed triggers that start runs of one suite (POST /api/webhooks/:id). The signing secret is
 * sealed like connection keys. A deleted webhook keeps its row (deliveries point at it) and answers
 * exactly as an unknown id does.
 */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    tenant_id: text("tenant_id").notNull(),
    suite_name: text("suite_name").notNull(),
    /** standard (Standard Webhooks headers) or github (X-Hub-Signature-256). */
    format: text("format").notNull(),
    /** base64url of IV + AES-GCM ciphertext of the signing secret. */
    sealed_secret: text("sealed_secret").notNull(),
    runs_per_scenario: integer("runs_per_scenario"),
    label: text("label"),
    /** Where the run's verdict is POSTed (Standard-Webhooks-signed) when it ends, or null. */
    callback_url: text("callback_url"),
    /** JSON: the GitHub event filter ({event, actions?, states?}[]), or null for standard webhooks. */
    events: text("events"),
    created_by: text("created_by").notNull(),
    created_at: createdAt(),
    rotated_at: text("rotated_at"),
    deleted_at: text("deleted_at"),
  },
  (t) => [index("webhooks_tenant").on(t.tenant_id, t.created_at)],
);

/** Every delivery to a webhook URL: accepted, replayed, ignored (event filter) or refused, and why. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    /** As the URL named it: refused deliveries to unknown ids are recorded too. */
    webhook_id: text("webhook_id").notNull(),
    /** Null when the webhook id is unknown (the tenant is then unknown as well). */
    tenant_id: text("tenant_id"),
    /** webhook-id or X-GitHub-Delivery, when the request carried one. */
    delivery_id: text("delivery_id"),
    /** accepted, replayed, ignored, refused. */
    outcome: text("outcome").notNull(),
    reason: text("reason"),
    run_id: text("run_id"),
    /** JSON: what the delivery said about its source (GitHub event, action, commit, ref), or null. */
    source: text("source"),
    received_at: text("received_at").notNull(),
  },
  (t) => [
    index("webhook_deliveries_webhook").on(t.webhook_id, t.received_at),
    // A delivery id starts at most one run: a second accepted delivery with the same id is a replay.
    uniqueIndex("webhook_deliveries_accepted").on(t.webhook_id, t.delivery_id).where(sql`outcome = 'accepted'`),
  ],
);

/** Each attempt to POST a run's verdict to its webhook's callback_url. */
export const callbackDeliveries = sqliteTable(
  "callback_deliveries",
  {
    run_id: text("run_id").notNull(),
    /** 1, 2, ... in the order they were made. */
    attempt: integer("attempt").notNull(),
    tenant_id: text("tenant_id").notNull(),
    url: text("url").notNull(),
    /** The HTTP status the receiver answered, or null when it could not be reached. */
    status: integer("status"),
    error: text("error"),
    at: text("at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.run_id, t.attempt] })],
);

/**
 * The send of a run's callback (webhooks/callbacks.ts): one consumer at a time holds it while it
 * POSTs, and once a receiver answered 2xx nothing is POSTed for the run again, however often the
 * callback queue delivers its message.
 */
export const callbackSends = sqliteTable("callback_sends", {
  run_id: text("run_id").primaryKey(),
  /** Epoch milliseconds until which a consumer holds the send; 0 when none does. */
  claimed_until: integer("claimed_until").notNull(),
  /** When a receiver answered 2xx. */
  delivered_at: text("delivered_at"),
});

/**
 * Hand labels of repetitions (POST /api/runs/:id/labels), against which a suite's judge is
 * calibrated. One label per repetition; a new label for the same repetition replaces the old one.
 */
export const judgeLabels = sqliteTable(
  "judge_labels",
  {
    run_id: text("run_id").notNull(),
    /** The repetition's seq in run_repetitions. */
    seq: integer("seq").notNull(),
    tenant_id: text("tenant_id").notNull(),
    suite_name: text("suite_name").notNull(),
    /** pass or fail, or null when a score is given instead. */
    label: text("label"),
    /** 1..5, or null when a pass/fail label is given. */
    score: integer("score"),
    note: text("note"),
    created_by: text("created_by").notNull(),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.run_id, t.seq] }), index("judge_labels_suite").on(t.tenant_id, t.suite_name)],
);

/**
 * Dashboard sign-ins (src/worker/dashboard): the browser's cookie holds a random session id, and
 * only its SHA-256 is kept here. The row names the API key by its hash (the same value api_keys
 * holds), so every page load repeats the API's own key check: a revoked key ends the session.
 */
export const dashboardSessions = sqliteTable(
  "dashboard_sessions",
  {
    /** Lowercase hex SHA-256 of the session id in the cookie. */
    id_hash: text("id_hash").primaryKey(),
    key_hash: text("key_hash").notNull(),
    tenant_id: text("tenant_id").notNull(),
    /** The per-session token every dashboard form carries in a hidden field (CSRF). */
    csrf_token: text("csrf_token").notNull(),
    created_at: createdAt(),
    expires_at: text("expires_at").notNull(),
  },
  (t) => [index("dashboard_sessions_expiry").on(t.expires_at)],
);

/**
 * Secrets that sign the jobs sent to external agents (PUT /api/agent-secrets/:name), sealed like
 * connection keys and never answered back. A suite's external agent names one.
 */
export const agentSecrets = sqliteTable(
  "agent_secrets",
  {
    tenant_id: text("tenant_id").notNull(),
    name: text("name").notNull(),
    /** The secret sealed under TOOLPROOF_SECRET, bound to its tenant and name. */
    sealed_secret: text("sealed_secret").notNull(),
    created_by: text("created_by").notNull(),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenant_id, t.name] })],
);

/**
 * The jobs sent to external agents, by attempt: how POST /api/attempts/:id/complete finds the run
 * repetition an attempt belongs to. Written before the job is POSTed, so a completion never
 * arrives for a job it cannot place; marked accepted once the agent has answered it 2xx.
 */
export const agentJobs = sqliteTable("agent_jobs", {
  attempt_id: text("attempt_id").primaryKey(),
  tenant_id: text("tenant_id").notNull(),
  run_id: text("run_id").notNull(),
  seq: integer("seq").notNull(),
  created_at: createdAt(),
  /** When the agent answered the job 2xx: a later delivery of the repetition does not POST it again. */
  accepted_at: text("accepted_at"),
});

/**
 * Where a library tool's real handler is (core/tools/upstream.ts), for explicit real-tools runs:
 * one row per tool, replaced by each PUT. Credentials (a bearer token, header values) are sealed
 * like connection keys and never read back; their header names are kept in the clear.
 */
export const toolUpstreams = sqliteTable(
  "tool_upstreams",
  {
    tenant_id: text("tenant_id").notNull(),
    tool_id: text("tool_id").notNull(),
    /** JSON of the UpstreamConfig, without credentials. */
    config: text("config").notNull(),
    /** JSON array of the credential header names (authorization for a bearer token). */
    credential_names: text("credential_names").notNull(),
    /** Sealed JSON {headers} (secret-box.ts), or null when the upstream takes no credentials. */
    sealed: text("sealed"),
    updated_by: text("updated_by").notNull(),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenant_id, t.tool_id] })],
);

/** A tenant's allowlist of upstream hosts a real-tools run may call (set by an admin). */
export const upstreamHosts = sqliteTable(
  "upstream_hosts",
  {
    tenant_id: text("tenant_id").notNull(),
    host: text("host").notNull(),
    created_by: text("created_by").notNull(),
    created_at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.tenant_id, t.host] })],
);
