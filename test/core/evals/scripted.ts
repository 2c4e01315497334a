/**
 * In-memory stand-ins for the two ports the runner core talks to: a model that answers from a
 * script (and records every request it got) and an attempt that answers tool calls from handlers
 * and keeps evidence the way the attempt object does (every dispatched call, refused or not).
 * The real-HTTP versions (the openai client against the local model server, the attempt's Durable
 * Object) are exercised by the worker tests.
 */
import type { AgentRunInputs, ToolAnswer, ToolDispatcher } from "../../../src/core/evals/agent-types.js";
import type { JsonValue } from "../../../src/core/json.js";
import type {
  ChatAnswer,
  ChatRequest,
  ChatResult,
  ChatTool,
  ChatToolCall,
  ModelClient,
  ModelFailure,
} from "../../../src/core/ports.js";
import type { ExecutedCall } from "../../../src/core/scoring/calls.js";

export type ScriptStep = ChatResult | ((request: ChatRequest) => ChatResult);

export interface ScriptedModel {
  client: ModelClient;
  /** Every request, as the client received it (deep copies, so later changes by the caller do not show). */
  requests: ChatRequest[];
}

export function scriptedModel(steps: readonly ScriptStep[]): ScriptedModel {
  const requests: ChatRequest[] = [];
  let next = 0;
  return {
    requests,
    client: {
      async chat(request) {
        requests.push(structuredClone(request));
        const step = steps[next++];
        if (step === undefined)
          throw new Error(`the script has ${steps.length} answers and a request number ${next} came`);
        return typeof step === "function" ? step(request) : step;
      },
    },
  };
}

export function answer(content: string | null, tool_calls: ChatToolCall[] = [], latency_ms = 120): ChatResult {
  return {
    ok: true,
    answer: {
      content,
      tool_calls,
      finish_reason: tool_calls.length > 0 ? "tool_calls" : "stop",
      usage: { prompt_tokens: 100, completion_tokens: 20 },
      latency_ms,
    } satisfies ChatAnswer,
  };
}

export const said = (text: string): ChatResult => answer(text);
export const calls = (...tool_calls: ChatToolCall[]): ChatResult => answer(null, tool_calls);
export const call = (id: string, name: string, args: JsonValue | string): ChatToolCall => ({
  id,
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});
export const failed = (failure: ModelFailure): ChatResult => ({ ok: false, failure });

export const UNAUTHORIZED: ModelFailure = {
  kind: "unauthorized",
  status: 401,
  message: 'connection "azure-eu": the endpoint answered 401 Unauthorized (Incorrect API key provided)',
  retryable: false,
};

export type Handler = (args: Record<string, JsonValue>) => ToolAnswer;

export interface FakeAttempt {
  dispatcher: ToolDispatcher;
  /** Every dispatch in order, as the attempt received it. */
  dispatched: Array<{ function: string; args: Record<string, JsonValue>; call_id: string }>;
  /** The attempt's evidence read back as scoring reads it. */
  executed: ExecutedCall[];
}

/** Functions without a handler answer as the attempt does for a name it does not have: a harness error. */
export function fakeAttempt(handlers: Readonly<Record<string, Handler>>): FakeAttempt {
  const dispatched: FakeAttempt["dispatched"] = [];
  const executed: ExecutedCall[] = [];
  const dispatcher: ToolDispatcher = {
    async call(name, args, call_id) {
      dispatched.push({ function: name, args: structuredClone(args), call_id });
      const handler = handlers[name];
      const reply: ToolAnswer = handler
        ? handler(args)
        : { kind: "harness_error", message: `the attempt has no function "${name}"`, recorded: true };
      const base = { function: name, arguments: structuredClone(args), call_id };
      if (reply.kind === "result") executed.push({ ...base, outcome: "result", result: reply.result });
      else if (reply.kind === "tool_input_error")
        executed.push({
          ...base,
          outcome: "tool_input_error",
          error: { code: "tool_input_error", message: reply.message, details: [] },
        });
      // Refused before recording, as the attempt object refuses unusable arguments: no evidence.
      else if (reply.kind === "harness_error" && reply.recorded)
        executed.push({
          ...base,
          outcome: "harness_error",
          error: { code: "harness_error", kind: "unknown_tool", message: reply.message, details: [] },
        });
      return reply;
    },
  };
  return { dispatcher, dispatched, executed };
}

// ---------------------------------------------------------------------------------------------
// The seed's InvoiceDesk agent

export const INSTRUCTIONS =
  "You are InvoiceDesk, a finance assistant. Look invoices up before answering; never put an invoice on hold unless the user asks.";

export const TOOLS: ChatTool[] = [
  {
    name: "get_invoice",
    description: "Return the supplier, amount and status of one invoice.",
    parameters: { type: "object", properties: { invoice_id: { type: "string" } }, required: ["invoice_id"] },
  },
  {
    name: "place_invoice_on_hold",
    description: "Stop an approved invoice from being paid until someone releases the hold.",
    parameters: {
      type: "object",
      properties: {
        invoice_id: { type: "string" },
        reason: { type: "string", enum: ["disputed", "duplicate", "awaiting_po"] },
      },
      required: ["invoice_id", "reason"],
    },
  },
];

export const INVOICE_10431 = {
  invoice_id: "INV-10431",
  supplier: "Contoso Freight",
  amount: 1250,
  currency: "EUR",
  status: "approved",
};

/** The seed's finance system: one known invoice, a tool input error for any other. */
export const INVOICE_HANDLERS: Record<string, Handler> = {
  get_invoice: (args) =>
    args.invoice_id === "INV-10431"
      ? { kind: "result", result: INVOICE_10431 }
      : {
          kind: "tool_input_error",
          message: `no invoice ${JSON.stringify(args.invoice_id ?? null)}`,
          details: [{ path: "/invoice_id", message: "unknown invoice" }],
        },
  place_invoice_on_hold: (args) => ({
    kind: "result",
    result: { invoice_id: args.invoice_id ?? null, status: "on_hold" },
  }),
};

export function agentInputs(
  client: ModelClient,
  dispatcher: ToolDispatcher,
  query: string,
  overrides: Partial<AgentRunInputs> = {},
): AgentRunInputs {
  return {
    client,
    connection: "azure-eu",
    instructions: INSTRUCTIONS,
    query,
    tools: TOOLS,
    approval: { get_invoice: "never_require", place_invoice_on_hold: "always_require" },
    parameters: { temperature: 0, seed: 7 },
    max_iterations: 4,
    max_function_calls: 6,
    dispatcher,
    ...overrides,
  };
}
