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
          body: {
            action: "save",
            operation_id: "place_invoice_on_hold",
            contract_hash: hash,
            definition: placeOnHoldDefinition,
          },
        }),
      ),
    );
    // SAFETY: documented answer shape.
    const numbers = await Promise.all(
      responses.map(async (r) => ({ status: r.status, revision: ((await r.json()) as { revision: number }).revision })),
    );
    expect(numbers.every((n) => n.status === 201)).toBe(true);
    expect(numbers.map((n) => n.revision).sort((a, b) => a - b)).toEqual(
      Array.from({ length: saves }, (_, i) => i + 1),
    );
    const stored = await env.DB.prepare(
      "select revision from tool_mock_revisions where tool_id = ? and operation_id = ? order by revision",
    )
      .bind(toolId, "place_invoice_on_hold")
      .all<{ revision: number }>();
    expect(stored.results.map((r) => r.revision)).toEqual(Array.from({ length: saves }, (_, i) => i + 1));
  });
});

/**
 * Every way SQL can rewrite or remove a stored row. REPLACE deletes the old row without firing
 * DELETE triggers (unless recursive_triggers is on), and an UPSERT is an UPDATE in disguise; the
 * write must be refused either way.
 */
function rewrites(
  table: "tool_mock_revisions" | "policy_versions",
  key: Record<string, string | number>,
): Array<[string, D1PreparedStatement]> {
  const keyColumns = Object.keys(key);
  const where = keyColumns.map((column) => `${column} = ?`).join(" and ");
  const values = Object.values(key);
  const row = {
    ...key,
    ...(table === "tool_mock_revisions"
      ? { tenant_id: tenant.id, contract_hash: "forged", definition: "{}" }
      : { document: "{}" }),
    created_by: "intruder",
  };
  const columns = Object.keys(row).join(", ");
  const placeholders = Object.keys(row)
    .map(() => "?")
    .join(", ");
  const forged = Object.values(row);
  const payload = table === "tool_mock_revisions" ? "definition" : "document";
  return [
    ["UPDATE", env.DB.prepare(`update ${table} set ${payload} = '[]' where ${where}`).bind(...values)],
    ["DELETE", env.DB.prepare(`delete from ${table} where ${where}`).bind(...values)],
    [
      "INSERT OR REPLACE",
      env.DB.prepare(`insert or replace into ${table} (${columns}) values (${placeholders})`).bind(...forged),
    ],
    ["REPLACE", env.DB.prepare(`replace into ${table} (${columns}) values (${placeholders})`).bind(...forged)],
    [
      "UPSERT",
      env.DB.prepare(
        `insert into ${table} (${columns}) values (${placeholders}) on conflict (${keyColumns.join(", ")}) do update set ${payload} = excluded.${payload}`,
      ).bind(...forged),
    ],
  ];
}

async function expectRefusedAndUnchanged(
  table: "tool_mock_revisions" | "policy_versions",
  key: Record<string, string | number>,
): Promise<void> {
  const select = () => env.DB.prepare(`select * from ${table} order by 1, 2, 3`).all();
  const before = await select();
  expect(before.results.length).toBeGreaterThan(0);
  const outcomes: Array<[string, string]> = [];
  for (const [what, statement] of rewrites(table, key)) {
    outcomes.push([
      what,
      await statement.run().then(
        () => "went through",
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      ),
    ]);
  }
  expect(outcomes).toEqual(
    rewrites(table, key).map(([what]) => [what, expect.stringContaining(`${table} is append-only`)]),
  );
  expect((await select()).results).toEqual(before.results);
}

describe("tool_mock_revisions is append-only at the database", () => {
  it("refuses UPDATE, DELETE, REPLACE and UPSERT from raw SQL, leaving the rows as they were", async () => {
    await expectRefusedAndUnchanged("tool_mock_revisions", {
      tool_id: toolId,
      operation_id: "place_invoice_on_hold",
      revision: 1,
    });
  });

  it("does the same for policy versions", async () => {
    await env.DB.prepare(
      "insert into policy_versions (tenant_id, name, version, document, created_by) values ('t', 'p', 1, '{}', 'k')",
    ).run();
    await expectRefusedAndUnchanged("policy_versions", { tenant_id: "t", name: "p", version: 1 });
  });

  it("still takes new rows: the next revision and the next policy version", async () => {
    const saved = await call("POST", `/api/tools/${toolId}/testing`, {
      key: tenant.key,
      body: {
        action: "save",
        operation_id: "place_invoice_on_hold",
        contract_hash: hash,
        definition: placeOnHoldDefinition,
      },
    });
    expect(saved.status).toBe(201);
    await env.DB.prepare(
      "insert into policy_versions (tenant_id, name, version, document, created_by) values ('t', 'p', 2, '{}', 'k')",
    ).run();
    const versions = await env.DB.prepare(
      "select version from policy_versions where tenant_id = 't' and name = 'p' order by version",
    ).all();
    expect(versions.results).toEqual([{ version: 1 }, { version: 2 }]);
  });
});
