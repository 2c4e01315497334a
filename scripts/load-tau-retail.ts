/**
 * Loads τ-bench's retail environment (examples/environments/tau-retail/) into a running toolproof,
 * through its public API only, so it passes every check a client's upload passes:
 *
 * 1. the dataset (`dataset.json`) as the next version of the tenant's dataset `retail`
 *    (POST /api/datasets/retail/versions; the same content again answers the version it already is);
 * 2. the tool `retail` (`tool.json`): registered (POST /api/tools), or replaced by the file when the
 *    tenant has a tool of that name (PUT /api/tools/:id);
 * 3. one revision per operation (POST /api/tools/:id/testing, action "save"): the definition of
 *    `definitions/<operation>.json` with `"dataset": {"name": "retail", "version": <that version>}`,
 *    so every attempt starts from the stored dataset without copying it. Saving runs each
 *    definition's checked examples; a definition that fails them is refused and the script stops.
 *
 * Usage (against `npm start`, with the key it printed):
 *   TOOLPROOF_KEY=tpk_... npm run load:tau-retail
 *   TOOLPROOF_URL=https://toolproof.example.com TOOLPROOF_KEY=tpk_... npm run load:tau-retail
 * TOOLPROOF_URL defaults to npm start's address. The key needs AIManager:ManageTools. It prints
 * what it stored as JSON (dataset version, tool id, revision per operation).
 */
import { readFile, readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

const FOLDER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../examples/environments/tau-retail");
/** Where `npm start` listens unless told otherwise. */
const DEFAULT_URL = "http://127.0.0.1:8787";
const DATASET_NAME = "retail";

interface Answer {
  status: number;
  body: unknown;
}

class LoadError extends Error {}

function field(value: unknown, key: string): unknown {
  // SAFETY: a non-null, non-array object parsed from JSON, read one key at a time.
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function client(baseUrl: string, key: string) {
  return async (method: string, route: string, body?: string): Promise<Answer> => {
    const response = await fetch(new URL(route, baseUrl), {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body }),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: kept as text, so the failure message shows what the server said.
    }
    return { status: response.status, body: parsed };
  };
}

function failure(what: string, answer: Answer): LoadError {
  return new LoadError(`${what} failed with HTTP ${answer.status}: ${JSON.stringify(answer.body)}`);
}

async function findToolId(call: ReturnType<typeof client>, name: string): Promise<string | undefined> {
  let cursor: string | null = null;
  do {
    const page: Answer = await call(
      "GET",
      `/api/tools?limit=200${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    const items = field(page.body, "items");
    if (page.status !== 200 || !Array.isArray(items)) throw failure("listing the tenant's tools", page);
    const found = items.find((item) => field(item, "name") === name);
    const id = field(found, "id");
    if (typeof id === "string") return id;
    const next = field(page.body, "next_cursor");
    cursor = typeof next === "string" ? next : null;
  } while (cursor !== null);
  return undefined;
}

export async function loadTauRetail(baseUrl: string, key: string) {
  const call = client(baseUrl, key);

  const dataset = await readFile(path.join(FOLDER, "dataset.json"), "utf8");
  const stored = await call("POST", `/api/datasets/${DATASET_NAME}/versions`, dataset);
  const version = field(stored.body, "version");
  if ((stored.status !== 201 && stored.status !== 200) || typeof version !== "number")
    throw failure(`saving dataset "${DATASET_NAME}"`, stored);

  const toolText = await readFile(path.join(FOLDER, "tool.json"), "utf8");
  const toolName = String(field(JSON.parse(toolText), "name"));
  let toolId = await findToolId(call, toolName);
  const registered =
    toolId === undefined
      ? await call("POST", "/api/tools", toolText)
      : await call("PUT", `/api/tools/${toolId}`, toolText);
  if (registered.status !== 201 && registered.status !== 200)
    throw failure(`registering tool "${toolName}"`, registered);
  const registeredId = field(registered.body, "id");
  if (typeof registeredId !== "string") throw failure(`registering tool "${toolName}"`, registered);
  toolId = registeredId;

  const view = await call("GET", `/api/tools/${toolId}/testing`);
  const operations = field(view.body, "operations");
  if (view.status !== 200 || !Array.isArray(operations)) throw failure(`reading the operations of "${toolName}"`, view);
  const hashes = new Map(operations.map((op) => [field(op, "operation_id"), field(op, "contract_hash")]));

  const revisions: Record<string, number> = {};
  const files = (await readdir(path.join(FOLDER, "definitions"))).filter((file) => file.endsWith(".json")).sort();
  for (const file of files) {
    const operationId = file.replace(/\.json$/, "");
    const contractHash = hashes.get(operationId);
    if (typeof contractHash !== "string") throw new LoadError(`tool "${toolName}" has no operation "${operationId}"`);
    // SAFETY: the definitions are JSON objects (test/core/environments/tau-retail-replay.test.ts parses each).
    const definition = JSON.parse(await readFile(path.join(FOLDER, "definitions", file), "utf8")) as object;
    const saved = await call(
      "POST",
      `/api/tools/${toolId}/testing`,
      JSON.stringify({
        action: "save",
        operation_id: operationId,
        contract_hash: contractHash,
        definition: { ...definition, dataset: { name: DATASET_NAME, version } },
      }),
    );
    const revision = field(saved.body, "revision");
    if (saved.status !== 201 || typeof revision !== "number") throw failure(`saving the mock of ${operationId}`, saved);
    revisions[operationId] = revision;
  }
  return { dataset: { name: DATASET_NAME, version }, tool: { id: toolId, name: toolName }, revisions };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const url = process.env.TOOLPROOF_URL || DEFAULT_URL;
  const key = process.env.TOOLPROOF_KEY;
  if (!key) {
    process.stderr.write(
      "set TOOLPROOF_KEY to an API key with AIManager:ManageTools (npm start prints its demo key); TOOLPROOF_URL defaults to http://127.0.0.1:8787\n",
    );
    process.exit(2);
  }
  loadTauRetail(url, key).then(
    (loaded) => process.stdout.write(`${JSON.stringify(loaded, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
