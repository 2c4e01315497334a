/**
 * Which answer a chat completion request gets from a model's script, and the OpenAI-shaped bodies
 * for it. Kept apart from the HTTP plumbing (server.ts) so the choice is one readable function.
 */
import type { Fault, JudgeAnswer, ModelScript, Turn } from "./script.js";

/** Everything the server keeps per model name: its script, where its faults and judge answers stand, its log. */
export interface ModelState {
  script: ModelScript | undefined;
  /** Faults already answered (each fault counts `times`). */
  faultsServed: number;
  /** Judge requests seen per query. */
  judgeSeen: Map<string, number>;
  /** Encounters of each injection marker (script `injections`). */
  injectionSeen: Map<string, number>;
}

/** What was understood of a request body: enough to choose and log. */
export interface ReadRequest {
  model: string | null;
  messages: unknown[];
  kind: "chat" | "judge";
  query: string | null;
  /** The system message's text (the query of a script with `query_from: "system"`). */
  systemText: string | null;
  assistantMessages: number;
  /** The text of the tool messages after the last assistant message: the results the model has not answered yet. */
  newToolText: string;
  stream: boolean;
}

export type Decision =
  | { type: "turn"; turn: Turn; latency_ms: number }
  | { type: "judge"; answer: JudgeAnswer; latency_ms: number }
  | { type: "error"; status: number; body: ErrorBody; headers?: Record<string, string>; latency_ms: number };

export interface ErrorBody {
  error: { message: string; type: string; param: null; code: string | null };
}

export function errorBody(message: string, type: string, code: string | null): ErrorBody {
  return { error: { message, type, param: null, code } };
}

export function readRequest(body: unknown): ReadRequest {
  const record = isRecord(body) ? body : {};
  const messages = Array.isArray(record.messages) ? record.messages : [];
  const firstUser = messages.find((m) => isRecord(m) && m.role === "user");
  const firstUserText = isRecord(firstUser) ? textOf(firstUser.content) : null;
  const system = messages.find((m) => isRecord(m) && m.role === "system");
  const assistantMessages = messages.filter((m) => isRecord(m) && m.role === "assistant").length;
  const judgeQuery = firstUserText === null ? null : caseQuery(firstUserText);
  const isJudge = judgeQuery !== null || record.response_format !== undefined;
  const lastAssistant = messages.map((m) => isRecord(m) && m.role === "assistant").lastIndexOf(true);
  const newToolText = messages
    .slice(lastAssistant + 1)
    .map((m) => (isRecord(m) && m.role === "tool" ? (textOf(m.content) ?? "") : ""))
    .join("\n");
  return {
    model: typeof record.model === "string" ? record.model : null,
    messages,
    kind: isJudge ? "judge" : "chat",
    query: isJudge ? (judgeQuery ?? firstUserText) : firstUserText,
    systemText: isRecord(system) ? textOf(system.content) : null,
    assistantMessages,
    newToolText,
    stream: record.stream === true,
  };
}

/** The answer for one authenticated request of a scripted model; advances the model's counters. */
export function decide(model: string, state: ModelState, script: ModelScript, request: ReadRequest): Decision {
  const fault = nextFault(state, script);
  if (fault) return faultDecision(fault, fault.latency_ms ?? script.latency_ms ?? 0);

  if (request.kind === "judge") {
    const query = request.query ?? "";
    const answers =
      (script.judge && Object.hasOwn(script.judge, query) ? script.judge[query] : undefined) ?? script.judge_default;
    if (!answers) {
      return noScript(
        `model "${model}" has no judge answer for query ${JSON.stringify(query)} and no judge_default (judge queries scripted: ${known(script.judge)})`,
      );
    }
    const seen = (state.judgeSeen.get(query) ?? 0) + 1;
    state.judgeSeen.set(query, seen);
    const answer = answers[Math.min(seen, answers.length) - 1] as JudgeAnswer;
    return { type: "judge", answer, latency_ms: latencyOf(answer) ?? script.latency_ms ?? 0 };
  }

  const query = script.query_from === "system" ? request.systemText : request.query;
  for (const injection of script.injections ?? []) {
    if (request.newToolText === "" || !request.newToolText.includes(injection.contains)) continue;
    if (injection.query !== undefined && injection.query !== query) continue;
    const seen = (state.injectionSeen.get(injection.contains) ?? 0) + 1;
    state.injectionSeen.set(injection.contains, seen);
    if (injection.follow_on === undefined || injection.follow_on.includes(seen))
      return { type: "turn", turn: injection.turn, latency_ms: injection.turn.latency_ms ?? script.latency_ms ?? 0 };
  }

  const turns =
    (query !== null && script.conversations && Object.hasOwn(script.conversations, query)
      ? script.conversations[query]
      : undefined) ?? script.default;
  if (!turns) {
    return noScript(
      `model "${model}" has no conversation for query ${JSON.stringify(query)} and no default (queries scripted: ${known(script.conversations)})`,
    );
  }
  const turn = turns[request.assistantMessages];
  if (!turn) {
    return noScript(
      `model "${model}": the conversation for query ${JSON.stringify(query)} has ${turns.length} turn(s), and this request already carries ${request.assistantMessages} assistant message(s)`,
    );
  }
  return { type: "turn", turn, latency_ms: turn.latency_ms ?? script.latency_ms ?? 0 };
}

export function faultDecision(fault: Fault, latency_ms: number): Decision & { type: "error" } {
  const code = fault.code ?? defaultCode(fault.status);
  const message = fault.message ?? defaultMessage(fault.status);
  const headers: Record<string, string> =
    fault.retry_after === undefined ? {} : { "retry-after": String(fault.retry_after) };
  return {
    type: "error",
    status: fault.status,
    body: errorBody(message, fault.status >= 500 ? "server_error" : "invalid_request_error", code),
    headers,
    latency_ms,
  };
}

/** A chat.completion body for a text or tool-call turn. */
export function completionBody(
  model: string,
  completionId: string,
  nextCallId: () => string,
  prompt: unknown[],
  tools: unknown,
  scripted: {
    content: string | null;
    repeat?: number | "forever";
    tool_calls?: Array<{ name: string; arguments: Record<string, unknown> | string; padding?: number }>;
  },
): unknown {
  // "forever" is streamed by the server around this body's content; here it is the content once.
  const times = typeof scripted.repeat === "number" ? scripted.repeat : 1;
  const turn = { ...scripted, content: scripted.content === null ? null : scripted.content.repeat(times) };
  const toolCalls = (turn.tool_calls ?? []).map((call) => ({
    id: nextCallId(),
    type: "function",
    function: {
      name: call.name,
      arguments:
        (typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments)) +
        " ".repeat(call.padding ?? 0),
    },
  }));
  const completionText = (turn.content ?? "") + toolCalls.map((c) => c.function.name + c.function.arguments).join("");
  const promptTokens = tokens(JSON.stringify(prompt)) + (tools === undefined ? 0 : tokens(JSON.stringify(tools)));
  const completionTokens = Math.max(1, tokens(completionText));
  return {
    id: completionId,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: turn.content,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

function nextFault(state: ModelState, script: ModelScript): Fault | undefined {
  let index = state.faultsServed;
  for (const fault of script.faults ?? []) {
    const times = fault.times ?? 1;
    if (index < times) {
      state.faultsServed++;
      const { times: _times, ...rest } = fault;
      return rest;
    }
    index -= times;
  }
  return undefined;
}

function noScript(message: string): Decision {
  return {
    type: "error",
    status: 400,
    body: errorBody(`no script matched: ${message}`, "invalid_request_error", "no_script_matched"),
    latency_ms: 0,
  };
}

function known(record: Record<string, unknown> | undefined): string {
  const keys = Object.keys(record ?? {});
  return keys.length === 0 ? "none" : keys.map((k) => JSON.stringify(k)).join(", ");
}

function latencyOf(answer: JudgeAnswer): number | undefined {
  return typeof answer === "string" ? undefined : answer.latency_ms;
}

/** The judge prompt (src/core/scoring/judge-prompt.ts) sends the case as a JSON document with a `query`. */
function caseQuery(text: string): string | null {
  if (!text.trimStart().startsWith("{")) return null;
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) && typeof parsed.query === "string" ? parsed.query : null;
  } catch {
    return null;
  }
}

function textOf(content: unknown): string | null {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  return content.map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : "")).join("");
}

function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

function defaultCode(status: number): string | null {
  if (status === 429) return "rate_limit_exceeded";
  if (status === 401) return "invalid_api_key";
  if (status === 404) return "model_not_found";
  return null;
}

function defaultMessage(status: number): string {
  if (status === 429) return "Rate limit reached for requests. Please try again later.";
  if (status >= 500) return "The server had an error while processing your request. Sorry about that!";
  return `scripted failure ${status}`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
