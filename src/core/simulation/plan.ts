/**
 * Planning a simulation: from the tool entries a client (or the eval run coordinator) asks for, to
 * exactly which revision of which operation every attempt pins, under which variant, by which
 * function name, and from which starting state. Pure: the tenant's library is read through the
 * ToolLibrary port, schemas through the SchemaValidator port, and nothing is written anywhere.
 *
 * planSimulation answers a plan or one refusal, in this order; each refusal names every offender
 * of its kind at once, so one round trip shows them all:
 *
 * 1. invalid_request         `variant` and `variants` on one entry; an inline schema that is not JSON Schema
 * 2. not_found               a tool_id or operation_id the tenant does not have (a tool's name given
 *                            where its id belongs says so, with the id); then invalid_request for a
 *                            `variant` on an entry that pins several operations, a `variants` key the
 *                            entry does not pin, an operation pinned twice
 * 3. invalid_definition      an inline definition that fails its check (as POST /api/tools/testing checks it)
 * 4. no_current_revision     a library operation with no revision checked against its current
 *                            contract (stale, missing or unreadable): nothing is ever pinned silently
 *                            to an old fixture
 * 5. invalid_request         a variant the pinned definition does not have; two operations with one
 *                            function name; two different tools with one name
 * 6. invalid_request         two different dataset pins for one tool; then not_found for a pin that
 *                            names no stored version (datasets.ts)
 * 7. initial_state_conflict  the pinned operations of one tool start from contradicting states
 *
 * Library entries are pinned before inline ones, each group in the order it was listed.
 */
import { checkDefinition, initialState, parseDefinition } from "../contract/index.js";
import type { DatasetCatalog, DatasetPin } from "../datasets/pin.js";
import type { CheckReport, MockDefinition, OperationContract } from "../contract/types.js";
import { pointer, type JsonObject, type Problem } from "../json.js";
import type { JsonSchema, SchemaValidator } from "../ports.js";
import { schemaFieldProblem } from "../schema-problems.js";
import { effectiveOutputSchema } from "../tools/effective-contract.js";
import { TOOL_ID_PREFIX } from "../tools/types.js";
import { resolveToolDatasets, type PinSource } from "./datasets.js";
import { mergeInitialStates } from "./initial-state.js";
import { operationKey, type LibraryOperation, type LibraryTool, type ToolLibrary } from "./library.js";
import type { AttemptSetup, PinnedOperation, PinnedRecord, PinnedTool } from "./setup.js";
import {
  bindRealOperations,
  REAL_PLACEHOLDER,
  REAL_VARIANT,
  type RealOperationRequest,
  type RealRefusalCode,
  type RealToolContext,
} from "./real-tools.js";
import { functionName } from "./tool-names.js";

/** Every operation of a library tool, or the one named by operation_id. */
interface LibraryEntry {
  tool_id: string;
  operation_id?: string | undefined;
  /** The variant of the one operation this entry pins. */
  variant?: string | undefined;
  /** Variants by operation_id, for an entry that pins several operations. */
  variants?: Record<string, string> | undefined;
  /** "real": forward this entry's calls to the tool's real handler (see real-tools.ts); default "mock". */
  mode?: "mock" | "real" | undefined;
  /** The dataset version the tool starts from (instead of its definitions' initial_state). */
  dataset?: DatasetPin | undefined;
}

/** An agent-local tool with its definition: checked, pinned with revision null, never saved as a tool. */
export interface InlineTool {
  name: string;
  /** Defaults to the name. */
  operation_id?: string | undefined;
  description: string;
  input_schema: JsonSchema;
  output_schema: JsonSchema;
  annotations?: JsonObject | undefined;
  /** The mock definition, unparsed: planning checks it. */
  testing: unknown;
}

interface InlineEntry {
  inline: InlineTool;
  variant?: string | undefined;
  dataset?: DatasetPin | undefined;
}

/** One entry of a simulation's `tools`, already of the right shape (field types are the caller's to check). */
export type ToolEntry = LibraryEntry | InlineEntry;

/** A library operation that cannot be pinned, and why. */
interface RevisionOffender {
  /** The entry that selected it. */
  path: string;
  tool_id: string;
  operation_id: string;
  /** stale: revisions exist, none against the current contract; missing: none at all; unreadable: the current one does not parse. */
  reason: "stale" | "missing" | "unreadable";
  current_contract_hash: string;
  latest_revision: number | null;
  latest_revision_contract_hash: string | null;
}

interface InvalidDefinition {
  /** JSON Pointer of the inline definition (…/inline/testing). */
  path: string;
  report: CheckReport;
}

/** Why a simulation cannot be planned; `kind` names the API error code it is answered with. */
export type PlanRefusal =
  | { kind: "invalid_request"; problems: Problem[] }
  | { kind: "not_found"; problems: Problem[] }
  | { kind: "invalid_definition"; definitions: InvalidDefinition[] }
  | { kind: "no_current_revision"; offenders: RevisionOffender[] }
  | { kind: "initial_state_conflict"; problems: Problem[] }
  | { kind: "real_tools_refused"; code: RealRefusalCode; problems: Problem[] };

export interface SimulationPlan {
  /** Every pinned operation, with its definition, under the name agents call it by. */
  operations: PinnedOperation[];
  /** Every pinned tool with its merged starting state. */
  tools: PinnedTool[];
}

export type PlanResult = { ok: true; plan: SimulationPlan } | { ok: false; refusal: PlanRefusal };

export interface PlanInputs {
  library: ToolLibrary;
  validator: SchemaValidator;
  /** Upstreams, allowlist and policy for entries in real mode; without it, real mode is refused. */
  real?: RealToolContext | undefined;
  /** The tenant's stored dataset versions; without it, any dataset pin is refused as not found. */
  datasets?: DatasetCatalog | undefined;
}

/** One operation the entries selected, with where it was selected (to name it in any refusal). */
interface Selection {
  /** JSON Pointer of the entry that selected it. */
  path: string;
  /** Where its variant came from, to name it when the variant is unknown. */
  variantPath: string;
  variant?: string | undefined;
  /** The entry's own dataset pin. */
  dataset?: DatasetPin | undefined;
  source:
    | { kind: "library"; tool: LibraryTool; operation: LibraryOperation; real: boolean }
    | { kind: "inline"; tool: InlineTool; operationId: string; definition: MockDefinition; contract_hash: string };
}

/**
 * Plans a simulation of `entries`. `at` is the JSON Pointer of the entries' list in the caller's
 * document (every path in a refusal starts with it).
 */
export async function planSimulation(
  entries: readonly ToolEntry[],
  inputs: PlanInputs,
  at = "/tools",
): Promise<PlanResult> {
  const { library, validator } = inputs;
  const refuse = (refusal: PlanRefusal): PlanResult => ({ ok: false, refusal });

  const entryErrors = entries.flatMap((entry, index) => entryProblems(entry, `${at}/${index}`, validator));
  if (entryErrors.length > 0) return refuse({ kind: "invalid_request", problems: entryErrors });

  const libraryEntries: Array<{ path: string; entry: LibraryEntry }> = [];
  const inlineEntries: Array<{ path: string; entry: InlineEntry }> = [];
  entries.forEach((entry, index) => {
    const path = `${at}/${index}`;
    if (isInline(entry)) inlineEntries.push({ path, entry });
    else libraryEntries.push({ path, entry });
  });

  // 2. Tools and operations of this tenant only.
  const toolIds = [...new Set(libraryEntries.map(({ entry }) => entry.tool_id))];
  const tools = toolIds.length > 0 ? await library.toolsById(toolIds) : new Map<string, LibraryTool>();
  const unknownIds = toolIds.filter((id) => !tools.has(id));
  const idsOfNames = unknownIds.length > 0 ? await library.toolIdsByName(unknownIds) : new Map<string, string>();
  const missing: Problem[] = [];
  const problems: Problem[] = [];
  const selections: Selection[] = [];
  const pinnedBy = new Map<string, string>();
  for (const { path, entry } of libraryEntries) {
    const tool = tools.get(entry.tool_id);
    if (!tool) {
      missing.push({
        path: `${path}/tool_id`,
        message: unknownToolMessage(entry.tool_id, idsOfNames.get(entry.tool_id)),
      });
      continue;
    }
    let operations = tool.operations;
    if (entry.operation_id !== undefined) {
      const operation = tool.operations.find((op) => op.operation_id === entry.operation_id);
      if (!operation) {
        missing.push({
          path: `${path}/operation_id`,
          message: `tool "${tool.name}" has no operation "${entry.operation_id}" (it has ${tool.operations.map((op) => op.operation_id).join(", ")})`,
        });
        continue;
      }
      operations = [operation];
    }
    if (entry.variant !== undefined && operations.length > 1) {
      problems.push({
        path: `${path}/variant`,
        message: `this entry pins ${operations.length} operations; choose their variants with variants: {"<operation_id>": "<variant>"}`,
      });
    }
    for (const key of Object.keys(entry.variants ?? {})) {
      if (!operations.some((op) => op.operation_id === key))
        problems.push({ path: `${path}${pointer("variants", key)}`, message: `this entry pins no operation "${key}"` });
    }
    for (const operation of operations) {
      const key = operationKey(tool.id, operation.operation_id);
      const earlier = pinnedBy.get(key);
      if (earlier !== undefined) {
        problems.push({
          path,
          message: `operation "${operation.operation_id}" of tool "${tool.name}" is already pinned by ${earlier}`,
        });
        continue;
      }
      pinnedBy.set(key, path);
      // Own keys only: an operation called "constructor" must not read Object.prototype's.
      const fromMap =
        entry.variants !== undefined && Object.hasOwn(entry.variants, operation.operation_id)
          ? entry.variants[operation.operation_id]
          : undefined;
      selections.push({
        path,
        variantPath:
          fromMap !== undefined ? `${path}${pointer("variants", operation.operation_id)}` : `${path}/variant`,
        variant: fromMap ?? entry.variant,
        dataset: entry.dataset,
        source: { kind: "library", tool, operation, real: entry.mode === "real" },
      });
    }
  }
  if (missing.length > 0) return refuse({ kind: "not_found", problems: missing });
  if (problems.length > 0) return refuse({ kind: "invalid_request", problems });

  // 3. Inline tools are checked exactly as the inline testing route checks them.
  const invalid: InvalidDefinition[] = [];
  for (const { path, entry } of inlineEntries) {
    const contract = inlineContract(entry.inline);
    const report = await checkDefinition(contract, entry.inline.testing, validator);
    const parsed = parseDefinition(entry.inline.testing);
    if (!report.valid || !parsed.ok) {
      invalid.push({ path: `${path}/inline/testing`, report });
      continue;
    }
    selections.push({
      path,
      variantPath: `${path}/variant`,
      variant: entry.variant,
      dataset: entry.dataset,
      source: {
        kind: "inline",
        tool: entry.inline,
        operationId: contract.operation,
        definition: parsed.definition,
        contract_hash: report.contract_hash,
      },
    });
  }
  if (invalid.length > 0) return refuse({ kind: "invalid_definition", definitions: invalid });

  // 4. Every library operation needs a revision checked against its current contract.
  // Real operations need no revision: they are bound to their real handlers instead (real-tools.ts).
  const mockToolIds = [
    ...new Set(selections.flatMap((s) => (s.source.kind === "library" && !s.source.real ? [s.source.tool.id] : []))),
  ];
  const candidates =
    mockToolIds.length > 0 ? await library.pinCandidates(mockToolIds) : { pinnable: new Map(), newest: new Map() };
  const offenders: RevisionOffender[] = [];
  const pinned: Array<{ selection: Selection; operation: PinnedOperation }> = [];
  const realRequests: Array<{ request: RealOperationRequest; operation: PinnedOperation }> = [];
  for (const selection of selections) {
    const source = selection.source;
    if (source.kind === "inline") {
      pinned.push({
        selection,
        operation: pinnedInline(
          source.tool,
          source.operationId,
          source.definition,
          source.contract_hash,
          selection.variant,
        ),
      });
      continue;
    }
    const { tool, operation } = source;
    if (source.real) {
      const output = effectiveOutputSchema(operation, tool) ?? true;
      const real = pinnedLibrary(tool, operation, output, {
        revision: null,
        contract_hash: operation.contract_hash,
        variant: REAL_VARIANT,
        definition: REAL_PLACEHOLDER,
      });
      if (selection.variant !== undefined)
        problems.push({
          path: selection.variantPath,
          message: "a real operation has no variants: its real handler answers",
        });
      pinned.push({ selection, operation: real });
      realRequests.push({
        request: {
          path: `${selection.path}/mode`,
          tool_id: tool.id,
          tool_name: tool.name,
          operation_id: operation.operation_id,
          function_name: real.function_name,
        },
        operation: real,
      });
      continue;
    }
    const key = operationKey(tool.id, operation.operation_id);
    const revision = candidates.pinnable.get(key);
    const parsed = revision ? parseDefinition(revision.definition) : undefined;
    const output = effectiveOutputSchema(operation, tool);
    if (!revision || !parsed?.ok || output === undefined) {
      const newest = candidates.newest.get(key);
      offenders.push({
        path: selection.path,
        tool_id: tool.id,
        operation_id: operation.operation_id,
        reason: revision ? "unreadable" : newest ? "stale" : "missing",
        current_contract_hash: operation.contract_hash,
        latest_revision: newest?.revision ?? null,
        latest_revision_contract_hash: newest?.contract_hash ?? null,
      });
      continue;
    }
    pinned.push({
      selection,
      operation: pinnedLibrary(tool, operation, output, {
        revision: revision.revision,
        contract_hash: revision.contract_hash,
        variant: selection.variant ?? parsed.definition.default_variant,
        definition: parsed.definition,
      }),
    });
  }
  if (offenders.length > 0) return refuse({ kind: "no_current_revision", offenders });
  if (problems.length > 0) return refuse({ kind: "invalid_request", problems });
  const bound = await bindRealOperations(
    realRequests.map((r) => r.request),
    inputs.real,
  );
  if (!bound.ok) return refuse({ kind: "real_tools_refused", code: bound.code, problems: bound.problems });
  realRequests.forEach(({ operation }, index) => {
    operation.real = bound.bindings[index];
  });

  // 5. Variants the pinned definitions do not have, and names agents could not tell apart.
  const clashes: Problem[] = [];
  const byFunctionName = new Set<string>();
  const toolOwners = new Map<string, string>();
  for (const { selection, operation: op } of pinned) {
    if (!Object.hasOwn(op.definition.variants, op.variant)) {
      const where = op.revision === null ? "the inline definition" : `revision ${op.revision}`;
      clashes.push({
        path: selection.variantPath,
        message: `unknown variant "${op.variant}": ${where} of ${op.function_name} defines ${Object.keys(op.definition.variants).join(", ")}`,
      });
    }
    if (byFunctionName.has(op.function_name))
      clashes.push({
        path: selection.path,
        message: `the tool name "${op.function_name}" is already taken by another pinned operation`,
      });
    byFunctionName.add(op.function_name);
    const owner = toolOwners.get(op.tool_name);
    const identity = op.tool_id ?? `inline:${selection.path}`;
    if (owner !== undefined && owner !== identity)
      clashes.push({
        path: selection.path,
        message: `two different tools are named "${op.tool_name}"; state and evidence are kept by tool name`,
      });
    toolOwners.set(op.tool_name, identity);
  }
  if (clashes.length > 0) return refuse({ kind: "invalid_request", problems: clashes });

  // 6. The datasets tools start from.
  const datasets = await resolveToolDatasets(pinSources(pinned), inputs.datasets);
  if (!datasets.ok) return refuse({ kind: datasets.kind, problems: datasets.problems });

  // 7. The tools' starting states.
  const operations = pinned.map(({ operation }) => operation);
  const pinnedTools: PinnedTool[] = [];
  const conflicts: Problem[] = [];
  for (const name of new Set(operations.map((op) => op.tool_name))) {
    const ops = operations.filter((op) => op.tool_name === name);
    const first = ops[0];
    if (!first) continue;
    const dataset = datasets.byTool.get(name);
    // A pinned dataset is the tool's starting state: the definitions' initial_state is not used.
    const merged = dataset
      ? { ok: true as const, state: {} }
      : mergeInitialStates(ops.map((op) => ({ operation_id: op.operation_id, state: initialState(op.definition) })));
    if (!merged.ok) {
      for (const conflict of merged.conflicts)
        conflicts.push({ path: `tool ${name}: initial_state${conflict.path}`, message: conflict.message });
      continue;
    }
    const libraryTool = first.tool_id === null ? undefined : tools.get(first.tool_id);
    pinnedTools.push({
      tool_id: first.tool_id,
      tool_name: name,
      // All the tool's operations, pinned or not, so the attempt tells "not pinned" from "no such operation".
      operation_ids: libraryTool
        ? libraryTool.operations.map((op) => op.operation_id)
        : ops.map((op) => op.operation_id),
      initial_state: merged.state,
      ...(dataset ? { dataset } : {}),
    });
  }
  if (conflicts.length > 0) return refuse({ kind: "initial_state_conflict", problems: conflicts });

  return { ok: true, plan: { operations, tools: pinnedTools } };
}

/**
 * The problems visible in one entry alone, before anything is read (stage 1 of planSimulation),
 * exported so a caller that checks the entries' shape itself can report these beside its own.
 */
export function entryProblems(entry: ToolEntry, path: string, validator: SchemaValidator): Problem[] {
  if (!isInline(entry)) {
    return entry.variant !== undefined && entry.variants !== undefined
      ? [
          {
            path: `${path}/variant`,
            message: "give either variant (one operation) or variants (by operation_id), not both",
          },
        ]
      : [];
  }
  return (["input_schema", "output_schema"] as const).flatMap((field) =>
    validator.checkSchema(entry.inline[field]).map((problem) => schemaFieldProblem(`${path}/inline/${field}`, problem)),
  );
}

/** Every dataset pin of the pinned operations: the entries' own, and their definitions'. */
function pinSources(pinned: ReadonlyArray<{ selection: Selection; operation: PinnedOperation }>): PinSource[] {
  const sources: PinSource[] = [];
  for (const { selection, operation } of pinned) {
    if (selection.dataset)
      sources.push({
        tool_name: operation.tool_name,
        pin: selection.dataset,
        path: `${selection.path}/dataset`,
        entry: true,
      });
    const own = operation.real ? undefined : operation.definition.dataset;
    if (own)
      sources.push({
        tool_name: operation.tool_name,
        pin: own,
        path:
          operation.revision === null
            ? `${selection.path}/inline/testing/dataset`
            : `${selection.path} (revision ${operation.revision} of ${operation.operation_id}: /dataset)`,
        entry: false,
      });
  }
  return sources;
}

/** What an attempt object is set up with: the plan, and who the attempt is. */
export function attemptSetup(plan: SimulationPlan, attempt: Omit<AttemptSetup, "operations" | "tools">): AttemptSetup {
  return { ...attempt, operations: plan.operations, tools: plan.tools };
}

/** pinnedRecord of every operation of a plan, each with the dataset its tool starts from. */
export function pinnedRecords(plan: SimulationPlan): PinnedRecord[] {
  const datasets = new Map(
    plan.tools.flatMap((tool) => (tool.dataset ? [[tool.tool_name, tool.dataset] as const] : [])),
  );
  return plan.operations.map((op) => {
    const dataset = datasets.get(op.tool_name);
    return dataset ? { ...pinnedRecord(op), dataset } : pinnedRecord(op);
  });
}

/** What the simulation's durable record keeps of one pinned operation: a pointer to its revision, or an inline tool itself. */
export function pinnedRecord(op: PinnedOperation): PinnedRecord {
  return {
    tool_id: op.tool_id,
    tool_name: op.tool_name,
    operation_id: op.operation_id,
    function_name: op.function_name,
    revision: op.revision,
    variant: op.variant,
    contract_hash: op.contract_hash,
    ...(op.real
      ? { mode: "real" as const }
      : op.revision === null
        ? {
            inline: {
              description: op.description,
              input_schema: op.input_schema,
              output_schema: op.output_schema,
              definition: op.definition,
            },
          }
        : {}),
  };
}

function unknownToolMessage(toolId: string, idOfNamedTool: string | undefined): string {
  if (idOfNamedTool !== undefined) {
    return `no tool "${toolId}": that looks like a tool name, and tool_id takes the tool's id; the tool named "${toolId}" has id "${idOfNamedTool}"`;
  }
  if (!toolId.startsWith(TOOL_ID_PREFIX)) {
    return `no tool "${toolId}": tool_id takes a tool's id (${TOOL_ID_PREFIX}…, as GET /api/tools lists them), and no tool is named "${toolId}" either`;
  }
  return `no tool "${toolId}"`;
}

function isInline(entry: ToolEntry): entry is InlineEntry {
  return "inline" in entry;
}

function inlineContract(inline: InlineTool): OperationContract {
  return {
    tool: inline.name,
    operation: inline.operation_id ?? inline.name,
    description: inline.description,
    input_schema: inline.input_schema,
    output_schema: inline.output_schema,
  };
}

/** A library operation as pinned: its contract as the library has it now, with what it is answered from. */
function pinnedLibrary(
  tool: LibraryTool,
  operation: LibraryOperation,
  output: JsonSchema,
  pin: Pick<PinnedOperation, "revision" | "contract_hash" | "variant" | "definition">,
): PinnedOperation {
  return {
    function_name: functionName(tool.name, operation.operation_id, tool.operations.length),
    tool_id: tool.id,
    tool_name: tool.name,
    operation_id: operation.operation_id,
    description: operation.description,
    input_schema: operation.input_schema,
    output_schema: output,
    annotations: operation.annotations ?? null,
    ...pin,
  };
}

function pinnedInline(
  inline: InlineTool,
  operationId: string,
  definition: MockDefinition,
  contractHash: string,
  variant: string | undefined,
): PinnedOperation {
  return {
    function_name: functionName(inline.name, operationId, 1),
    tool_id: null,
    tool_name: inline.name,
    operation_id: operationId,
    description: inline.description,
    input_schema: inline.input_schema,
    output_schema: inline.output_schema,
    annotations: inline.annotations ?? null,
    revision: null,
    contract_hash: contractHash,
    variant: variant ?? definition.default_variant,
    definition,
  };
}
