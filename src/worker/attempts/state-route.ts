/**
 * GET /api/attempts/:id/state?tool=<tool>&pointer=<JSON Pointer>: one value of a tool's current
 * state, whole, read by the same people as GET /api/attempts/:id. The attempt view shows a dataset
 * tool as its pin and its changes over the base; this reads any record of it (changed or not)
 * through that base, e.g. pointer=/orders/%23W123.
 */
import type { Context } from "hono";
import { z } from "zod";
import { parsePointer } from "../../core/datasets/pointer.js";
import { attemptStub } from "./access.js";
import { authorizedReader } from "./reader.js";
import type { AppEnv } from "../platform/env.js";
import { ApiError, invalidRequest } from "../http/errors.js";
import { queryParam } from "../http/query.js";

/** Parameters it does not read are ignored, as on every other route. */
export const stateQuery = z.object({
  tool: z.string({ error: "required: the tool whose state to read" }).min(1, "expected a tool name"),
  pointer: z
    .string({ error: "required: a JSON Pointer into the tool's state (/orders/%23W123; empty for the whole state)" })
    .superRefine((text, ctx) => {
      const parsed = parsePointer(text);
      if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.message });
    }),
});

export async function readStateHandler(c: Context<AppEnv>): Promise<Response> {
  const query = stateQuery.safeParse({ tool: queryParam(c, "tool"), pointer: queryParam(c, "pointer") });
  if (!query.success) {
    throw invalidRequest(
      query.error.issues.map((issue) => ({ path: `/query/${issue.path.join("/")}`, message: issue.message })),
    );
  }
  const { tool, pointer } = query.data;
  const attempt = await authorizedReader(c);
  const parsed = parsePointer(pointer);
  // The query schema above accepted only texts parsePointer reads.
  const tokens = parsed.ok ? parsed.tokens : [];
  const reply = await attemptStub(c.env, attempt.id).readState(tool, tokens);
  switch (reply.kind) {
    case "ok":
      return c.json({ attempt_id: attempt.id, tool, pointer, value: reply.value });
    case "absent":
      throw new ApiError("not_found", `tool "${tool}" holds nothing at ${JSON.stringify(pointer)}`, {
        problems: [{ path: "/query/pointer", message: `nothing at ${JSON.stringify(pointer)}` }],
      });
    case "unknown_tool":
      throw new ApiError("not_found", `this attempt has no tool "${tool}" (it has ${reply.tools.join(", ")})`, {
        problems: [{ path: "/query/tool", message: `no tool "${tool}" in this attempt` }],
      });
    case "missing":
      throw new ApiError(
        "not_found",
        "this attempt's object no longer holds its state (retired after its lease); GET /api/attempts/:id shows its last changes",
      );
    case "failed":
      throw new ApiError("internal_error", `the tool's state could not be read: ${reply.message}`);
  }
}
