/**
 * /api/attempts/:id/mcp: the attempt's pinned tools as an MCP server (Streamable HTTP, stateless,
 * JSON responses). The official SDK speaks the protocol; this file only says which tools exist and
 * sends tools/call through the same attempt object as HTTP dispatch (same state, same evidence).
 *
 * Stateless on purpose: every POST gets a fresh low-level Server and transport, so any Worker
 * isolate can answer any request and nothing is kept between them. The tools are known only at run
 * time (they are the attempt's), which is why this uses the low-level Server rather than McpServer.
 *
 * How answers map (docs/simulations.md):
 * - a result: structuredContent (the result, or {"result": value} when it is not an object) plus
 *   a text copy that is exactly the JSON HTTP dispatch would answer;
 * - a tool input error: a normal tool result with isError: true, so the agent can read and recover;
 * - a harness error: a JSON-RPC error (-32603) whose message starts with "harness error" and whose
 *   data is {code: "harness_error", kind}: it is not the agent's to recover from, and a client must
 *   not mistake it for the tool's answer.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type ListToolsResult } from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { Context } from "hono";
import { isJsonObject, type JsonValue } from "../core/json.js";
import { systemClock } from "../core/ports.js";
import { parseDelayScale, waitSimulatedDelay } from "../core/simulation/delay.js";
import { argumentProblems, unusableArgumentsMessage, type DispatchRequest } from "../core/simulation/dispatch-request.js";
import { parseEvidenceError } from "../core/simulation/evidence.js";
import { mcpTool, structuredContent } from "../core/simulation/mcp-shape.js";
import { attemptStub, attemptUnauthorized, capabilityTokenHash } from "./attempt-access.js";
import type { DispatchReply } from "./attempt-object.js";
import type { AppEnv } from "./env.js";
import { ApiError } from "./http-error.js";

const SERVER_INFO = { name: "toolproof-attempt", version: "0.1.0" };
/** A JSON-RPC batch of tool calls is still small; this bounds what the transport will read. */
const MCP_BODY_LIMIT = 512 * 1024;
/** Optional idempotency key for tools/call, in params._meta (MCP has no field of its own for it). */
export const CALL_ID_META_KEY = "toolproof/call_id";

export async function mcpHandler(c: Context<AppEnv>): Promise<Response> {
  const attemptId = c.req.param("id") ?? "";
  const tokenHash = capabilityTokenHash(c, attemptId);
  if (c.req.method !== "POST") {
    // Stateless server: no standalone SSE stream to GET, no session to DELETE.
    throw new ApiError("method_not_allowed", "this MCP endpoint is stateless: send JSON-RPC messages with POST");
  }
  const stub = attemptStub(c.env, attemptId);
  const described = await stub.describe(tokenHash);
  if (described.kind === "unauthorized") throw attemptUnauthorized();

  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: "Simulated tools of one toolproof attempt. Calls change this attempt's state and are recorded as evidence.",
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  const listing: ListToolsResult = { tools: described.tools.map(mcpTool) };
  server.setRequestHandler(ListToolsRequestSchema, () => listing);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const call: DispatchRequest = { tool: request.params.name, arguments: {} };
    const args: unknown = request.params.arguments ?? {};
    // Checked before the RPC too: arguments nested deep enough to overflow a walk must not reach
    // the serializer that carries them to the attempt object.
    const unusable = argumentProblems(args);
    if (unusable.length > 0) return callResult({ kind: "unusable_arguments", message: unusableArgumentsMessage(unusable), problems: unusable }, c.env.DELAY_SCALE);
    if (isJsonObject(args)) call.arguments = args;
    const callId = request.params._meta?.[CALL_ID_META_KEY];
    if (typeof callId === "string") call.call_id = callId;
    return callResult(await stub.dispatchRequest(tokenHash, call), c.env.DELAY_SCALE);
  });

  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_BODY_LIMIT,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(c.req.raw);
  } finally {
    // JSON-response mode has built the whole body by now; nothing is left to stream.
    await server.close();
  }
}

async function callResult(reply: DispatchReply, delayScale: string | undefined): Promise<CallToolResult> {
  switch (reply.kind) {
    case "unauthorized":
    case "missing": // tools/call comes after tools/list or initialize, which already checked the token
      throw new McpError(ErrorCode.InvalidRequest, "this token does not grant access to this attempt");
    case "invalid_request":
      throw new McpError(ErrorCode.InvalidParams, `invalid tools/call: ${reply.problems.map((p) => `${p.path || "/"}: ${p.message}`).join("; ")}`);
    case "unusable_arguments": {
      const error = { code: "tool_input_error", message: reply.message, details: reply.problems };
      return { content: [{ type: "text", text: JSON.stringify({ error }) }], isError: true };
    }
    case "malformed_json": // tools/call arguments arrive parsed; kept so every reply has an answer
      throw new McpError(ErrorCode.ParseError, reply.message);
    case "ambiguous":
      throw new McpError(ErrorCode.InvalidParams, reply.message);
    case "call_id_conflict":
      throw new McpError(ErrorCode.InvalidParams, `call id "${reply.call_id}" was already used by call ${reply.seq} with a different tool or arguments`);
    case "call_limit":
      throw new McpError(ErrorCode.InvalidRequest, `this attempt has made the most calls one attempt may make (${reply.limit})`);
    case "answer": {
      const answer = reply.answer;
      await waitSimulatedDelay(answer.delay_ms, parseDelayScale(delayScale), systemClock);
      if (answer.outcome === "result" && answer.result !== null) {
        // SAFETY: the attempt object produced this text with JSON.stringify of the rendered result.
        const result = JSON.parse(answer.result) as JsonValue;
        return { content: [{ type: "text", text: answer.result }], structuredContent: structuredContent(result) };
      }
      const error = parseEvidenceError(answer.error ?? '{"code":"harness_error","kind":"internal","message":"no answer was recorded","details":[]}');
      if (error.code === "tool_input_error") {
        return { content: [{ type: "text", text: JSON.stringify({ error }) }], isError: true };
      }
      throw new McpError(ErrorCode.InternalError, `harness error (${error.kind ?? "internal"}): ${error.message}`, {
        code: "harness_error",
        kind: error.kind ?? "internal",
        seq: answer.seq,
      });
    }
  }
}

