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
 *   not mistake it for the tool's answer;
 * - every refusal: the ApiError of the shared table (attempt/reply-errors.ts), its code in data;
 *   before any MCP is spoken (a bad token, lost storage) the same HTTP answer as dispatch.
 *
 * The body is read and parsed here, not by the SDK (readBody): JSON.parse and the SDK's lenient
 * decoding would let a call run with arguments the agent never sent, so the text is checked first
 * and the SDK is handed the parsed value.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { requestBodyTooLargeMessage } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import {
  ErrorCode,
  InitializeRequestSchema,
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type ListToolsResult,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { Context } from "hono";
import { z } from "zod";
import { isJsonObject, type Problem } from "../../core/json.js";
import { systemClock } from "../../core/ports.js";
import { parseDelayScale, waitSimulatedDelay } from "../../core/simulation/delay.js";
import {
  argumentProblems,
  NAME_SHAPE,
  unusableArgumentsMessage,
  type DispatchRequest,
} from "../../core/simulation/dispatch-request.js";
import { mcpRequestKey, mcpTextProblems } from "../../core/simulation/mcp-request-text.js";
import { mcpTool, structuredContent } from "../../core/simulation/mcp-shape.js";
import { attemptStub, capabilityTokenHash } from "./access.js";
import type { Answer } from "./replies.js";
import { answerError, leaseEndedError, refusalError } from "./reply-errors.js";
import { storedResult } from "./stored-values.js";
import type { AppEnv } from "../platform/env.js";
import { otherCharsetProblem } from "../http/charset.js";
import { ApiError, invalidRequest } from "../http/errors.js";
import { readBodyBytes, utf8Text } from "../http/json-body.js";
import { errorHeaders, lostAttemptError } from "./lost-attempt.js";
import { settleForward } from "./real/forward.js";

const SERVER_INFO = { name: "toolproof-attempt", version: "0.1.0" };
/** A JSON-RPC batch of tool calls is still small; this bounds what the transport will read. */
const MCP_BODY_LIMIT = 512 * 1024;
/** Optional idempotency key for tools/call, in params._meta (MCP has no field of its own for it). */
const CALL_ID_META_KEY = "toolproof/call_id";

/**
 * tools/call as the handler receives it: params exactly as the client sent them. The SDK's own
 * schema would rebuild `arguments` as a zod record, which drops an own "__proto__" key, so the call
 * would be answered and recorded without an argument the agent did send; and a request its schema
 * refused would surface as -32603, the code reserved for harness errors, instead of the -32602
 * invalid params the SDK's tools/call wrapper answers when it validates first.
 */
const RawToolCallSchema = z.looseObject({ method: z.literal("tools/call") });

export async function mcpHandler(c: Context<AppEnv>): Promise<Response> {
  try {
    return await answerMcp(c);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const response = error.toResponse(errorHeaders(error));
    return error.status === 401 ? withoutOAuthPrompt(response) : response;
  }
}

/**
 * A refused token as 403, the same body. MCP clients built on the official SDK (the MCP Inspector
 * among them) answer any 401 by starting OAuth discovery and an interactive login, which this
 * server does not offer: its token is the attempt's, handed out with the simulation. The MCP
 * authorization spec is optional and binds only servers that support it, and RFC 9110's 403
 * ("credentials ... considered insufficient") fits a token that opens nothing here; clients
 * report a 403 (without an insufficient_scope challenge) as the error it is.
 */
function withoutOAuthPrompt(response: Response): Response {
  return new Response(response.body, { status: 403, headers: response.headers });
}

async function answerMcp(c: Context<AppEnv>): Promise<Response> {
  const attemptId = c.req.param("id") ?? "";
  const tokenHash = capabilityTokenHash(c, attemptId);
  if (c.req.method !== "POST") {
    // Stateless server: no standalone SSE stream to GET, no session to DELETE.
    throw new ApiError("method_not_allowed", "this MCP endpoint is stateless: send JSON-RPC messages with POST");
  }
  const stub = attemptStub(c.env, attemptId);
  const described = await stub.describe(tokenHash);
  if (described.kind === "unauthorized") throw refusalError(described);
  if (described.kind === "missing") {
    // Before any MCP is spoken, as for a bad token: the same answer HTTP dispatch gives.
    throw await lostAttemptError(c.env, attemptId, tokenHash, systemClock);
  }

  const body = await readBody(c.req.raw);
  if (body.kind === "answered") return body.response;
  const lostArguments = body.kind === "parsed" ? body.lostArguments : new Map<string, Problem[]>();

  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions:
      "Simulated tools of one toolproof attempt. Calls change this attempt's state and are recorded as evidence.",
    jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
  });
  if (described.lease_ended) {
    // A new session is a read too: after the lease the token opens nothing but the calls of a
    // client connected before (answered below as the lease_expired harness error).
    server.setRequestHandler(InitializeRequestSchema, () => {
      throw jsonRpcError(leaseEndedError());
    });
  }
  const listing: ListToolsResult = { tools: described.tools.map(mcpTool) };
  server.setRequestHandler(ListToolsRequestSchema, () => {
    // A read, like GET /api/attempts/:id: the token no longer opens it. Calls still reach the
    // object, which answers them with the lease_expired harness error and records it.
    if (described.lease_ended) throw jsonRpcError(leaseEndedError());
    return listing;
  });
  server.setRequestHandler(RawToolCallSchema, async (request, extra) => {
    // SAFETY: the SDK's tools/call wrapper has checked these params against CallToolRequestSchema
    // (answering -32602 when they fail) before this handler runs; only the copy it made is discarded.
    const params = request.params as CallToolRequest["params"];
    const call: DispatchRequest = { tool: params.name, arguments: {} };
    const args: unknown = params.arguments ?? {};
    // Checked before the RPC too: arguments nested deep enough to overflow a walk must not reach
    // the serializer that carries them to the attempt object.
    const unusable = lostArguments.get(mcpRequestKey(extra.requestId)) ?? argumentProblems(args);
    if (unusable.length > 0)
      return toolInputResult(
        refusalError({ kind: "unusable_arguments", message: unusableArgumentsMessage(unusable), problems: unusable }),
      );
    if (isJsonObject(args)) call.arguments = args;
    const callId = params._meta?.[CALL_ID_META_KEY];
    // Refused as over HTTP: dropping a key of another type would record a retry twice.
    if (callId !== undefined && typeof callId !== "string")
      throw jsonRpcError(invalidRequest([{ path: "/call_id", message: NAME_SHAPE }]));
    if (callId !== undefined) call.call_id = callId;
    const reply = await settleForward(c.env, tokenHash, await stub.dispatchRequest(tokenHash, call));
    switch (reply.kind) {
      case "answer":
        return callResult(reply.answer, c.env.DELAY_SCALE);
      case "unusable_arguments": // the agent's to fix, as a recorded tool input error is
        return toolInputResult(refusalError(reply));
      case "missing": // the storage went between the token check and the call
        throw jsonRpcError(await lostAttemptError(c.env, attemptId, tokenHash, systemClock));
      default:
        throw jsonRpcError(refusalError(reply));
    }
  });

  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MCP_BODY_LIMIT,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(c.req.raw, body.kind === "parsed" ? { parsedBody: body.parsed } : undefined);
  } finally {
    // JSON-response mode has built the whole body by now; nothing is left to stream.
    await server.close();
  }
}

type McpBody =
  | { kind: "parsed"; parsed: unknown; lostArguments: Map<string, Problem[]> }
  /** Not JSON by its Content-Type: the SDK's transport answers it (415) as it is. */
  | { kind: "unread" }
  | { kind: "answered"; response: Response };

/**
 * The body is read here, before the SDK parses it, because JSON.parse would keep the last of a
 * repeated key and round a whole number past 2^53 without a word (core/simulation/mcp-request-text.ts),
 * and the SDK decodes bytes that are not UTF-8 into replacement characters. The size bound and the
 * answers past it are the transport's own.
 */
async function readBody(request: Request): Promise<McpBody> {
  const contentType = request.headers.get("content-type");
  if (!isJsonContentType(contentType)) return { kind: "unread" };
  const otherCharset = otherCharsetProblem(contentType ?? "");
  if (otherCharset !== undefined) return refused(415, -32000, `Unsupported Media Type: ${otherCharset}`);
  let bytes: Uint8Array;
  try {
    bytes = await readBodyBytes(request, MCP_BODY_LIMIT);
  } catch (error) {
    if (error instanceof ApiError && error.status === 413)
      return refused(413, -32000, requestBodyTooLargeMessage(MCP_BODY_LIMIT));
    throw error;
  }
  const text = utf8Text(bytes);
  if (text === undefined) return refused(400, ErrorCode.ParseError, "Parse error: the body is not valid UTF-8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // Answered here, never handed on: the SDK reads bytes its own way (it would drop a second
    // byte order mark), so it could run a text whose checks above never happened.
    return refused(400, ErrorCode.ParseError, "Parse error: Invalid JSON");
  }
  const problems = mcpTextProblems(text, parsed);
  if (problems.request.length > 0) {
    // The whole request, not one call's params: the JSON-RPC code for a request that cannot be read as one.
    const error = invalidRequest(problems.request);
    return refused(400, ErrorCode.InvalidRequest, error.message, { code: error.code, details: error.details });
  }
  return { kind: "parsed", parsed, lostArguments: problems.argumentsByRequest };
}

/** A refusal before any message is read, shaped as the SDK's transport shapes its own (`id: null`). */
function refused(status: number, code: number, message: string, data?: Record<string, unknown>): McpBody {
  const error = { code, message, ...(data === undefined ? {} : { data }) };
  return { kind: "answered", response: Response.json({ jsonrpc: "2.0", error, id: null }, { status }) };
}

async function callResult(answer: Answer, delayScale: string | undefined): Promise<CallToolResult> {
  await waitSimulatedDelay(answer.delay_ms, parseDelayScale(delayScale), systemClock);
  if (answer.outcome === "result" && answer.result !== null) {
    const result = storedResult(answer.result);
    return { content: [{ type: "text", text: answer.result }], structuredContent: structuredContent(result) };
  }
  const error = answerError(answer);
  if (error.code === "tool_input_error") return toolInputResult(error);
  throw jsonRpcError(error, answer.seq);
}

/** A tool input error is the agent's to read and recover from: a tool result, not a protocol error. */
function toolInputResult(error: ApiError): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(error.toBody()) }], isError: true };
}

/**
 * A JSON-RPC error as the SDK sends it: code, message and data exactly as given. (The SDK's
 * McpError prefixes its message with "MCP error <code>: ", and its client adds that prefix again
 * when it rebuilds the error, so a client would read it twice.)
 */
class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** The error table's ApiError as MCP carries it: the same code in data, the status's nearest JSON-RPC code. */
function jsonRpcError(error: ApiError, seq?: number): JsonRpcError {
  if (error.code === "harness_error") {
    const kind = typeof error.extra?.kind === "string" ? error.extra.kind : "internal";
    return new JsonRpcError(ErrorCode.InternalError, `harness error (${kind}): ${error.message}`, {
      code: "harness_error",
      kind,
      ...(seq === undefined ? {} : { seq }),
    });
  }
  const data = { code: error.code, ...(error.details === undefined ? {} : { details: error.details }) };
  if (error.code === "malformed_json") return new JsonRpcError(ErrorCode.ParseError, error.message, data);
  if (error.status === 400 || error.status === 409)
    return new JsonRpcError(ErrorCode.InvalidParams, error.message, data);
  if (error.status < 500) return new JsonRpcError(ErrorCode.InvalidRequest, error.message, data);
  return new JsonRpcError(ErrorCode.InternalError, error.message, data);
}
