/**
 * Library tools, their operations and their append-only mock revisions in D1.
 * Revision numbers are assigned inside the INSERT itself, so concurrent saves of one operation get
 * consecutive numbers with no gaps and no reuse (D1 runs each statement atomically and one at a time).
 * An archived tool keeps its rows (simulations pinned it) but is no longer read, listed or changed
 * here: every reader below looks at tools in the library only.
 */
import { and, desc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import type { JsonObject, JsonValue } from "../../core/json.js";
import type { JsonSchema } from "../../core/ports.js";
import type { OperationSpec, ToolKind, ToolSpec } from "../../core/tools/types.js";
import type { Database } from "./database.js";
import { parseJsonColumn, parseJsonObjectColumn } from "./json-column.js";
import { toolMockRevisions, toolOperations, tools } from "./schema.js";

interface StoredOperation extends OperationSpec {
  contract_hash: string;
}

export interface StoredTool {
  id: string;
  name: string;
  description: string;
  kind: ToolKind;
  output_schema?: JsonSchema;
  source?: JsonObject;
  operations: StoredOperation[];
  created_at: string;
  updated_at: string;
}

export interface RevisionSummary {
  revision: number;
  contract_hash: string;
  created_at: string;
  created_by: string;
}

export interface StoredRevision extends RevisionSummary {
  operation_id: string;
  definition: JsonValue;
}

export class ToolNameTakenError extends Error {
  constructor(readonly toolName: string) {
    super(`a tool named "${toolName}" already exists`);
  }
}

/** `hashes` holds each operation's contract hash, computed by the caller from the tool's new id. */
export async function insertTool(
  db: Database,
  tenantId: string,
  id: string,
  spec: ToolSpec,
  hashes: readonly string[],
): Promise<void> {
  const now = new Date().toISOString();
  try {
    await db.batch([
      db.insert(tools).values({
        id,
        tenant_id: tenantId,
        name: spec.name,
        description: spec.description,
        kind: spec.kind,
        output_schema: jsonOrNull(spec.output_schema),
        source: jsonOrNull(spec.source),
        created_at: now,
        updated_at: now,
      }),
      ...operationRows(id, tenantId, spec, hashes, now).map((row) => db.insert(toolOperations).values(row)),
    ]);
  } catch (error) {
    throw translateUnique(error, spec.name);
  }
}

/**
 * Replaces a tool's fields and operation set. The caller has already found the tool among the
 * tenant's (tools are never moved between tenants). An archive that lands between that read and
 * this write leaves the archived row's fields alone; the caller's re-read then finds no tool.
 */
export async function replaceTool(
  db: Database,
  tenantId: string,
  id: string,
  spec: ToolSpec,
  hashes: readonly string[],
): Promise<void> {
  const now = new Date().toISOString();
  try {
    await db.batch([
      db
        .update(tools)
        .set({
          name: spec.name,
          description: spec.description,
          kind: spec.kind,
          output_schema: jsonOrNull(spec.output_schema),
          source: jsonOrNull(spec.source),
          updated_at: now,
        })
        .where(and(eq(tools.id, id), eq(tools.tenant_id, tenantId), isNull(tools.archived_at))),
      // Operations are the tool's current shape, not history: revisions keep the history.
      db.delete(toolOperations).where(and(eq(toolOperations.tool_id, id), eq(toolOperations.tenant_id, tenantId))),
      ...operationRows(id, tenantId, spec, hashes, now).map((row) => db.insert(toolOperations).values(row)),
    ]);
  } catch (error) {
    throw translateUnique(error, spec.name);
  }
}

/**
 * Archives a tool of the tenant: it leaves the library and frees its name, and its rows stay.
 * Answers undefined when the tenant has no such tool in the library.
 */
export async function archiveTool(
  db: Database,
  tenantId: string,
  id: string,
): Promise<{ id: string; name: string; archived_at: string } | undefined> {
  const [row] = await db
    .update(tools)
    .set({ archived_at: new Date().toISOString() })
    .where(and(eq(tools.id, id), eq(tools.tenant_id, tenantId), isNull(tools.archived_at)))
    .returning({ id: tools.id, name: tools.name, archived_at: tools.archived_at });
  return row?.archived_at ? { id: row.id, name: row.name, archived_at: row.archived_at } : undefined;
}

/** The id of the tenant's library tool with this name, for errors that spot a name where an id belongs. */
/** The ids of this tenant's library tools (archived ones have given their names up) by name. */
export async function findToolIdsByName(
  db: Database,
  tenantId: string,
  names: readonly string[],
): Promise<Map<string, string>> {
  if (names.length === 0) return new Map();
  const rows = await db
    .select({ id: tools.id, name: tools.name })
    .from(tools)
    .where(and(eq(tools.tenant_id, tenantId), inArray(tools.name, [...names]), isNull(tools.archived_at)))
    .all();
  return new Map(rows.map((row) => [row.name, row.id]));
}

export async function getTool(db: Database, tenantId: string, id: string): Promise<StoredTool | undefined> {
  const [row, operations] = await db.batch([
    db
      .select()
      .from(tools)
      .where(and(eq(tools.id, id), eq(tools.tenant_id, tenantId), isNull(tools.archived_at)))
      .limit(1),
    db
      .select()
      .from(toolOperations)
      .where(and(eq(toolOperations.tool_id, id), eq(toolOperations.tenant_id, tenantId)))
      .orderBy(toolOperations.position),
  ]);
  const tool = row[0];
  return tool ? toStoredTool(tool, operations) : undefined;
}

/**
 * Newest first; the cursor is the (created_at, id) of the last item of the previous page.
 * The operations are selected by the same page query as a subquery, not by an IN list of ids: D1
 * binds at most 100 parameters per statement, and a page holds up to 200 tools.
 */
export async function listTools(
  db: Database,
  tenantId: string,
  page: { limit: number; after?: { created_at: string; id: string } | undefined },
): Promise<{ items: StoredTool[]; next?: { created_at: string; id: string } | undefined }> {
  const after = page.after;
  const onPage = and(
    eq(tools.tenant_id, tenantId),
    isNull(tools.archived_at),
    after
      ? or(lt(tools.created_at, after.created_at), and(eq(tools.created_at, after.created_at), lt(tools.id, after.id)))
      : undefined,
  );
  const newestFirst = [desc(tools.created_at), desc(tools.id)] as const;
  const pageIds = db
    .select({ id: tools.id })
    .from(tools)
    .where(onPage)
    .orderBy(...newestFirst)
    .limit(page.limit);
  // One batch, so the operations belong to the same snapshot as the tools (a PUT cannot fall between).
  const [rows, operations] = await db.batch([
    db
      .select()
      .from(tools)
      .where(onPage)
      .orderBy(...newestFirst)
      .limit(page.limit + 1),
    db
      .select()
      .from(toolOperations)
      .where(and(eq(toolOperations.tenant_id, tenantId), inArray(toolOperations.tool_id, pageIds)))
      .orderBy(toolOperations.position),
  ]);
  const byTool = new Map<string, Array<typeof toolOperations.$inferSelect>>();
  for (const op of operations) {
    const list = byTool.get(op.tool_id);
    if (list) list.push(op);
    else byTool.set(op.tool_id, [op]);
  }
  const pageRows = rows.slice(0, page.limit);
  const items = pageRows.map((row) => toStoredTool(row, byTool.get(row.id) ?? []));
  const last = pageRows[pageRows.length - 1];
  return { items, next: rows.length > page.limit && last ? { created_at: last.created_at, id: last.id } : undefined };
}

/** The newest revision of each operation of a tool. */
export async function latestRevisions(
  db: Database,
  tenantId: string,
  toolId: string,
): Promise<Map<string, RevisionSummary>> {
  const rows = await db
    .select({
      operation_id: toolMockRevisions.operation_id,
      revision: toolMockRevisions.revision,
      contract_hash: toolMockRevisions.contract_hash,
      created_at: toolMockRevisions.created_at,
      created_by: toolMockRevisions.created_by,
    })
    .from(toolMockRevisions)
    .where(
      and(
        eq(toolMockRevisions.tool_id, toolId),
        eq(toolMockRevisions.tenant_id, tenantId),
        sql`${toolMockRevisions.revision} = (select max(r.revision) from tool_mock_revisions r where r.tool_id = ${toolMockRevisions.tool_id} and r.operation_id = ${toolMockRevisions.operation_id})`,
      ),
    )
    .all();
  return new Map(rows.map(({ operation_id, ...summary }) => [operation_id, summary]));
}

/**
 * Appends a revision when `contractHash` is still the operation's current hash, checked in the
 * same statement so a concurrent schema change cannot slip between check and write.
 * Answers undefined when the hash is no longer current (or the operation or the tool is gone).
 */
export async function appendRevision(
  db: Database,
  input: {
    tenantId: string;
    toolId: string;
    operationId: string;
    contractHash: string;
    definition: JsonValue;
    createdBy: string;
  },
): Promise<RevisionSummary | undefined> {
  const result = await db.run(sql`
    insert into tool_mock_revisions (tenant_id, tool_id, operation_id, revision, contract_hash, definition, created_by)
    select ${input.tenantId}, ${input.toolId}, ${input.operationId},
           coalesce((select max(revision) from tool_mock_revisions where tool_id = ${input.toolId} and operation_id = ${input.operationId}), 0) + 1,
           ${input.contractHash}, ${JSON.stringify(input.definition)}, ${input.createdBy}
    where exists (select 1 from tool_operations
                  where tool_id = ${input.toolId} and operation_id = ${input.operationId}
                    and tenant_id = ${input.tenantId} and contract_hash = ${input.contractHash})
      and exists (select 1 from tools where id = ${input.toolId} and archived_at is null)
    returning revision, contract_hash, created_at, created_by`);
  const row = result.results[0];
  if (!row) return undefined;
  // SAFETY: the RETURNING clause above names exactly these four columns.
  return row as unknown as RevisionSummary;
}

/** Newest first; `before` is the revision number of the last item already seen. */
export async function listRevisions(
  db: Database,
  tenantId: string,
  toolId: string,
  operationId: string,
  page: { limit: number; before?: number | undefined },
): Promise<{ items: StoredRevision[]; next?: number | undefined }> {
  const rows = await db
    .select()
    .from(toolMockRevisions)
    .where(
      and(
        eq(toolMockRevisions.tool_id, toolId),
        eq(toolMockRevisions.operation_id, operationId),
        eq(toolMockRevisions.tenant_id, tenantId),
        page.before === undefined ? undefined : lt(toolMockRevisions.revision, page.before),
      ),
    )
    .orderBy(desc(toolMockRevisions.revision))
    .limit(page.limit + 1)
    .all();
  const items = rows.slice(0, page.limit).map((row) => ({
    operation_id: row.operation_id,
    revision: row.revision,
    contract_hash: row.contract_hash,
    definition: parseJsonColumn(row.definition),
    created_at: row.created_at,
    created_by: row.created_by,
  }));
  const last = items[items.length - 1];
  return { items, next: rows.length > page.limit && last ? last.revision : undefined };
}

function operationRows(toolId: string, tenantId: string, spec: ToolSpec, hashes: readonly string[], now: string) {
  return spec.operations.map((op, position) => ({
    tool_id: toolId,
    operation_id: op.operation_id,
    tenant_id: tenantId,
    position,
    description: op.description,
    input_schema: JSON.stringify(op.input_schema),
    output_schema: jsonOrNull(op.output_schema),
    annotations: jsonOrNull(op.annotations),
    contract_hash: hashes[position] ?? "",
    updated_at: now,
  }));
}

function toStoredTool(
  row: typeof tools.$inferSelect,
  operations: Array<typeof toolOperations.$inferSelect>,
): StoredTool {
  const output = row.output_schema === null ? undefined : parseJsonColumn(row.output_schema);
  const source = parseJsonObjectColumn(row.source);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    // SAFETY: kind is written only from the validated ToolKind union.
    kind: row.kind as ToolKind,
    ...(isSchema(output) ? { output_schema: output } : {}),
    ...(source ? { source } : {}),
    operations: operations.map((op) => {
      const opOutput = op.output_schema === null ? undefined : parseJsonColumn(op.output_schema);
      const input = parseJsonColumn(op.input_schema);
      const annotations = parseJsonObjectColumn(op.annotations);
      return {
        operation_id: op.operation_id,
        description: op.description,
        input_schema: isSchema(input) ? input : {},
        ...(isSchema(opOutput) ? { output_schema: opOutput } : {}),
        ...(annotations ? { annotations } : {}),
        contract_hash: op.contract_hash,
      };
    }),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function isSchema(value: JsonValue | undefined): value is JsonSchema {
  return typeof value === "boolean" || (typeof value === "object" && value !== null && !Array.isArray(value));
}

function jsonOrNull(value: JsonValue | undefined): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

function translateUnique(error: unknown, name: string): unknown {
  const message = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
  return /UNIQUE constraint failed: tools\.tenant_id, tools\.name/.test(message) ? new ToolNameTakenError(name) : error;
}
