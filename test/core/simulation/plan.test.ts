import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import { parseDefinition } from "../../../src/core/contract/index.js";
import type { MockDefinition } from "../../../src/core/contract/types.js";
import type { JsonObject, JsonValue } from "../../../src/core/json.js";
import {
  operationKey,
  type LibraryTool,
  type NewestRevision,
  type PinnableRevision,
  type ToolLibrary,
} from "../../../src/core/simulation/library.js";
import {
  attemptSetup,
  pinnedRecord,
  planSimulation,
  type PlanResult,
  type ToolEntry,
} from "../../../src/core/simulation/plan.js";
import { definition } from "./definitions.js";

const validator = createRuntimeValidator();
const objectSchema: JsonObject = { type: "object" };

interface StoredRevision {
  tool_id: string;
  operation_id: string;
  revision: number;
  contract_hash: string;
  definition: JsonValue;
}

/**
 * The ToolLibrary port over plain arrays, answering pin candidates by the rule the D1 query
 * implements: the newest revision saved against the operation's current hash, and the newest of any.
 */
function memoryLibrary(tools: LibraryTool[], revisions: StoredRevision[]): ToolLibrary & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    async toolsById(ids) {
      reads.push(`toolsById ${ids.join(",")}`);
      return new Map(tools.filter((tool) => ids.includes(tool.id)).map((tool) => [tool.id, tool]));
    },
    async toolIdsByName(names) {
      reads.push(`toolIdsByName ${names.join(",")}`);
      return new Map(tools.filter((tool) => names.includes(tool.name)).map((tool) => [tool.name, tool.id]));
    },
    async pinCandidates(toolIds) {
      reads.push(`pinCandidates ${toolIds.join(",")}`);
      const pinnable = new Map<string, PinnableRevision>();
      const newest = new Map<string, NewestRevision>();
      for (const tool of tools.filter((t) => toolIds.includes(t.id))) {
        for (const op of tool.operations) {
          const own = revisions
            .filter((r) => r.tool_id === tool.id && r.operation_id === op.operation_id)
            .sort((a, b) => b.revision - a.revision);
          const current = own.find((r) => r.contract_hash === op.contract_hash);
          const latest = own[0];
          if (current) pinnable.set(operationKey(tool.id, op.operation_id), current);
          if (latest)
            newest.set(operationKey(tool.id, op.operation_id), {
              tool_id: latest.tool_id,
              operation_id: latest.operation_id,
              revision: latest.revision,
              contract_hash: latest.contract_hash,
            });
        }
      }
      return { pinnable, newest };
    },
  };
}

function parsed(raw: JsonObject): MockDefinition {
  const result = parseDefinition(raw);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.definition;
}

function operation(operation_id: string, contract_hash: string) {
  return {
    operation_id,
    description: `${operation_id} things`,
    input_schema: objectSchema,
    output_schema: objectSchema,
    contract_hash,
  };
}

const calendar: LibraryTool = {
  id: "tool_calendar",
  name: "calendar",
  operations: [operation("book", "h-book"), operation("cancel", "h-cancel")],
};
const clock: LibraryTool = {
  id: "tool_clock",
  name: "clock",
  output_schema: objectSchema,
  operations: [{ operation_id: "now", description: "now", input_schema: objectSchema, contract_hash: "h-now" }],
};
const bookDefinition = definition(["open", "full"], { slots: { "09:00": "free" } });
const cancelDefinition = definition(["done"], { slots: { "09:00": "free" }, cancelled: 0 });
const revisions: StoredRevision[] = [
  {
    tool_id: "tool_calendar",
    operation_id: "book",
    revision: 1,
    contract_hash: "h-book",
    definition: definition(["open"]),
  },
  { tool_id: "tool_calendar", operation_id: "book", revision: 2, contract_hash: "h-book", definition: bookDefinition },
  {
    tool_id: "tool_calendar",
    operation_id: "book",
    revision: 3,
    contract_hash: "h-book-old",
    definition: definition(["old"]),
  },
  {
    tool_id: "tool_calendar",
    operation_id: "cancel",
    revision: 1,
    contract_hash: "h-cancel",
    definition: cancelDefinition,
  },
  { tool_id: "tool_clock", operation_id: "now", revision: 4, contract_hash: "h-now", definition: definition(["tick"]) },
];
const weather = {
  name: "weather",
  description: "the weather",
  input_schema: objectSchema,
  output_schema: objectSchema,
  testing: definition(["sunny", "storm"]),
};

function plan(entries: ToolEntry[], library = memoryLibrary([calendar, clock], revisions)): Promise<PlanResult> {
  return planSimulation(entries, { library, validator });
}

function refusal(kind: string, problems: Array<{ path: string; message: string }>) {
  return { ok: false, refusal: { kind, problems } };
}

describe("planSimulation", () => {
  it("pins the newest revision checked against each current contract, library entries before inline ones, with variants, names and merged states", async () => {
    const result = await plan([
      { inline: weather, variant: "storm" },
      { tool_id: "tool_calendar", variants: { book: "full" } },
      { tool_id: "tool_clock" },
    ]);
    const common = {
      description: expect.any(String),
      input_schema: objectSchema,
      output_schema: objectSchema,
      annotations: null,
    };
    expect(result).toEqual({
      ok: true,
      plan: {
        operations: [
          {
            ...common,
            function_name: "calendar__book",
            tool_id: "tool_calendar",
            tool_name: "calendar",
            operation_id: "book",
            revision: 2,
            contract_hash: "h-book",
            variant: "full",
            definition: parsed(bookDefinition),
          },
          {
            ...common,
            function_name: "calendar__cancel",
            tool_id: "tool_calendar",
            tool_name: "calendar",
            operation_id: "cancel",
            revision: 1,
            contract_hash: "h-cancel",
            variant: "done",
            definition: parsed(cancelDefinition),
          },
          {
            ...common,
            function_name: "clock",
            tool_id: "tool_clock",
            tool_name: "clock",
            operation_id: "now",
            revision: 4,
            contract_hash: "h-now",
            variant: "tick",
            definition: parsed(definition(["tick"])),
          },
          {
            ...common,
            function_name: "weather",
            tool_id: null,
            tool_name: "weather",
            operation_id: "weather",
            revision: null,
            contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
            variant: "storm",
            definition: parsed(weather.testing),
          },
        ],
        tools: [
          {
            tool_id: "tool_calendar",
            tool_name: "calendar",
            operation_ids: ["book", "cancel"],
            initial_state: { slots: { "09:00": "free" }, cancelled: 0 },
          },
          { tool_id: "tool_clock", tool_name: "clock", operation_ids: ["now"], initial_state: {} },
          { tool_id: null, tool_name: "weather", operation_ids: ["weather"], initial_state: {} },
        ],
      },
    });
  });

  it("keeps all of a library tool's operation ids when only one is pinned, so the attempt tells 'not pinned' from 'no such operation'", async () => {
    const result = await plan([{ tool_id: "tool_calendar", operation_id: "cancel" }]);
    expect(result.ok && result.plan.tools).toEqual([
      {
        tool_id: "tool_calendar",
        tool_name: "calendar",
        operation_ids: ["book", "cancel"],
        initial_state: { slots: { "09:00": "free" }, cancelled: 0 },
      },
    ]);
    expect(result.ok && result.plan.operations.map((op) => op.function_name)).toEqual(["calendar__cancel"]);
  });

  it("builds the attempt setup and the durable record from the plan: inline tools keep their definition, library ones point at their revision", async () => {
    const result = await plan([{ tool_id: "tool_clock" }, { inline: weather }]);
    if (!result.ok) throw new Error("expected a plan");
    const identity = {
      attempt_id: "att_1",
      simulation_id: "sim_1",
      tenant_id: "tnt_1",
      token_hash: "ab",
      expires_at: 1000,
    };
    expect(attemptSetup(result.plan, identity)).toEqual({
      ...identity,
      operations: result.plan.operations,
      tools: result.plan.tools,
    });
    const [clockOp, weatherOp] = result.plan.operations;
    if (!clockOp || !weatherOp) throw new Error("expected two operations");
    expect(result.plan.operations.map(pinnedRecord)).toEqual([
      {
        tool_id: "tool_clock",
        tool_name: "clock",
        operation_id: "now",
        function_name: "clock",
        revision: 4,
        variant: "tick",
        contract_hash: "h-now",
      },
      {
        tool_id: null,
        tool_name: "weather",
        operation_id: "weather",
        function_name: "weather",
        revision: null,
        variant: "sunny",
        contract_hash: weatherOp.contract_hash,
        inline: {
          description: "the weather",
          input_schema: objectSchema,
          output_schema: objectSchema,
          definition: parsed(weather.testing),
        },
      },
    ]);
  });

  it("invalid_request before anything is read: variant beside variants, inline schemas that are not JSON Schema", async () => {
    const library = memoryLibrary([calendar], revisions);
    const result = await plan(
      [
        { tool_id: "tool_calendar", variant: "open", variants: { book: "open" } },
        { inline: { ...weather, input_schema: { type: "objekt" } } },
      ],
      library,
    );
    expect(result).toEqual(
      refusal("invalid_request", [
        {
          path: "/tools/0/variant",
          message: "give either variant (one operation) or variants (by operation_id), not both",
        },
        {
          path: expect.stringMatching(/^\/tools\/1\/inline\/input_schema/),
          message: expect.stringContaining("not a valid JSON Schema"),
        },
      ]),
    );
    expect(library.reads).toEqual([]);
  });

  it("not_found for tools and operations the tenant does not have; a name given as tool_id says so, with the id when such a tool exists", async () => {
    const library = memoryLibrary([calendar, clock], revisions);
    expect(
      await plan(
        [
          { tool_id: "tool_gone" },
          { tool_id: "calendar" },
          { tool_id: "tool_calendar", operation_id: "move" },
          { tool_id: "payments" },
        ],
        library,
      ),
    ).toEqual(
      refusal("not_found", [
        { path: "/tools/0/tool_id", message: 'no tool "tool_gone"' },
        {
          path: "/tools/1/tool_id",
          message:
            'no tool "calendar": that looks like a tool name, and tool_id takes the tool\'s id; the tool named "calendar" has id "tool_calendar"',
        },
        { path: "/tools/2/operation_id", message: 'tool "calendar" has no operation "move" (it has book, cancel)' },
        {
          path: "/tools/3/tool_id",
          message:
            'no tool "payments": tool_id takes a tool\'s id (tool_…, as GET /api/tools lists them), and no tool is named "payments" either',
        },
      ]),
    );
    // Names are looked up only for the ids that were not found; nothing is pinned, so no revisions are read.
    expect(library.reads).toEqual([
      "toolsById tool_gone,calendar,tool_calendar,payments",
      "toolIdsByName tool_gone,calendar,payments",
    ]);
  });

  it("invalid_request for a variant on an entry of several operations, a variants key it does not pin, an operation pinned twice", async () => {
    expect(await plan([{ tool_id: "tool_calendar", variant: "open" }])).toEqual(
      refusal("invalid_request", [
        {
          path: "/tools/0/variant",
          message: 'this entry pins 2 operations; choose their variants with variants: {"<operation_id>": "<variant>"}',
        },
      ]),
    );
    expect(
      await plan([{ tool_id: "tool_calendar", operation_id: "book", variants: { cancel: "done", "a/b~c": "x" } }]),
    ).toEqual(
      refusal("invalid_request", [
        { path: "/tools/0/variants/cancel", message: 'this entry pins no operation "cancel"' },
        { path: "/tools/0/variants/a~1b~0c", message: 'this entry pins no operation "a/b~c"' },
      ]),
    );
    expect(await plan([{ tool_id: "tool_calendar", operation_id: "cancel" }, { tool_id: "tool_calendar" }])).toEqual(
      refusal("invalid_request", [
        { path: "/tools/1", message: 'operation "cancel" of tool "calendar" is already pinned by /tools/0' },
      ]),
    );
  });

  it("invalid_definition with each failing inline definition's check report", async () => {
    const broken = {
      ...weather,
      name: "broken",
      testing: { ...definition(["a"]), examples: [{ variant: "a", input: {}, expected: { wrong: true } }] },
    };
    const result = await plan([
      { inline: weather },
      { inline: broken },
      { inline: { ...broken, name: "unparsable", testing: "not a definition" } },
    ]);
    expect(result).toEqual({
      ok: false,
      refusal: {
        kind: "invalid_definition",
        definitions: [
          {
            path: "/tools/1/inline/testing",
            report: {
              valid: false,
              errors: expect.any(Array),
              examples: [expect.objectContaining({ index: 0, passed: false })],
              contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
            },
          },
          {
            path: "/tools/2/inline/testing",
            report: {
              valid: false,
              errors: [expect.objectContaining({ path: "" })],
              examples: [],
              contract_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
            },
          },
        ],
      },
    });
  });

  it("no_current_revision for every operation whose current contract has no readable revision: stale, missing, unreadable", async () => {
    const tools: LibraryTool[] = [
      {
        id: "tool_a",
        name: "a",
        operations: [
          operation("stale", "h-now"),
          operation("missing", "h-m"),
          operation("unreadable", "h-u"),
          operation("fine", "h-f"),
        ],
      },
    ];
    const stored: StoredRevision[] = [
      {
        tool_id: "tool_a",
        operation_id: "stale",
        revision: 7,
        contract_hash: "h-before",
        definition: definition(["x"]),
      },
      {
        tool_id: "tool_a",
        operation_id: "unreadable",
        revision: 2,
        contract_hash: "h-u",
        definition: { schema_version: 99 },
      },
      { tool_id: "tool_a", operation_id: "fine", revision: 1, contract_hash: "h-f", definition: definition(["x"]) },
    ];
    const offender = (
      operation_id: string,
      reason: string,
      current: string,
      latest: number | null,
      latestHash: string | null,
    ) => ({
      path: "/tools/0",
      tool_id: "tool_a",
      operation_id,
      reason,
      current_contract_hash: current,
      latest_revision: latest,
      latest_revision_contract_hash: latestHash,
    });
    expect(await plan([{ tool_id: "tool_a" }], memoryLibrary(tools, stored))).toEqual({
      ok: false,
      refusal: {
        kind: "no_current_revision",
        offenders: [
          offender("stale", "stale", "h-now", 7, "h-before"),
          offender("missing", "missing", "h-m", null, null),
          offender("unreadable", "unreadable", "h-u", 2, "h-u"),
        ],
      },
    });
  });

  it("no_current_revision for an operation with no output schema anywhere (a guard: registration refuses such tools)", async () => {
    const bare: LibraryTool = {
      id: "tool_bare",
      name: "bare",
      operations: [{ operation_id: "go", description: "", input_schema: objectSchema, contract_hash: "h-go" }],
    };
    const stored: StoredRevision[] = [
      { tool_id: "tool_bare", operation_id: "go", revision: 1, contract_hash: "h-go", definition: definition(["x"]) },
    ];
    const result = await plan([{ tool_id: "tool_bare" }], memoryLibrary([bare], stored));
    expect(result.ok === false && result.refusal).toEqual({
      kind: "no_current_revision",
      offenders: [
        {
          path: "/tools/0",
          tool_id: "tool_bare",
          operation_id: "go",
          reason: "unreadable",
          current_contract_hash: "h-go",
          latest_revision: 1,
          latest_revision_contract_hash: "h-go",
        },
      ],
    });
  });

  it("invalid_request for unknown variants and for names agents could not tell apart, each at the entry that caused it", async () => {
    expect(
      await plan([
        { tool_id: "tool_calendar", variants: { book: "closed" } },
        { inline: weather, variant: "fog" },
      ]),
    ).toEqual(
      refusal("invalid_request", [
        {
          path: "/tools/0/variants/book",
          message: 'unknown variant "closed": revision 2 of calendar__book defines open, full',
        },
        {
          path: "/tools/1/variant",
          message: 'unknown variant "fog": the inline definition of weather defines sunny, storm',
        },
      ]),
    );
    expect(await plan([{ inline: weather }, { inline: weather }])).toEqual(
      refusal("invalid_request", [
        { path: "/tools/1", message: 'the tool name "weather" is already taken by another pinned operation' },
        {
          path: "/tools/1",
          message: 'two different tools are named "weather"; state and evidence are kept by tool name',
        },
      ]),
    );
    expect(await plan([{ inline: { ...weather, name: "clock" } }, { tool_id: "tool_clock" }])).toEqual(
      refusal("invalid_request", [
        { path: "/tools/0", message: 'the tool name "clock" is already taken by another pinned operation' },
        {
          path: "/tools/0",
          message: 'two different tools are named "clock"; state and evidence are kept by tool name',
        },
      ]),
    );
  });

  it("initial_state_conflict when one tool's operations start from contradicting states", async () => {
    const stored = revisions.map((r) =>
      r.operation_id === "cancel" ? { ...r, definition: definition(["done"], { slots: { "09:00": "taken" } }) } : r,
    );
    expect(await plan([{ tool_id: "tool_calendar" }], memoryLibrary([calendar], stored))).toEqual(
      refusal("initial_state_conflict", [
        {
          path: "tool calendar: initial_state/slots/09:00",
          message: 'initial_state of operations "book" and "cancel" disagree at /slots/09:00: "free" versus "taken"',
        },
      ]),
    );
  });

  it("refuses at the first stage that fails, and names paths under the caller's list", async () => {
    const broken = { ...weather, testing: "not a definition" };
    const result = await planSimulation(
      [{ inline: broken }, { tool_id: "tool_gone" }],
      { library: memoryLibrary([calendar], revisions), validator },
      "/scenarios/0/tools",
    );
    expect(result).toEqual(
      refusal("not_found", [{ path: "/scenarios/0/tools/1/tool_id", message: 'no tool "tool_gone"' }]),
    );
  });
});

describe("planSimulation over arbitrary entries and libraries", () => {
  const opIds = ["get", "put", "del"];
  const variantNames = ["a", "b"];
  const libraryArb = fc
    .uniqueArray(fc.constantFrom("alpha", "beta", "gamma"), { minLength: 1, maxLength: 3 })
    .chain((names) =>
      fc.tuple(
        ...names.map((name) =>
          fc.record({
            name: fc.constant(name),
            ops: fc.uniqueArray(fc.constantFrom(...opIds), { minLength: 1, maxLength: 3 }),
            // Per operation: which revisions exist and whether each was saved against the current contract.
            revisions: fc.array(
              fc.record({
                current: fc.boolean(),
                variants: fc.subarray(variantNames, { minLength: 1 }),
                state: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constant(2) }),
              }),
              { minLength: 1, maxLength: 3 },
            ),
          }),
        ),
      ),
    );
  const entryArb = (toolNames: string[]): fc.Arbitrary<ToolEntry> =>
    fc.oneof(
      fc
        .record(
          {
            tool_id: fc.oneof(
              { weight: 8, arbitrary: fc.constantFrom(...toolNames.map((n) => `tool_${n}`)) },
              { weight: 1, arbitrary: fc.constantFrom(...toolNames, "tool_gone", "nothing") },
            ),
            operation_id: fc.option(fc.constantFrom(...opIds, "nope"), { nil: undefined, freq: 1 }),
            variant: fc.option(fc.constantFrom(...variantNames, "zzz"), { nil: undefined, freq: 1 }),
            variants: fc.option(
              fc.dictionary(fc.constantFrom(...opIds), fc.constantFrom(...variantNames), { maxKeys: 2 }),
              { nil: undefined, freq: 1 },
            ),
          },
          { requiredKeys: ["tool_id"] },
        )
        .map((entry) =>
          entry.variant !== undefined && entry.variants !== undefined && entry.tool_id.length % 2 === 0
            ? { ...entry, variants: undefined }
            : entry,
        ),
      fc.record(
        {
          inline: fc.record({
            name: fc.constantFrom("alpha", "inline_one", "inline_two"),
            description: fc.constant("inline"),
            input_schema: fc.constant<JsonObject>(objectSchema),
            output_schema: fc.constant<JsonObject>(objectSchema),
            testing: fc.oneof(
              { weight: 5, arbitrary: fc.constantFrom<JsonValue>(definition(["a", "b"]), definition(["a"], { n: 1 })) },
              { weight: 1, arbitrary: fc.constant<JsonValue>("broken") },
            ),
          }),
          variant: fc.constantFrom(...variantNames),
        },
        { requiredKeys: ["inline"] },
      ),
    );

  it("never throws; a plan pins exactly the newest current revision of each selected operation under unique names; every refusal points into the entries", async () => {
    await fc.assert(
      fc.asyncProperty(
        libraryArb.chain((specs) =>
          fc.tuple(fc.constant(specs), fc.array(entryArb(specs.map((s) => s.name)), { minLength: 1, maxLength: 5 })),
        ),
        async ([specs, entries]) => {
          const tools: LibraryTool[] = specs.map((spec) => ({
            id: `tool_${spec.name}`,
            name: spec.name,
            operations: spec.ops.map((op) => operation(op, `h-${spec.name}-${op}`)),
          }));
          const stored: StoredRevision[] = specs.flatMap((spec) =>
            spec.ops.flatMap((op) =>
              spec.revisions.map((r, index) => ({
                tool_id: `tool_${spec.name}`,
                operation_id: op,
                revision: index + 1,
                contract_hash: r.current ? `h-${spec.name}-${op}` : "h-old",
                definition: definition(r.variants, { n: r.state }),
              })),
            ),
          );
          const result = await planSimulation(entries, { library: memoryLibrary(tools, stored), validator });
          const entryPath = /^\/tools\/(\d+)(\/|$)/;
          const pointsIntoEntries = (path: string) => Number(entryPath.exec(path)?.[1] ?? Number.NaN) < entries.length;
          if (!result.ok) {
            const r = result.refusal;
            const paths =
              r.kind === "invalid_definition"
                ? r.definitions.map((d) => d.path)
                : r.kind === "no_current_revision"
                  ? r.offenders.map((o) => o.path)
                  : r.kind === "initial_state_conflict"
                    ? []
                    : r.problems.map((p) => p.path);
            expect(paths.length > 0 || r.kind === "initial_state_conflict").toBe(true);
            expect(paths.filter((path) => !pointsIntoEntries(path))).toEqual([]);
            if (r.kind === "initial_state_conflict")
              expect(r.problems.every((p) => p.path.startsWith("tool "))).toBe(true);
            return;
          }
          const names = result.plan.operations.map((op) => op.function_name);
          expect(new Set(names).size).toBe(names.length);
          for (const op of result.plan.operations) {
            if (op.tool_id === null) continue;
            const newestCurrent = Math.max(
              ...stored
                .filter(
                  (s) =>
                    s.tool_id === op.tool_id &&
                    s.operation_id === op.operation_id &&
                    s.contract_hash === `h-${op.tool_name}-${op.operation_id}`,
                )
                .map((s) => s.revision),
            );
            expect({ op: op.function_name, revision: op.revision }).toEqual({
              op: op.function_name,
              revision: newestCurrent,
            });
            expect(Object.keys(op.definition.variants)).toContain(op.variant);
          }
          // Every selected library operation is pinned once, then every inline tool, in the order listed.
          const selected = entries.flatMap((entry) => {
            if ("inline" in entry) return [];
            const tool = tools.find((t) => t.id === entry.tool_id);
            return (tool?.operations ?? [])
              .filter((op) => entry.operation_id === undefined || op.operation_id === entry.operation_id)
              .map((op) => `${entry.tool_id}/${op.operation_id}`);
          });
          const inline = entries.flatMap((entry) => ("inline" in entry ? [`inline/${entry.inline.name}`] : []));
          expect(
            result.plan.operations.map((op) =>
              op.tool_id === null ? `inline/${op.tool_name}` : `${op.tool_id}/${op.operation_id}`,
            ),
          ).toEqual([...selected, ...inline]);
          // Planning reads and decides nothing else: the same entries plan the same way again.
          expect(await planSimulation(entries, { library: memoryLibrary(tools, stored), validator })).toEqual(result);
        },
      ),
      { numRuns: 300 },
    );
  });
});
