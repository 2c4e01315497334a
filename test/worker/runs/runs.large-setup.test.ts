/**
 * A simulation, a suite or a run whose attempts' setup one stored row could not hold is refused
 * when it is asked for, with the setup's size, and nothing is kept. The setup (every pinned
 * operation's definition without its checked examples, and the tools' initial states) is one row
 * of the attempt's storage, and the run's coordinator keeps each distinct operations list as one
 * row too: a Durable Object refuses a row over 2,000,000 bytes, and the local runtime does not, so
 * without the check the local run passes and a deployed one fails at the first attempt.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { answer, call, newTenant, type TestTenant } from "../helpers.js";
import { libraryTool } from "../simulation-helpers.js";
import { invoicesWithLookups, padded, paddedState } from "../padded-invoices.js";
import { GET, QUERIES, server } from "../run-helpers.js";

/** Copies of get_invoice added to the tool: 24 operations of ~94 KB each. */
const LOOKUPS = 22;

let tenant: TestTenant;
let toolId: string;
/** The same operations, their definitions small but each with one example of ~94 KB of pre-call state. */
let exampleHeavyToolId: string;
let operationIds: string[];

/** The definition with its first example again, run over the padded state. */
function exampleHeavy(definition: Record<string, unknown>): Record<string, unknown> {
  const examples = definition.examples as Array<Record<string, unknown>>;
  return { ...definition, examples: [...examples, { ...examples[0], state: paddedState(definition) }] };
}

beforeAll(async () => {
  tenant = await newTenant();
  const large = invoicesWithLookups(LOOKUPS, padded);
  operationIds = large.operationIds;
  toolId = (await libraryTool(tenant, large.spec, large.definitions)).id;
  const heavy = invoicesWithLookups(LOOKUPS, exampleHeavy);
  exampleHeavyToolId = (await libraryTool(tenant, { ...heavy.spec, name: "invoices_examples" }, heavy.definitions)).id;
  // Never asked: the run is refused before any repetition is sent.
  const connection = await call("PUT", "/api/connections/model", {
    key: tenant.key,
    body: { base_url: server.openaiBaseUrl, model: "large-setup", api_key: "sk-test" },
  });
  expect(connection.status).toBe(201);
});

interface TooLarge {
  status: number;
  body: { error: { code: string; message: string; details: { bytes: number; limit_bytes: number } } };
}

/** The 413 answer, its message as `message` words it for the size it reports. */
function expectTooLarge(refused: { status: number; body: unknown }, message = setupMessage): void {
  expect(refused).toMatchObject({
    status: 413,
    body: { error: { code: "payload_too_large", details: { limit_bytes: 2_000_000 } } },
  });
  const { error } = (refused as TooLarge).body;
  expect(error.details.bytes).toBeGreaterThan(2_000_000);
  expect(error.message).toBe(message(error.details.bytes));
}

function setupMessage(bytes: number): string {
  return `the attempt's setup (its operations' definitions without their checked examples, and its tools) as stored would be ${bytes} bytes; a stored document may be at most 2000000 bytes (one row of the attempt's storage): pin fewer operations, or keep large initial states in a dataset`;
}

async function listed(path: string): Promise<unknown[]> {
  const response = await call("GET", path, { key: tenant.key });
  expect(response.status).toBe(200);
  return ((await response.json()) as { items: unknown[] }).items;
}

function suiteOf(tool: string, name: string): Record<string, unknown> {
  return {
    agent: {
      connection: "model",
      instructions: "You answer accounts payable questions about single invoices.",
      tools: operationIds.map((operation_id) => ({ tool_id: tool, operation_id, approval_mode: "never_require" })),
    },
    scenarios: [{ id: "status", query: QUERIES.status, expect: GET.replace("invoices", name), forbid: [] }],
    runs_per_scenario: 1,
    pass_rate: 0.9,
    judge: { connection: "model" },
  };
}

const putSuite = async (name: string, body: Record<string, unknown>) =>
  answer(await call("PUT", `/api/suites/${name}`, { key: tenant.key, body }));

describe("a setup past one stored row", () => {
  it("refuses the simulation with 413 and its size, and keeps nothing", async () => {
    const before = await listed("/api/simulations?limit=100");
    const refused = await answer(
      await call("POST", "/api/simulations", {
        key: tenant.key,
        body: { tools: operationIds.map((operation_id) => ({ tool_id: toolId, operation_id })) },
      }),
    );
    expectTooLarge(refused);
    expect(await listed("/api/simulations?limit=100")).toEqual(before);
  });

  it("refuses the suite at its save, not at its first run", async () => {
    expectTooLarge(await putSuite("large-setup", suiteOf(toolId, "invoices")));
    expect((await call("GET", "/api/suites/large-setup", { key: tenant.key })).status).toBe(404);
  });

  it("refuses a run whose pins grew past one row after its suite was saved, and starts nothing", async () => {
    const small = invoicesWithLookups(LOOKUPS, (definition) => definition);
    const tool = await libraryTool(tenant, { ...small.spec, name: "invoices_growing" }, small.definitions);
    expect(await putSuite("growing", suiteOf(tool.id, "invoices_growing"))).toMatchObject({ status: 201 });
    // The suite pins each operation's current revision when it runs: the new ones are large.
    const grown = invoicesWithLookups(LOOKUPS, padded).definitions;
    for (const operation of tool.operations) {
      const saved = await call("POST", `/api/tools/${tool.id}/testing`, {
        key: tenant.key,
        body: {
          action: "save",
          operation_id: operation.operation_id,
          contract_hash: operation.contract_hash,
          definition: grown[operation.operation_id],
        },
      });
      expect(saved.status).toBe(201);
    }
    const before = await listed("/api/simulations?limit=100");
    expectTooLarge(await answer(await call("POST", "/api/suites/growing/runs", { key: tenant.key })));
    expect(await listed("/api/runs?limit=100")).toEqual([]);
    expect(await listed("/api/simulations?limit=100")).toEqual(before);
  });

  it("refuses operations whose list, checked examples included, one row of a run's coordinator could not hold", async () => {
    // Without their examples the definitions are small: a simulation of them is set up.
    const tools = operationIds.map((operation_id) => ({ tool_id: exampleHeavyToolId, operation_id }));
    const simulation = await call("POST", "/api/simulations", { key: tenant.key, body: { tools } });
    expect(simulation.status).toBe(201);
    expectTooLarge(
      await putSuite("large-examples", suiteOf(exampleHeavyToolId, "invoices_examples")),
      (bytes) =>
        `one of the run's operations or tools lists (checked examples included) as stored would be ${bytes} bytes; a stored document may be at most 2000000 bytes (one row of the run coordinator's storage): pin fewer operations, or make their checked examples fewer or smaller`,
    );
  });
});
