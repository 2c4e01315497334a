/**
 * The 404 for a tool id the tenant has no tool under. A tool's name where its id belongs
 * (GET /api/tools/refunds) is the usual mistake, so the answer says so and gives the id when this
 * tenant has a tool by that name; names are looked up within the tenant only.
 */
import { findToolIdsByName } from "../../adapters/d1/tools.js";
import { TOOL_ID_PREFIX } from "../../core/tools/types.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, notFound } from "../http/errors.js";

export async function toolNotFound(db: AppEnv["Variables"]["db"], tenantId: string, id: string): Promise<ApiError> {
  const named = (await findToolIdsByName(db, tenantId, [id])).get(id);
  if (named !== undefined) {
    return new ApiError(
      "not_found",
      `no tool has the id "${id}", but it looks like a tool name: this tenant's tool "${id}" has the id "${named}"`,
      {
        tool_id: named,
      },
    );
  }
  if (!id.startsWith(TOOL_ID_PREFIX)) {
    return new ApiError(
      "not_found",
      `no tool has the id "${id}"; tool ids start with "${TOOL_ID_PREFIX}" (GET /api/tools lists them)`,
    );
  }
  return notFound("tool");
}
