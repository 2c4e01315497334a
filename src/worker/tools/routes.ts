/**
 * The tool library: register, list, read, change and archive tools, and import them from MCP
 * `tools/list` results or platform parameter lists. Every route needs AIManager:ManageTools; another tenant's
 * tool answers 404 exactly like a missing one.
 */
import { Hono } from "hono";
import { z } from "zod";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import {
  ToolNameTakenError,
  archiveTool,
  getTool,
  insertTool,
  listTools,
  replaceTool,
} from "../../adapters/d1/tools.js";
import { newId } from "../../adapters/crypto.js";
import { pointer } from "../../core/json.js";
import { toolFromMcpToolsList } from "../../core/tools/import-mcp.js";
import {
  PLATFORM_PARAMETER_TYPES,
  platformFieldPointer,
  toolFromPlatformOperations,
} from "../../core/tools/import-platform.js";
import type { ToolSpec } from "../../core/tools/types.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, invalidRequest, notFound } from "../http/errors.js";
import { requirePermission } from "../http/auth.js";
import { readBodyWithHints } from "../http/field-hints.js";
import { toolNotFound } from "./missing-tool.js";
import { pageCursor, pageLimit, CREATED_CURSOR } from "../http/pagination.js";
import { clientRecord, description, jsonSchemaField, toolName } from "../http/schema-fields.js";
import { schemaValidator } from "../platform/services.js";
import { type LocateOperationField, prepareTool } from "./tool-registration.js";
import { MAX_OPERATIONS, toolBody, toolSpecFromBody } from "./tool-body.js";
import { toolView } from "./tool-view.js";

/** Tool bodies carry whole schemas for up to 100 operations; 1 MiB is generous and still bounded. */
const TOOL_BODY_LIMIT = 1024 * 1024;

export const mcpImportBody = z.strictObject({
  name: toolName,
  description: description.optional(),
  output_schema: jsonSchemaField.optional(),
  allowed_tools: z
    .array(z.string().min(1))
    .min(1, "expected at least one tool name; leave the field out to import every tool")
    .optional(),
  tools_list: z.unknown(),
});

const platformParameter = z.strictObject({
  name: z.string().min(1).max(128),
  type: z.enum(PLATFORM_PARAMETER_TYPES),
  description: z.string().max(4000).optional(),
  required: z.boolean().optional(),
  options: z
    .array(z.union([z.string(), z.number(), z.boolean(), z.null()]))
    .min(1)
    .optional(),
});

export const platformImportBody = z.strictObject({
  name: toolName,
  description,
  output_schema: jsonSchemaField.optional(),
  coerce: clientRecord(z.enum(["object", "string"])).optional(),
  operations: z
    .array(
      z.strictObject({
        operation_id: toolName,
        description,
        required: z.array(z.string()).optional(),
        parameters: z.array(platformParameter).max(200),
        response: z
          .strictObject({ status: z.number().int().min(100).max(599).optional(), schema: jsonSchemaField })
          .optional(),
      }),
    )
    .min(1, "expected at least one operation")
    .max(MAX_OPERATIONS),
});

export const toolRoutes = new Hono<AppEnv>();
toolRoutes.use("*", requirePermission("AIManager:ManageTools"));

toolRoutes.post("/", async (c) => {
  const body = await readBodyWithHints(c, toolBody, TOOL_BODY_LIMIT);
  return c.json(await registerTool(c.var.db, c.var.principal.tenantId, toolSpecFromBody(body)), 201);
});

toolRoutes.post("/import/mcp", async (c) => {
  const body = await readBodyWithHints(c, mcpImportBody, TOOL_BODY_LIMIT);
  const imported = toolFromMcpToolsList(body);
  if (!imported.ok) throw invalidRequest(imported.problems);
  const operationIndex = mcpOperationIndex(body.tools_list);
  const mcpField = { operation_id: "name", input_schema: "inputSchema", output_schema: "outputSchema" } as const;
  return c.json(
    await registerTool(c.var.db, c.var.principal.tenantId, imported.tool, (index, field, inner) => {
      const name = imported.tool.operations[index]?.operation_id ?? "";
      return `${pointer("tools_list", "tools", operationIndex.get(name) ?? index, mcpField[field])}${inner}`;
    }),
    201,
  );
});

toolRoutes.post("/import/platform", async (c) => {
  const body = await readBodyWithHints(c, platformImportBody, TOOL_BODY_LIMIT);
  const imported = toolFromPlatformOperations(body);
  if (!imported.ok) throw invalidRequest(imported.problems);
  return c.json(
    await registerTool(c.var.db, c.var.principal.tenantId, imported.tool, (index, field, inner) =>
      platformFieldPointer(body, index, field, inner),
    ),
    201,
  );
});

toolRoutes.get("/", async (c) => {
  const limit = pageLimit(c);
  const after = pageCursor(c, CREATED_CURSOR);
  const page = await listTools(c.var.db, c.var.principal.tenantId, { limit, after });
  return c.json({
    items: page.items.map(toolView),
    next_cursor: page.next ? encodeCursor([page.next.created_at, page.next.id]) : null,
  });
});

toolRoutes.get("/:id", async (c) => {
  const id = c.req.param("id");
  const tool = await getTool(c.var.db, c.var.principal.tenantId, id);
  if (!tool) throw await toolNotFound(c.var.db, c.var.principal.tenantId, id);
  return c.json(toolView(tool));
});

/** Takes what GET answers, edited: see tool-body.ts for the read-only fields. */
toolRoutes.put("/:id", async (c) => {
  const id = c.req.param("id");
  const tenantId = c.var.principal.tenantId;
  const body = await readBodyWithHints(c, toolBody, TOOL_BODY_LIMIT);
  const existing = await getTool(c.var.db, tenantId, id);
  if (!existing) throw await toolNotFound(c.var.db, tenantId, id);
  const spec = toolSpecFromBody(body, existing);
  const hashes = await prepareTool(id, spec, schemaValidator());
  await replaceTool(c.var.db, tenantId, id, spec, hashes).catch(nameTaken);
  const updated = await getTool(c.var.db, tenantId, id);
  if (!updated) throw notFound("tool");
  return c.json(toolView(updated));
});

/**
 * Archives the tool: it leaves the library (lists, reads, changes and new simulations no longer
 * see it) and its name is free again. Its rows stay in D1, so simulations that pinned it keep
 * dispatching and their evidence keeps naming it.
 */
toolRoutes.delete("/:id", async (c) => {
  const id = c.req.param("id");
  const archived = await archiveTool(c.var.db, c.var.principal.tenantId, id);
  if (!archived) throw await toolNotFound(c.var.db, c.var.principal.tenantId, id);
  return c.json(archived);
});

async function registerTool(
  db: AppEnv["Variables"]["db"],
  tenantId: string,
  spec: ToolSpec,
  locate?: LocateOperationField,
): Promise<ReturnType<typeof toolView>> {
  const id = newId("tool");
  const hashes = await prepareTool(id, spec, schemaValidator(), locate);
  await insertTool(db, tenantId, id, spec, hashes).catch(nameTaken);
  const stored = await getTool(db, tenantId, id);
  if (!stored) throw new Error("tool vanished right after insert");
  return toolView(stored);
}

function nameTaken(error: unknown): never {
  if (error instanceof ToolNameTakenError) {
    throw new ApiError("tool_name_taken", error.message, { problems: [{ path: "/name", message: error.message }] });
  }
  throw error;
}

/** Where each MCP tool sits in the submitted list, so problems point at the right entry after filtering. */
function mcpOperationIndex(toolsList: unknown): Map<string, number> {
  const index = new Map<string, number>();
  if (typeof toolsList === "object" && toolsList !== null && "tools" in toolsList && Array.isArray(toolsList.tools)) {
    toolsList.tools.forEach((tool: unknown, i: number) => {
      if (typeof tool === "object" && tool !== null && "name" in tool && typeof tool.name === "string")
        index.set(tool.name, i);
    });
  }
  return index;
}
