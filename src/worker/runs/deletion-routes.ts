/**
 * DELETE /api/runs/:id: an ended run and everything D1 holds of it (its repetitions, attempts and
 * their calls, labels, callbacks; adapters/d1/run-deletion.ts). A queued or running run is refused:
 * cancel it first (POST /api/runs/:id/cancel), then delete it once it has ended.
 */
import { Hono } from "hono";
import { deleteEndedRun } from "../../adapters/d1/run-deletion.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, notFound } from "../http/errors.js";
import { requirePermission } from "../http/auth.js";

export const runDeletionRoutes = new Hono<AppEnv>();

runDeletionRoutes.delete("/:id", requirePermission("AIManager:RunEvals"), async (c) => {
  const deletion = await deleteEndedRun(c.var.db, c.var.principal.tenantId, c.req.param("id"));
  switch (deletion.kind) {
    case "missing":
      throw notFound("run");
    case "not_ended":
      throw new ApiError(
        "run_not_ended",
        `run ${c.req.param("id")} is ${deletion.status}: only an ended run (finished or cancelled) can be deleted; cancel it first (POST /api/runs/${c.req.param("id")}/cancel)`,
      );
    case "deleted":
      return c.json({ id: deletion.run_id, deleted: true });
  }
});
