import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { invoiceTool, placeOnHoldDefinition } from "../fixtures/invoice-tools.js";
import { type TestTenant, call, newTenant } from "./helpers.js";

let tenant: TestTenant;
let toolId: string;
let hash: string;

beforeAll(async () => {
  tenant = await newTenant();
  const response = await call("POST", "/api/tools", { key: tenant.key, body: invoiceTool });
  // SAFETY: documented answer shape.
  const tool = (await response.json()) as { id: string; operations: Array<{ contract_hash: string }> };
  toolId = tool.id;
  hash = tool.operations[1]!.contract_hash;
});

describe("revision numbers", () => {
  it("stay gap-free and unique when many saves of one operation race", async () => {
    const saves = 40;
    const responses = await Promise.all(
      Array.from({ length: saves }, () =>
        call("POST", `/api/tools/${toolId}/testing`, {
          key: tenant.key,
          body: { action: "save", operation_id: "place_invoice_on_hold", contract_hash: hash, definition: placeOnHoldDefinition },
        }),
      ),
    );
    // SAFETY: documented answer shape.
    const numbers = await Promise.all(responses.map(async (r) => ({ status: r.status, revision: ((await r.json()) as { revision: number }).revision })));
    expect(numbers.every((n) => n.status === 201)).toBe(true);
    expect(numbers.map((n) => n.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: saves }, (_, i) => i + 1));
    const stored = await env.DB.prepare("select revision from tool_mock_revisions where tool_id = ? and operation_id = ? order by revision")
      .bind(toolId, "place_invoice_on_hold")
      .all<{ revision: number }>();
    expect(stored.results.map((r) => r.revision)).toEqual(Array.from({ length: saves }, (_, i) => i + 1));
  });
});

describe("tool_mock_revisions is append-only at the database", () => {
  it("aborts UPDATE and DELETE from raw SQL, leaving the rows as they were", async () => {
    const before = await env.DB.prepare("select * from tool_mock_revisions where tool_id = ? order by revision").bind(toolId).all();
    expect(before.results.length).toBeGreaterThan(0);
    await expect(env.DB.prepare("update tool_mock_revisions set definition = '{}' where tool_id = ?").bind(toolId).run()).rejects.toThrow(
      /tool_mock_revisions is append-only/,
    );
    await expect(env.DB.prepare("update tool_mock_revisions set contract_hash = 'relabelled'").run()).rejects.toThrow(/tool_mock_revisions is append-only/);
    await expect(env.DB.prepare("delete from tool_mock_revisions where tool_id = ?").bind(toolId).run()).rejects.toThrow(/tool_mock_revisions is append-only/);
    const after = await env.DB.prepare("select * from tool_mock_revisions where tool_id = ? order by revision").bind(toolId).all();
    expect(after.results).toEqual(before.results);
  });

  it("does the same for policy versions", async () => {
    await env.DB.prepare("insert into policy_versions (tenant_id, name, version, document, created_by) values ('t', 'p', 1, '{}', 'k')").run();
    await expect(env.DB.prepare("update policy_versions set document = '[]'").run()).rejects.toThrow(/policy_versions is append-only/);
    await expect(env.DB.prepare("delete from policy_versions").run()).rejects.toThrow(/policy_versions is append-only/);
  });
});
