/**
 * The core reaches the outside world only through these small interfaces, so it runs the same
 * in plain Node (tests, CLI, benchmarks) and inside workerd (the service).
 */
import type { JsonObject, Problem } from "./json.js";

/** A JSON Schema document: an object or a boolean schema. */
export type JsonSchema = JsonObject | boolean;

/**
 * A problem checkSchema found. `refused` marks a schema that is valid JSON Schema but that
 * toolproof will not store (a pattern that could backtrack catastrophically, a dynamic
 * reference): its message says why on its own, and must not be reported as an invalid schema.
 */
export interface SchemaProblem extends Problem {
  refused?: true;
}

/**
 * Validates JSON values against JSON Schemas that arrive at run time. Implementations must not
 * generate code inside a Workers request (ajv's compile does), and should cache prepared schemas:
 * the same schema object is validated against many times on the dispatch hot path.
 *
 * Drafts: a schema's "$schema" selects draft-07 or 2020-12; without one, 2020-12 applies.
 */
export interface SchemaValidator {
  /**
   * Problems with the schema document itself (not a valid JSON Schema of its draft, an unknown
   * draft, an unresolvable $ref). Empty when the schema is usable. Paths point into the schema.
   */
  checkSchema(schema: unknown): SchemaProblem[];
  /**
   * Problems with `value` against `schema`. Empty when valid. Paths are JSON Pointers into the
   * value (instance locations), messages say what the schema expected there.
   * The schema must already have passed checkSchema.
   */
  validate(schema: JsonSchema, value: unknown): Problem[];
}

/** Wall-clock time, injectable so tests never sleep or depend on today's date. */
export interface Clock {
  now(): number;
  /** Resolves after `ms` milliseconds of this clock's time. */
  sleep(ms: number): Promise<void>;
}

/** Sources of unique identifiers and secrets. */
export interface Ids {
  /** A unique, URL-safe identifier with a readable prefix, for example "tool_3x9…". */
  id(prefix: string): string;
  /** `bytes` of cryptographically strong randomness as base64url (for tokens and keys). */
  secret(bytes: number): string;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

// ---------------------------------------------------------------------------------------------
// Model endpoints (the built-in agent runner, the judge, draft generation)

/** A function the model may call: the attempt's function name, the operation's description and input schema. */
export interface ChatTool {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** A tool call as the model produced it. `arguments` is the raw text it sent, which may not even be JSON. */
export interface ChatToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: "system" | "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatRequest {
  messages: ChatMessage[];
  tools?: ChatTool[];
  temperature?: number;
  seed?: number;
  max_tokens?: number;
  /**
   * Ask for structured output: the answer's content must be JSON matching this schema (endpoints
   * that support it). `strict` (default true) is OpenAI's json_schema.strict; false for a schema
   * strict mode cannot express (open-ended JSON values, as in a mock definition's results), which
   * then guides the answer without being enforced.
   */
  response_format?: { name: string; schema: JsonObject; strict?: boolean };
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface ChatAnswer {
  content: string | null;
  tool_calls: ChatToolCall[];
  finish_reason: string | null;
  usage: ChatUsage | null;
  /** Wall time of the call, retries included. */
  latency_ms: number;
}

/**
 * Why a model call failed, in words a person can act on. `retryable` failures (429, 5xx, timeouts,
 * refused connections) were already retried by the client with backoff; `false` ones (401/403, an
 * unknown model, a request the endpoint rejects) end the repetition at once.
 */
export interface ModelFailure {
  kind:
    | "unauthorized"
    | "unknown_model"
    | "rate_limited"
    | "server_error"
    | "unreachable"
    | "timeout"
    | "bad_request"
    | "invalid_answer"
    | "answer_too_large";
  /** The HTTP status the endpoint answered, when it answered. */
  status: number | null;
  /** What went wrong, naming the connection and what the endpoint said. */
  message: string;
  retryable: boolean;
}

export type ChatResult = { ok: true; answer: ChatAnswer } | { ok: false; failure: ModelFailure };

/** One configured model endpoint (a connection), able to answer chat completions. */
export interface ModelClient {
  chat(request: ChatRequest): Promise<ChatResult>;
}
