/**
 * Seeds the demo tools and the demo suite through the public HTTP API with the demo key, so they
 * pass the same checks as any client's. Idempotent: a tool that exists by name is not registered
 * again, an operation that already has a revision gets no new one, and the suite file is PUT as it
 * is (an unchanged suite adds no version), so restarts add nothing.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { field, isRecord, stringField } from "./narrow.js";
import { DEMO_TOOLS, type DemoTool } from "./demo-tools.js";
import { PROJECT_ROOT } from "./paths.js";

/** The seed's InvoiceDesk suite against the demo `invoices` tool: one file, for readers and for the seeder. */
export const DEMO_SUITE_FILE = path.join(PROJECT_ROOT, "examples", "evals", "invoicedesk.yaml");
export const DEMO_SUITE_NAME = "invoicedesk";

export interface SeededSuite {
  name: string;
  version: number;
  /** True when this start stored a new version (the first start, or a changed file). */
  changed: boolean;
  scenarios: number;
  runs_per_scenario: number;
  /** Connections the suite names that the demo tenant has not stored: runs need them. */
  missing_connections: string[];
}

export interface SeededOperation {
  operation_id: string;
  /** The latest revision number, or null when none could be saved. */
  revision: number | null;
}

export interface SeededTool {
  id: string;
  name: string;
  /** True when this start registered the tool; false when it was already there. */
  created: boolean;
  operations: SeededOperation[];
  /** Problems that did not stop the server (for example a demo tool someone changed by hand). */
  warnings: string[];
}

export async function seedDemoTools(
  baseUrl: string,
  key: string,
  tools: readonly DemoTool[] = DEMO_TOOLS,
): Promise<SeededTool[]> {
  const client = new ApiClient(baseUrl, key);
  const existing = await client.toolIdsByName();
  const seeded: SeededTool[] = [];
  for (const demo of tools) {
    let id = existing.get(demo.tool.name);
    const created = id === undefined;
    if (id === undefined) {
      const response = await client.call("POST", "/api/tools", demo.tool);
      id = response.status === 201 ? stringField(response.body, "id") : undefined;
      if (id === undefined) throw client.failure(`registering demo tool "${demo.tool.name}"`, response);
    }
    seeded.push(await saveMissingRevisions(client, id, demo, created));
  }
  return seeded;
}

/** PUTs the demo suite file (YAML) as the demo tenant's `invoicedesk` suite; run after the demo tools exist. */
export async function seedDemoSuite(baseUrl: string, key: string, file = DEMO_SUITE_FILE): Promise<SeededSuite> {
  const client = new ApiClient(baseUrl, key);
  const text = await readFile(file, "utf8");
  const saved = await client.call("PUT", `/api/suites/${DEMO_SUITE_NAME}`, text, "application/yaml");
  const version = field(saved.body, "version");
  if ((saved.status !== 200 && saved.status !== 201) || typeof version !== "number")
    throw client.failure(`saving the demo suite from ${path.relative(PROJECT_ROOT, file)}`, saved);
  const stored = await client.call("GET", `/api/suites/${DEMO_SUITE_NAME}`);
  const suite = field(stored.body, "suite");
  const scenarios = field(suite, "scenarios");
  const runs = field(suite, "runs_per_scenario");
  const warnings = field(saved.body, "warnings");
  // Each warning points at the field naming the missing connection (/agent/connection, /judge/connection).
  const missing = Array.isArray(warnings)
    ? warnings.flatMap((warning: unknown) => {
        const [, owner = "", name = ""] = (stringField(warning, "path") ?? "").split("/");
        return stringField(field(suite, owner), name) ?? [];
      })
    : [];
  return {
    name: DEMO_SUITE_NAME,
    version,
    changed: field(saved.body, "changed") === true,
    scenarios: Array.isArray(scenarios) ? scenarios.length : 0,
    runs_per_scenario: typeof runs === "number" ? runs : 0,
    missing_connections: [...new Set(missing)],
  };
}

async function saveMissingRevisions(
  client: ApiClient,
  toolId: string,
  demo: DemoTool,
  created: boolean,
): Promise<SeededTool> {
  const view = await client.call("GET", `/api/tools/${encodeURIComponent(toolId)}/testing`);
  const operations = field(view.body, "operations");
  if (view.status !== 200 || !Array.isArray(operations))
    throw client.failure(`reading the testing view of "${demo.tool.name}"`, view);
  const result: SeededTool = { id: toolId, name: demo.tool.name, created, operations: [], warnings: [] };
  for (const [operationId, definition] of Object.entries(demo.definitions)) {
    const operation: unknown = operations.find((op: unknown) => stringField(op, "operation_id") === operationId);
    const contractHash = stringField(operation, "contract_hash");
    if (contractHash === undefined) {
      result.warnings.push(`${demo.tool.name} has no operation "${operationId}" any more; its demo mock was not saved`);
      result.operations.push({ operation_id: operationId, revision: null });
      continue;
    }
    const latest = field(operation, "latest_revision");
    const latestNumber = field(latest, "revision");
    if (typeof latestNumber === "number") {
      result.operations.push({ operation_id: operationId, revision: latestNumber });
      continue;
    }
    const saved = await client.call("POST", `/api/tools/${encodeURIComponent(toolId)}/testing`, {
      action: "save",
      operation_id: operationId,
      contract_hash: contractHash,
      definition,
    });
    const revision = field(saved.body, "revision");
    if (saved.status === 201 && typeof revision === "number") {
      result.operations.push({ operation_id: operationId, revision });
      continue;
    }
    // A tool registered just now with our own schemas must take our definitions: anything else is a bug here.
    if (created) throw client.failure(`saving the demo mock of ${demo.tool.name}.${operationId}`, saved);
    result.warnings.push(
      `the demo mock of ${demo.tool.name}.${operationId} was not saved (${saved.status}): the tool was changed by hand`,
    );
    result.operations.push({ operation_id: operationId, revision: null });
  }
  return result;
}

interface ApiResponse {
  status: number;
  body: unknown;
}

class ApiClient {
  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
  ) {}

  /** `body` is sent as JSON, or as it is when a `contentType` is given (a YAML file's text). */
  async call(method: string, path: string, body?: unknown, contentType?: string): Promise<ApiResponse> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}` };
    if (body !== undefined) headers["content-type"] = contentType ?? "application/json";
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      headers,
      body:
        body === undefined
          ? undefined
          : contentType !== undefined && typeof body === "string"
            ? body
            : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: keep the text so the failure message can show it.
    }
    return { status: response.status, body: parsed };
  }

  /** Every tool of the tenant by name, following the list's cursor. */
  async toolIdsByName(): Promise<Map<string, string>> {
    const ids = new Map<string, string>();
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`;
      const page = await this.call("GET", `/api/tools?limit=200${query}`);
      const items = field(page.body, "items");
      if (page.status !== 200 || !Array.isArray(items)) throw this.failure("listing the demo tenant's tools", page);
      for (const item of items) {
        const name = stringField(item, "name");
        const id = stringField(item, "id");
        if (name !== undefined && id !== undefined) ids.set(name, id);
      }
      const next = field(page.body, "next_cursor");
      cursor = typeof next === "string" ? next : null;
    } while (cursor !== null);
    return ids;
  }

  failure(what: string, response: ApiResponse): Error {
    const detail = isRecord(response.body) ? JSON.stringify(response.body, null, 2) : String(response.body);
    return new Error(`${what} failed: HTTP ${response.status}\n${detail.slice(0, 4000)}`);
  }
}
