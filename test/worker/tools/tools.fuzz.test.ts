/**
 * Open-ended client input on the tool library's id routes and on PUT's read-only fields: every
 * answer is a documented 2xx or 4xx with the error body, never a 5xx.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { invoiceTool } from "../../fixtures/invoice-tools.js";
import { type TestTenant, call, newTenant } from "../helpers.js";

let tenant: TestTenant;
let toolId: string;
let shown: Record<string, unknown> & { operations: Array<Record<string, unknown>> };

beforeAll(async () => {
  tenant = await newTenant();
  const created = await call("POST", "/api/tools", { key: tenant.key, body: { ...invoiceTool, name: "fuzzed" } });
  // SAFETY: documented Tool shape.
  toolId = ((await created.json()) as { id: string }).id;
  // SAFETY: documented Tool shape.
  shown = (await (await call("GET", `/api/tools/${toolId}`, { key: tenant.key })).json()) as typeof shown;
});

/** A 4xx has the one error body, with a JSON Pointer for each problem. */
async function expectClientAnswer(response: Response): Promise<void> {
  const body: unknown = await response.json();
  expect(response.status).toBeLessThan(500);
  if (response.status >= 400) {
    expect(body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    const problems =
      (body as { error: { details?: { problems?: Array<{ path: unknown }> } } }).error.details?.problems ?? [];
    for (const problem of problems) expect(problem.path).toEqual(expect.stringMatching(/^(\/.*)?$/));
  }
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });

describe("fuzzed tool library input", () => {
  it("answers any id in the path with a client answer", async () => {
    const id = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: "binary", maxLength: 20 }),
      fc.constantFrom("refunds", "fuzzed", "tool_", "tool_x", "%", "..", "a/b"),
    );
    await fc.assert(
      fc.asyncProperty(id, fc.constantFrom("GET", "PUT", "DELETE"), async (raw, method) => {
        const path = `/api/tools/${encodeURIComponent(raw).replace(/%2F/g, "%252F")}`;
        // Never DELETE the fuzzed tool itself: later runs need it.
        if (method === "DELETE" && raw === toolId) return;
        await expectClientAnswer(
          await call(method, path, { key: tenant.key, ...(method === "PUT" ? { body: shown } : {}) }),
        );
      }),
      { numRuns: 60 },
    );
  }, 60_000);

  it("answers any value in PUT's read-only and nullable fields with a client answer", async () => {
    const field = fc.constantFrom("id", "source", "created_at", "updated_at", "output_schema");
    const opField = fc.constantFrom("contract_hash", "output_schema_inherited", "output_schema", "annotations");
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(field, jsonValue, { maxKeys: 3 }),
        fc.dictionary(opField, jsonValue, { maxKeys: 3 }),
        fc.nat(1),
        async (top, op, index) => {
          const operations = shown.operations.map((o, i) => (i === index ? { ...o, ...op } : o));
          const response = await call("PUT", `/api/tools/${toolId}`, {
            key: tenant.key,
            body: { ...shown, ...top, operations },
          });
          await expectClientAnswer(response);
          // A change that went through moved updated_at: read the tool again for the next run.
          if (response.status === 200) {
            // SAFETY: documented Tool shape.
            shown = (await (await call("GET", `/api/tools/${toolId}`, { key: tenant.key })).json()) as typeof shown;
          }
        },
      ),
      { numRuns: 80 },
    );
  }, 60_000);
});
