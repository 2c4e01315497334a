/**
 * GET /api/tools for a tenant with more tools than one D1 statement may bind parameters (100):
 * every allowed page size answers, and paging by cursor hands out every tool exactly once.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { invoiceTool } from "../../fixtures/invoice-tools.js";
import { type TestTenant, call, newTenant } from "../helpers.js";

const TOOL_COUNT = 250;

interface ListedTool {
  id: string;
  name: string;
  operations: Array<{ operation_id: string; contract_hash: string }>;
}
interface Page {
  items: ListedTool[];
  next_cursor: string | null;
}

let tenant: TestTenant;
/** Newest first, as the list orders them. */
let registered: ListedTool[];

beforeAll(async () => {
  tenant = await newTenant();
  const created: ListedTool[] = [];
  // One after another, so created_at order is registration order (ties fall back to the id).
  for (let i = 0; i < TOOL_COUNT; i++) {
    const response = await call("POST", "/api/tools", {
      key: tenant.key,
      body: { ...invoiceTool, name: `bulk_${String(i).padStart(3, "0")}` },
    });
    expect(response.status).toBe(201);
    // SAFETY: documented Tool shape.
    created.push((await response.json()) as ListedTool);
  }
  registered = created.reverse();
}, 120_000);

async function page(query: string): Promise<Page> {
  const response = await call("GET", `/api/tools?${query}`, { key: tenant.key });
  const body: unknown = await response.json();
  expect({ status: response.status, error: (body as { error?: unknown }).error }).toEqual({
    status: 200,
    error: undefined,
  });
  // SAFETY: a 200 answer has the documented list shape.
  return body as Page;
}

/** What identifies a listed tool completely enough to catch operations attached to the wrong tool. */
const summary = (tool: ListedTool) => ({
  id: tool.id,
  name: tool.name,
  operations: tool.operations.map((op) => [op.operation_id, op.contract_hash]),
});

describe(`GET /api/tools with ${TOOL_COUNT} tools`, () => {
  it.each([200, 100, 101])(
    "answers a first page of limit=%i with the newest tools and their own operations",
    async (limit) => {
      const first = await page(`limit=${limit}`);
      expect(first.items.map(summary)).toEqual(registered.slice(0, limit).map(summary));
      expect(first.next_cursor).toEqual(expect.any(String));
    },
  );

  it.each([200, 100, 7])("pages through every tool exactly once with limit=%i", async (limit) => {
    const seen: ListedTool[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const next: Page = await page(`limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`);
      expect(next.items.length).toBeLessThanOrEqual(limit);
      seen.push(...next.items);
      cursor = next.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(Math.ceil(TOOL_COUNT / limit));
    expect(seen.map(summary)).toEqual(registered.map(summary));
  });
});
