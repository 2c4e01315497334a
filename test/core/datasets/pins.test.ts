/**
 * Dataset pins in the core: the pin's shape, a version-2 definition's `dataset` (exclusive with
 * initial_state, examples carrying their own state), and planning: which pin a tool starts from,
 * and the refusals that name the field a pin came from.
 */
import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import { parseDefinition } from "../../../src/core/contract/index.js";
import {
  pinKey,
  readDatasetPin,
  type DatasetCatalog,
  type ResolvedDatasetPin,
} from "../../../src/core/datasets/pin.js";
import type { JsonObject } from "../../../src/core/json.js";
import { operationKey, type ToolLibrary } from "../../../src/core/simulation/library.js";
import { pinnedRecords, planSimulation, type ToolEntry } from "../../../src/core/simulation/plan.js";

const validator = createRuntimeValidator();

const stored: ResolvedDatasetPin[] = [
  { name: "retail", version: 1, content_hash: "a".repeat(64), bytes: 100 },
  { name: "retail", version: 2, content_hash: "b".repeat(64), bytes: 120 },
];
const catalog: DatasetCatalog = {
  async resolve(pins) {
    const wanted = new Set(pins.map(pinKey));
    return new Map(stored.filter((pin) => wanted.has(pinKey(pin))).map((pin) => [pinKey(pin), pin]));
  },
};
const noLibrary: ToolLibrary = {
  toolsById: () => Promise.reject(new Error("no library reads expected")),
  toolIdsByName: () => Promise.reject(new Error("no library reads expected")),
  pinCandidates: () => Promise.reject(new Error("no library reads expected")),
};

function pinnedDefinition(dataset?: JsonObject): JsonObject {
  return {
    schema_version: 2,
    default_variant: "ok",
    ...(dataset ? { dataset } : {}),
    variants: { ok: { result: { $expr: "state.orders.size()" } } },
    examples: [{ variant: "ok", input: {}, state: { orders: { "#W1": {} } }, expected: 1 }],
  };
}

function inline(name: string, operation: string, testing: JsonObject, dataset?: JsonObject): ToolEntry {
  return {
    inline: {
      name,
      operation_id: operation,
      description: "count orders",
      input_schema: { type: "object" },
      output_schema: { type: "integer" },
      testing,
    },
    ...(dataset ? { dataset: dataset as { name: string; version: number } } : {}),
  };
}

describe("a dataset pin's shape", () => {
  it("reads name and version, and names each wrong field", () => {
    expect(readDatasetPin({ name: "retail", version: 3 }, "/dataset")).toEqual({ pin: { name: "retail", version: 3 } });
    expect(readDatasetPin({ name: "a b", version: 0, extra: 1 }, "/tools/0/dataset")).toEqual({
      problems: [
        { path: "/tools/0/dataset/extra", message: 'unknown key "extra"; expected only name, version' },
        {
          path: "/tools/0/dataset/name",
          message: "required: a dataset name (1 to 64 letters, digits, '_', '.' or '-')",
        },
        { path: "/tools/0/dataset/version", message: "required: a version number (a whole number from 1)" },
      ],
    });
    expect(readDatasetPin("retail", "/dataset")).toEqual({
      problems: [{ path: "/dataset", message: 'expected a dataset pin {"name": "<dataset>", "version": <number>}' }],
    });
  });
});

describe("a version-2 definition's dataset", () => {
  it("is accepted with examples that carry their own state", () => {
    const parsed = parseDefinition(pinnedDefinition({ name: "retail", version: 2 }));
    expect(parsed.ok && parsed.definition.dataset).toEqual({ name: "retail", version: 2 });
  });

  it("is refused beside initial_state, in version 1, and with an example without state", () => {
    const both = { ...pinnedDefinition({ name: "retail", version: 2 }), initial_state: {} };
    expect(parseDefinition(both)).toEqual({
      ok: false,
      errors: [
        {
          path: "/initial_state",
          message: "give either initial_state or dataset (the tool's starting state), not both",
        },
      ],
    });
    const stateless = {
      ...pinnedDefinition({ name: "retail", version: 2 }),
      examples: [{ variant: "ok", input: {}, expected: 1 }],
    };
    expect(parseDefinition(stateless)).toEqual({
      ok: false,
      errors: [
        {
          path: "/examples/0/state",
          message:
            "required with a dataset pin: the state this example runs against (the dataset is not read when a definition is checked)",
        },
      ],
    });
    const version1 = {
      schema_version: 1,
      default_variant: "ok",
      dataset: { name: "retail", version: 2 },
      variants: { ok: { result: 1 } },
      examples: [{ variant: "ok", input: {}, expected: 1 }],
    };
    expect(parseDefinition(version1)).toEqual({
      ok: false,
      errors: [{ path: "/dataset", message: 'a dataset pin needs "schema_version": 2' }],
    });
  });
});

describe("planning with dataset pins", () => {
  it("starts a tool from its entry's pin over its definition's, with no initial state, and records the pin", async () => {
    const planned = await planSimulation(
      [
        inline("shop", "count", pinnedDefinition({ name: "retail", version: 1 }), { name: "retail", version: 2 }),
        inline("other", "count", pinnedDefinition({ name: "retail", version: 1 })),
        inline("plain", "count", { ...pinnedDefinition(), initial_state: { orders: {} } }),
      ],
      { library: noLibrary, validator, datasets: catalog },
    );
    if (!planned.ok) throw new Error(JSON.stringify(planned.refusal));
    expect(
      planned.plan.tools.map((tool) => ({ tool: tool.tool_name, state: tool.initial_state, dataset: tool.dataset })),
    ).toEqual([
      { tool: "shop", state: {}, dataset: stored[1] },
      { tool: "other", state: {}, dataset: stored[0] },
      { tool: "plain", state: { orders: {} }, dataset: undefined },
    ]);
    expect(pinnedRecords(planned.plan).map((record) => record.dataset)).toEqual([stored[1], stored[0], undefined]);
  });

  it("refuses a version that is not stored, naming the field the pin came from", async () => {
    const planned = await planSimulation(
      [
        inline("shop", "count", pinnedDefinition(), { name: "retail", version: 9 }),
        inline("other", "count", pinnedDefinition({ name: "orders", version: 1 })),
      ],
      { library: noLibrary, validator, datasets: catalog },
    );
    expect(planned).toEqual({
      ok: false,
      refusal: {
        kind: "not_found",
        problems: [
          {
            path: "/tools/0/dataset",
            message: 'no version 9 of dataset "retail" (GET /api/datasets/retail/versions lists its versions)',
          },
          {
            path: "/tools/1/inline/testing/dataset",
            message: 'no version 1 of dataset "orders" (GET /api/datasets/orders/versions lists its versions)',
          },
        ],
      },
    });
  });

  it("refuses two different pins for one tool, and lets an entry's pin decide over its definitions'", async () => {
    const op = (operation_id: string) => ({
      operation_id,
      description: "count orders",
      input_schema: { type: "object" },
      output_schema: { type: "integer" },
      contract_hash: `h-${operation_id}`,
    });
    const revision = (operation_id: string, version: number) => ({
      tool_id: "tool_shop",
      operation_id,
      revision: 1,
      contract_hash: `h-${operation_id}`,
      definition: pinnedDefinition({ name: "retail", version }),
    });
    const library: ToolLibrary = {
      toolsById: async () =>
        new Map([["tool_shop", { id: "tool_shop", name: "shop", operations: [op("a"), op("b")] }]]),
      toolIdsByName: async () => new Map(),
      pinCandidates: async () => ({
        pinnable: new Map([
          [operationKey("tool_shop", "a"), revision("a", 1)],
          [operationKey("tool_shop", "b"), revision("b", 2)],
        ]),
        newest: new Map(),
      }),
    };
    const refused = await planSimulation([{ tool_id: "tool_shop" }], { library, validator, datasets: catalog });
    expect(refused).toEqual({
      ok: false,
      refusal: {
        kind: "invalid_request",
        problems: [
          {
            path: "/tools/0 (revision 1 of b: /dataset)",
            message:
              'tool "shop" is already pinned to dataset "retail" version 1 by /tools/0 (revision 1 of a: /dataset); one tool starts from one dataset',
          },
        ],
      },
    });
    const decided = await planSimulation([{ tool_id: "tool_shop", dataset: { name: "retail", version: 2 } }], {
      library,
      validator,
      datasets: catalog,
    });
    expect(decided.ok && decided.plan.tools[0]?.dataset).toEqual(stored[1]);
  });
});
