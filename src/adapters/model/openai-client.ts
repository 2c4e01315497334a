/**
 * The ModelClient port over the `openai` package: `OpenAI` with a base URL (OpenAI, vLLM, Ollama,
 * LM Studio, Azure's v1 API) or `AzureOpenAI` when the connection names a dated api_version (the
 * model is then the deployment). The client's own retry loop handles 429 and 5xx with backoff and
 * honours retry-after; every failure that remains becomes a ModelFailure whose message names the
 * connection and says what the endpoint said, so a person reading a run knows what to fix.
 * Runs unchanged in workerd and Node (the package uses the platform's fetch).
 */
import OpenAI, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  AzureOpenAI,
} from "openai";
import { readAnswerBody } from "./answer-body.js";
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type {
  ChatAnswer,
  ChatMessage,
  ChatRequest,
  ChatResult,
  ChatTool,
  ChatToolCall,
  ModelClient,
  ModelFailure,
} from "../../core/ports.js";
import { redactionList, redactText } from "../../core/secret-redaction.js";
import { messageOf } from "../../core/message-of.js";

/**
 * The most bytes of one answer's body that are read (docs/connections.md, "How much of an answer is
 * read"). A repetition's record keeps each answer twice (the conversation and its turns) and must
 * fit one SQLite value (2 MB in Durable Objects and D1); 256 KiB is about 64k tokens of text, more
 * than chat models write in one answer.
 */
export const MAX_ANSWER_BYTES = 256 * 1024;

/** One stored connection with its opened secrets: everything needed to reach the endpoint. */
export interface ModelConnectionConfig {
  name: string;
  /** The OpenAI-style base URL (…/v1), or for a dated Azure API the resource endpoint. */
  base_url: string;
  /** The model, or the Azure deployment. */
  model: string;
  api_key: string;
  /** Azure's dated API version; null for the OpenAI-style API. */
  api_version: string | null;
  /** Extra headers sent with every request. */
  headers: Record<string, string>;
  /** Per attempt: a retry gets a fresh timeout. */
  timeout_ms: number;
  /** Retries after the first try, on 408/409/429/5xx, timeouts and refused connections. */
  max_retries: number;
  /** The most calls a run makes to this connection at once (the run consumer enforces it). */
  max_concurrency: number;
  /** Whether to send response_format (json_schema, strict); off for endpoints without structured output. */
  structured_output: boolean;
}

/**
 * Whether a TCP connection to host:port is accepted. workerd's fetch says "Network connection lost."
 * both when nothing listens and when a server closes the connection without answering; a probe
 * (tcp-probe.ts, over cloudflare:sockets) tells the two apart after such a failure. Node's fetch
 * names the cause itself (ECONNREFUSED), so Node callers pass none.
 */
export type ConnectionProbe = (host: string, port: number) => Promise<"refused" | "accepted" | "unknown">;

interface ModelClientEnvironment {
  probe?: ConnectionProbe;
}

export function openAIModelClient(
  config: ModelConnectionConfig,
  now: () => number = Date.now,
  environment: ModelClientEnvironment = {},
): ModelClient {
  const client = sdkClient(config);
  return {
    async chat(request: ChatRequest): Promise<ChatResult> {
      const started = now();
      let response: Response;
      try {
        // The raw response, not the parsed completion: the SDK would read the whole body first (answer-body.ts).
        response = await client.chat.completions.create(completionParams(config, request)).asResponse();
      } catch (error) {
        const probed =
          error instanceof APIConnectionError && !(error instanceof APIConnectionTimeoutError)
            ? await probeAfter(config, error, environment.probe)
            : null;
        return { ok: false, failure: withoutSecrets(config, describeFailure(config, error, probed)) };
      }
      const body = await readAnswerBody(response, MAX_ANSWER_BYTES, config.timeout_ms);
      if (body.kind === "too_large") return tooLarge(config);
      if (body.kind === "timeout") {
        return {
          ok: false,
          failure: {
            kind: "timeout",
            status: 200,
            message: `connection "${config.name}": the answer from ${config.base_url} did not finish within ${config.timeout_ms} ms`,
            retryable: false,
          },
        };
      }
      if (body.kind === "failed")
        return invalid(config, `the endpoint's answer broke off while it was read: ${body.message}`);
      let completion: unknown;
      try {
        completion = JSON.parse(body.text);
      } catch {
        return invalid(
          config,
          body.text.trim() === ""
            ? "the endpoint answered 200 with an empty body"
            : `the endpoint's answer is not JSON (it begins ${JSON.stringify(body.text.slice(0, 80))})`,
        );
      }
      return readCompletion(config, completion, now() - started);
    },
  };
}

function tooLarge(config: ModelConnectionConfig): ChatResult {
  return {
    ok: false,
    failure: {
      kind: "answer_too_large",
      status: 200,
      message: `connection "${config.name}": the endpoint's answer is larger than ${MAX_ANSWER_BYTES} bytes, the most toolproof reads of one model answer; the rest was not read and the call is not retried`,
      retryable: false,
    },
  };
}

function sdkClient(config: ModelConnectionConfig): OpenAI {
  const common = {
    apiKey: config.api_key,
    timeout: config.timeout_ms,
    maxRetries: config.max_retries,
    defaultHeaders: config.headers,
  };
  if (config.api_version === null) return new OpenAI({ ...common, baseURL: config.base_url });
  // A base URL already ending in /openai is taken as is; a bare resource endpoint gets /openai added by the client.
  const base = config.base_url.replace(/\/+$/, "");
  const where = /\/openai$/.test(base) ? { baseURL: base } : { endpoint: base };
  return new AzureOpenAI({ ...common, ...where, apiVersion: config.api_version, deployment: config.model });
}

function completionParams(config: ModelConnectionConfig, request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
  const params: ChatCompletionCreateParamsNonStreaming = {
    model: config.model,
    messages: request.messages.map(toSdkMessage),
  };
  if (request.tools && request.tools.length > 0) params.tools = request.tools.map(toSdkTool);
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.seed !== undefined) params.seed = request.seed;
  // max_tokens, not max_completion_tokens: vLLM, Ollama, LM Studio and Azure's older versions know only this one.
  if (request.max_tokens !== undefined) params.max_tokens = request.max_tokens;
  if (request.response_format && config.structured_output) {
    const { name, schema, strict } = request.response_format;
    params.response_format = { type: "json_schema", json_schema: { name, schema, strict: strict ?? true } };
  }
  return params;
}

function toSdkMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case "system":
      return { role: "system", content: message.content };
    case "user":
      return { role: "user", content: message.content };
    case "tool":
      return { role: "tool", tool_call_id: message.tool_call_id, content: message.content };
    case "assistant": {
      const calls = message.tool_calls ?? [];
      if (calls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        content: message.content,
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    }
  }
}

function toSdkTool(tool: ChatTool): ChatCompletionTool {
  // Function parameters must be an object schema; a boolean schema means "anything" or "nothing".
  const parameters =
    typeof tool.parameters === "boolean"
      ? tool.parameters
        ? { type: "object" }
        : { type: "object", not: {} }
      : tool.parameters;
  return { type: "function", function: { name: tool.name, description: tool.description, parameters } };
}

/**
 * The first choice's message as the core's ChatAnswer, whatever shape of OpenAI-compatible answer
 * carried it (docs/connections.md, "Answers as endpoints send them"): tool calls without `type` or
 * `id`, arguments as an object, text parts instead of a string, the legacy `function_call`, reasoning
 * fields beside the content. What cannot be read as a chat answer is refused, naming the endpoint
 * and the shape, rather than guessed at.
 */
function readCompletion(config: ModelConnectionConfig, completion: unknown, latency_ms: number): ChatResult {
  const choice = firstChoice(completion);
  if (!choice) return invalid(config, "the endpoint answered without any choice (no choices[0].message)");
  if ("streamed" in choice)
    return invalid(
      config,
      "the endpoint answered a streaming chunk (choices[0].delta) to a request that did not ask to stream",
    );
  const { message, finish_reason } = choice;
  const content = contentText(message.content);
  if (content === undefined)
    return invalid(
      config,
      `the endpoint answered choices[0].message.content as ${kindOf(message.content)}, neither text nor text parts`,
    );
  const rawCalls = message.tool_calls ?? null;
  if (rawCalls !== null && !Array.isArray(rawCalls))
    return invalid(config, `the endpoint answered choices[0].message.tool_calls as ${kindOf(rawCalls)}, not a list`);
  // The legacy single function_call (before tool_calls) is a call like any other: a forbidden one must be seen.
  const calls: unknown[] =
    rawCalls ?? (isRecord(message.function_call) ? [{ type: "function", function: message.function_call }] : []);
  const where = rawCalls === null ? "choices[0].message.function_call" : "choices[0].message.tool_calls";
  const tool_calls: ChatToolCall[] = [];
  for (const [index, raw] of calls.entries()) {
    const call = functionCall(raw, index);
    if (typeof call === "string")
      return invalid(
        config,
        `the endpoint answered a tool call ${call} (${rawCalls === null ? where : `${where}[${index}]`})`,
      );
    tool_calls.push(call);
  }
  const answer: ChatAnswer = {
    content,
    tool_calls,
    finish_reason: typeof finish_reason === "string" ? finish_reason : null,
    usage: usageOf(completion),
    latency_ms,
  };
  return { ok: true, answer };
}

/** choices[0] (by its index field when the endpoint sent several), or a streaming chunk's delta. */
function firstChoice(
  completion: unknown,
): { message: Record<string, unknown>; finish_reason: unknown } | { streamed: true } | undefined {
  if (!isRecord(completion) || !Array.isArray(completion.choices)) return undefined;
  const choices: unknown[] = completion.choices;
  const choice: unknown = choices.find((c) => isRecord(c) && c.index === 0) ?? choices[0];
  if (!isRecord(choice)) return undefined;
  if (!isRecord(choice.message)) return isRecord(choice.delta) ? { streamed: true } : undefined;
  return { message: choice.message, finish_reason: choice.finish_reason };
}

/** The message's text: a string, text parts joined, null when absent; undefined for anything else. */
function contentText(content: unknown): string | null | undefined {
  if (content === undefined || content === null) return null;
  if (typeof content === "string") return content;
  if (
    Array.isArray(content) &&
    content.every((part) => isRecord(part) && (typeof part.text === "string" || part.type !== "text"))
  ) {
    return content.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : "")).join("");
  }
  return undefined;
}

/** One tool call, or what is wrong with it (a phrase completing "answered a tool call ..."). */
function functionCall(raw: unknown, index: number): ChatToolCall | string {
  if (!isRecord(raw)) return `that is ${kindOf(raw)}, not an object`;
  if (raw.type !== undefined && raw.type !== "function") return `of type ${JSON.stringify(raw.type)}, not "function"`;
  if (!isRecord(raw.function) || typeof raw.function.name !== "string" || raw.function.name === "")
    return "without a function name";
  const name = raw.function.name;
  const args = raw.function.arguments;
  // The raw text, whatever it is: malformed JSON is the agent loop's to report to the model.
  const text = typeof args === "string" ? args : args === undefined || args === null ? "" : JSON.stringify(args);
  // Kept as the endpoint sent it (the tool result goes back under the same id); derived when missing.
  const id = typeof raw.id === "string" && raw.id !== "" ? raw.id : derivedCallId(index, name, text);
  return { id, name, arguments: text };
}

/**
 * The id of a call the endpoint sent without one (Gemini sends "", some servers none): "tp_" + the
 * call's position in the answer (from 1) + a hash of its name and arguments, so reading the same
 * answer twice gives the same id, and two calls of one answer never share it.
 */
export function derivedCallId(index: number, name: string, args: string): string {
  let hash = 0x811c9dc5;
  for (const char of `${name}\u0000${args}`) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `tp_${index + 1}_${hash.toString(16).padStart(8, "0")}`;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

function usageOf(completion: unknown): ChatAnswer["usage"] {
  if (!isRecord(completion) || !isRecord(completion.usage)) return null;
  const { prompt_tokens, completion_tokens } = completion.usage;
  return typeof prompt_tokens === "number" && typeof completion_tokens === "number"
    ? { prompt_tokens, completion_tokens }
    : null;
}

function invalid(config: ModelConnectionConfig, what: string): ChatResult {
  return {
    ok: false,
    failure: {
      kind: "invalid_answer",
      status: 200,
      message: `connection "${config.name}" (${config.base_url}): ${what}`,
      retryable: false,
    },
  };
}

/**
 * The failure's message with the connection's key and header values blanked out, in every
 * spelling an echo may take (core/secret-redaction.ts): an endpoint (a proxy, a local server) may
 * echo what it was sent, and the message is answered to API clients and stored on repetitions,
 * where the key must never appear.
 */
function withoutSecrets(config: ModelConnectionConfig, failure: ModelFailure): ModelFailure {
  const message = redactText(failure.message, redactionList([config.api_key, ...Object.values(config.headers)]));
  return message === failure.message ? failure : { ...failure, message };
}

type Probed = "refused" | "accepted" | "unknown" | null;

/** The probe's answer for the base URL's address, only after workerd's ambiguous "Network connection lost.". */
async function probeAfter(
  config: ModelConnectionConfig,
  error: APIConnectionError,
  probe: ConnectionProbe | undefined,
): Promise<Probed> {
  if (!probe || !/network connection lost/i.test(causeChain(error))) return null;
  const { host, port } = addressOf(config.base_url);
  try {
    return await probe(host, port);
  } catch {
    return "unknown";
  }
}

/** The host and port a base URL connects to (the scheme's port when none is written). */
function addressOf(baseUrl: string): { host: string; port: number; text: string } {
  const url = new URL(baseUrl);
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return { host: url.hostname, port, text: `${url.hostname}:${port}` };
}

/**
 * Why the endpoint could not be reached, in words: a refused connection and one closed without an
 * answer call for different fixes (start the server, or look at what answers on that port), and
 * the runtimes word them differently (Node: ECONNREFUSED, other side closed; workerd: "Network
 * connection lost." for both, told apart by the probe).
 */
function unreachableReason(config: ModelConnectionConfig, error: APIConnectionError, probed: Probed): string {
  const chain = causeChain(error);
  const address = addressOf(config.base_url).text;
  const codes = causeCodes(error);
  if (codes.includes("ECONNREFUSED") || probed === "refused")
    return `the connection to ${address} was refused (nothing accepts connections at that address and port)`;
  if (codes.includes("UND_ERR_SOCKET") || codes.includes("ECONNRESET") || probed === "accepted")
    return `${address} accepted the connection and closed it without an answer (${chain})`;
  return chain;
}

/** What went wrong, for a person: the connection, what failed, and the endpoint's own words. */
function describeFailure(config: ModelConnectionConfig, error: unknown, probed: Probed = null): ModelFailure {
  const name = `connection "${config.name}"`;
  const retries =
    config.max_retries > 0 ? ` (after ${config.max_retries} ${config.max_retries === 1 ? "retry" : "retries"})` : "";
  if (error instanceof APIConnectionTimeoutError || error instanceof APIUserAbortError) {
    return {
      kind: "timeout",
      status: null,
      message: `${name}: no answer from ${config.base_url} within ${config.timeout_ms} ms${retries}`,
      retryable: true,
    };
  }
  if (error instanceof APIConnectionError) {
    return {
      kind: "unreachable",
      status: null,
      message: `${name}: could not reach ${config.base_url}${retries}: ${unreachableReason(config, error, probed)}`,
      retryable: true,
    };
  }
  if (error instanceof APIError && typeof error.status === "number") {
    return statusFailure(config, error.status, endpointSaid(error), error.code ?? null, retries);
  }
  // The SDK threw something else: a 200 whose body was not JSON, for one.
  const said = messageOf(error);
  return {
    kind: "invalid_answer",
    status: null,
    message: `${name}: the endpoint's answer could not be read: ${said}`,
    retryable: false,
  };
}

function statusFailure(
  config: ModelConnectionConfig,
  status: number,
  said: string,
  code: string | null,
  retries: string,
): ModelFailure {
  const name = `connection "${config.name}"`;
  const tail = said === "" ? "" : `: ${said}`;
  if (status === 401 || status === 403) {
    return {
      kind: "unauthorized",
      status,
      message: `${name}: the endpoint refused the API key (${status})${tail}`,
      retryable: false,
    };
  }
  if (status === 404) {
    const aboutModel = code === "model_not_found" || code === "DeploymentNotFound" || /model|deployment/i.test(said);
    if (aboutModel) {
      const what = config.api_version === null ? `model "${config.model}"` : `deployment "${config.model}"`;
      return {
        kind: "unknown_model",
        status,
        message: `${name}: ${what} is unknown to the endpoint (404)${tail}`,
        retryable: false,
      };
    }
    return {
      kind: "bad_request",
      status,
      message: `${name}: ${config.base_url} has no chat completions endpoint (404)${tail}; check base_url (OpenAI-style endpoints usually end in /v1)`,
      retryable: false,
    };
  }
  if (status === 429) {
    return {
      kind: "rate_limited",
      status,
      message: `${name}: the endpoint is rate limiting requests (429)${retries}${tail}`,
      retryable: true,
    };
  }
  if (status >= 500 || status === 408 || status === 409) {
    return {
      kind: "server_error",
      status,
      message: `${name}: the endpoint failed (${status})${retries}${tail}`,
      retryable: true,
    };
  }
  return {
    kind: "bad_request",
    status,
    message: `${name}: the endpoint rejected the request (${status})${tail}`,
    retryable: false,
  };
}

/** The endpoint's own message (OpenAI's error.message), else the SDK's summary without its status prefix. */
function endpointSaid(error: APIError): string {
  const body: unknown = error.error;
  if (isRecord(body) && typeof body.message === "string") return body.message;
  if (typeof body === "string") return body;
  return error.message.replace(/^\d{3}\s*/, "").replace(/^status code \(no body\)$/, "");
}

/** "Connection error." alone says nothing: the causes say refused, DNS or TLS. */
function causeChain(error: Error): string {
  const parts: string[] = [];
  let current: unknown = error.cause;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code =
      isRecord(current) && typeof current.code === "string" && !current.message.includes(current.code)
        ? `${current.code} `
        : "";
    parts.push(`${code}${current.message}`.trim());
    current = current.cause;
  }
  return parts.length > 0 ? parts.join(": ") : error.message;
}

/** The error codes (ECONNREFUSED, UND_ERR_SOCKET, ...) along the cause chain. */
function causeCodes(error: Error): string[] {
  const codes: string[] = [];
  let current: unknown = error.cause;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    if (isRecord(current) && typeof current.code === "string") codes.push(current.code);
    current = current.cause;
  }
  return codes;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
