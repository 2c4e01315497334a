/**
 * What a test tells the model server to answer, per model name (README.md beside this file).
 * Shared by the server (which validates a script when it is registered) and the test-side
 * helpers (which build scripts with these types), so a typo in a test is a type error or a 400
 * at registration, never a silently different answer.
 */
import { z } from "zod";

/** An HTTP failure instead of an answer: the status, OpenAI's error body, optional retry-after. */
const fault = z.strictObject({
  status: z.number().int().min(400).max(599),
  /** The error body's message (a default per status otherwise). */
  message: z.string().optional(),
  /** The error body's code (rate_limit_exceeded for 429 unless given). */
  code: z.string().optional(),
  /** Sent as the `retry-after` header (seconds), when given. */
  retry_after: z.union([z.number().min(0), z.string()]).optional(),
  latency_ms: z.number().int().min(0).optional(),
});

/** A 200 with exactly this JSON body (for answers the client must reject: no choices, wrong shape). */
const rawBody = z.strictObject({
  body: z.unknown(),
  latency_ms: z.number().int().min(0).optional(),
});

/** The connection is closed without any answer (the client sees a network error). */
const drop = z.strictObject({ drop: z.literal(true), latency_ms: z.number().int().min(0).optional() });

/** Bounds a script can ask for without the script itself being large (oversized answers). */
const MAX_SCRIPTED_BYTES = 64 * 1024 * 1024;

const toolCall = z.strictObject({
  name: z.string().min(1),
  /** An object is sent as its JSON text; a string is sent as is (malformed JSON on purpose). */
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  /** Spaces appended to the arguments text: still the same JSON, as large as asked (5 MB of arguments). */
  padding: z.number().int().min(0).max(MAX_SCRIPTED_BYTES).optional(),
});

const contentTurn = z.strictObject({
  content: z.string(),
  /**
   * The content is sent this many times over ("x" with repeat 10485760 is a 10 MB answer), or
   * "forever": the body never ends, the content streams until the client closes the connection
   * (only a client that stops reading at a bound gets past such an answer).
   */
  repeat: z.union([z.number().int().min(1).max(MAX_SCRIPTED_BYTES), z.literal("forever")]).optional(),
  latency_ms: z.number().int().min(0).optional(),
});
const toolTurn = z.strictObject({
  tool_calls: z.array(toolCall).min(1),
  /** Text beside the calls (most models send none). */
  content: z.string().nullable().optional(),
  latency_ms: z.number().int().min(0).optional(),
});

/** One answer of a conversation: text, tool calls, or a failure. */
export const turnSchema = z.union([contentTurn, toolTurn, fault, rawBody, drop]);

/** One judge answer: the raw content text (valid or not), or a failure. */
export const judgeAnswerSchema = z.union([z.string(), fault, rawBody, drop]);

/**
 * A payload the model may follow: a request whose newest tool results (those after its last
 * assistant message) contain `contains` (in the conversation of `query`, when given) is the n-th
 * encounter of it for this model; when n is in `follow_on` (or always, without it) the answer is
 * `turn` (the call the payload asks for), otherwise the conversation goes on as scripted.
 * `follow_on: [1]` over three repetitions follows the payload in one of three.
 */
const injection = z.strictObject({
  contains: z.string().min(1),
  query: z.string().optional(),
  follow_on: z.array(z.number().int().min(1)).optional(),
  turn: turnSchema,
});

export const scriptSchema = z.strictObject({
  /** The Bearer key (or Azure `api-key`) required; any key is accepted without one. */
  api_key: z.string().optional(),
  /** Milliseconds before every answer of this model (an answer's own latency_ms replaces it). */
  latency_ms: z.number().int().min(0).optional(),
  /** Answered in order before any normal answer, each `times` times (default 1). */
  faults: z.array(fault.extend({ times: z.number().int().min(1).optional() })).optional(),
  /**
   * Which message is a chat's query, the key of `conversations` and `injections`: the first user
   * message (default), or the system message. A simulated user's first user message is always the
   * agent's greeting, so a user model's script tells its conversations apart by the system prompt,
   * which carries the scenario's instruction.
   */
  query_from: z.enum(["first_user", "system"]).optional(),
  /** Agent chats by query (the first user message): the answer is turn i, i = assistant messages already sent. */
  conversations: z.record(z.string(), z.array(turnSchema).min(1)).optional(),
  /** Agent chats whose query matches no conversation. */
  default: z.array(turnSchema).min(1).optional(),
  /** Judge requests by the case's query: the n-th request gets answer min(n, last). */
  judge: z.record(z.string(), z.array(judgeAnswerSchema).min(1)).optional(),
  /** Judge requests whose query matches no entry of `judge`. */
  judge_default: z.array(judgeAnswerSchema).min(1).optional(),
  /** Payloads in tool results the model follows on some encounters (prompt-injection tests). */
  injections: z.array(injection).optional(),
});

export type Turn = z.infer<typeof turnSchema>;
export type JudgeAnswer = z.infer<typeof judgeAnswerSchema>;
export type Fault = z.infer<typeof fault>;
export type Injection = z.infer<typeof injection>;
export type ModelScript = z.infer<typeof scriptSchema>;

/** What the server recorded about one request and what it answered (GET /__log/:model). */
export interface LoggedRequest {
  /** 1, 2, ... per model, in arrival order. */
  seq: number;
  /** "chat" for an agent turn, "judge" for a judge request, "other" when the request was refused before that was known. */
  kind: "chat" | "judge" | "other";
  path: string;
  /** Azure's api-version query parameter, when the request had one. */
  api_version: string | null;
  /** The agent's query (first user message) or the judge case's query. */
  query: string | null;
  messages: unknown[];
  tools: unknown[] | null;
  tool_choice: unknown;
  response_format: unknown;
  temperature: number | null;
  seed: number | null;
  max_tokens: number | null;
  /** authorization, api-key, the retry count the client sent, and every other x-* header but the client's own x-stainless-*. */
  headers: Record<string, string>;
  /** x-stainless-retry-count: 0 for a first try, 1.. for the openai client's retries. */
  retry_count: number | null;
  received_at: number;
  answered_at: number;
  status: number;
  /** The JSON body sent back (null when the connection was dropped; a note instead of a body over 1 MB). */
  answer: unknown;
  /** The size of the body sent back, in bytes (0 when none was). */
  answer_bytes: number;
  /**
   * Whether the whole body was handed to the connection before it closed: false when the client
   * stopped reading and went away first (a client that reads answers up to a bound), null until
   * the response has ended either way.
   */
  delivered: boolean | null;
}

export interface ModelServerStats {
  requests_total: number;
  in_flight: number;
  /** The most requests being answered at the same moment since the last reset. */
  max_in_flight: number;
}
