/**
 * The built-in agent runner: one repetition's conversation with the model under test. The model is
 * reached through the ModelClient port and every tool call through the ToolDispatcher (the attempt
 * object, with the same validation and evidence as a remote agent's call), so this loop decides
 * only what the agent framework decides: which calls run, which wait for approval, when to stop.
 * docs/evals.md ("How a repetition runs") states the rules below for readers of results.
 *
 * - Every tool call of one answer is handled in order, then the loop decides whether to ask the
 *   model again. Parallel calls are one decision of the model (it saw none of their results), so
 *   a call's place in the list carries no meaning and none is skipped for coming after another.
 * - A call to an `always_require` function is recorded as an approval request (exact name,
 *   arguments parsed or as raw text, call id) and not executed. The other calls of that answer are
 *   still handled (approval-free ones run, further `always_require` ones are recorded too), and
 *   the run stops after the answer, as an agent returns with its approval requests.
 * - Arguments that are not a JSON object are answered to the model as a tool input error, in the
 *   same body shape as the attempt's own tool input errors, and never dispatched.
 * - A harness error stops the run at once: the calls after it in the same answer are not handled.
 * - `max_function_calls` counts every tool call the model asks for, whatever comes of it (run,
 *   refused, malformed or an approval request). A call past the budget is not handled and ends
 *   the run with `max_function_calls`.
 * - `max_iterations` counts model answers. The calls of the last allowed answer are still
 *   handled; if the model would then need another answer, the run ends with `max_iterations`.
 * - The attempt treats a call id as an idempotency key (the same id replays the first answer, or
 *   is refused with other arguments), and some endpoints send empty or repeated ids. A call whose
 *   id is empty or was already used in this run is dispatched and recorded under a derived id
 *   (`<id>~<answer>.<call>`, both from 1); the model is still answered under its own id.
 */
import { isJsonObject, type JsonValue } from "../json.js";
import type { ChatMessage, ChatRequest, ChatToolCall } from "../ports.js";
import type { ApprovalRequest } from "../scoring/calls.js";
import type { AgentRun, AgentRunInputs, AgentStopReason, ToolAnswer, TranscriptTurn } from "./agent-types.js";

type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;

/** Parsed tool arguments, or why they are unusable. */
type ParsedArguments = { ok: true; value: Record<string, JsonValue> } | { ok: false; problem: string };

export async function runAgent(inputs: AgentRunInputs): Promise<AgentRun> {
  const messages: ChatMessage[] = [
    { role: "system", content: inputs.instructions },
    { role: "user", content: inputs.query },
  ];
  const turns: TranscriptTurn[] = [];
  const approval_requests: ApprovalRequest[] = [];
  let callsMade = 0;
  /** Call ids already dispatched or recorded in this run (see the note on ids above). */
  const usedIds = new Set<string>();
  let lastText: string | null = null;
  const finish = (stop_reason: AgentStopReason, extra: Pick<AgentRun, "model_failure" | "harness_error"> = {}): AgentRun => ({
    stop_reason,
    final_answer: lastText,
    approval_requests,
    messages,
    turns,
    ...extra,
  });

  for (let iteration = 0; iteration < inputs.max_iterations; iteration++) {
    const sent = messages.length;
    const result = await inputs.client.chat(chatRequest(inputs, messages));
    if (!result.ok) return finish("model_error", { model_failure: result.failure });

    const { answer } = result;
    const assistant: AssistantMessage = { role: "assistant", content: answer.content };
    if (answer.tool_calls.length > 0) assistant.tool_calls = answer.tool_calls;
    messages.push(assistant);
    turns.push({ messages_sent: sent, answer: assistant, latency_ms: answer.latency_ms, usage: answer.usage, finish_reason: answer.finish_reason });
    lastText = textOf(answer.content);
    if (answer.tool_calls.length === 0) return finish("final_answer");

    let proposed = false;
    for (const [index, call] of answer.tool_calls.entries()) {
      if (callsMade >= inputs.max_function_calls) return finish(proposed ? "approval_request" : "max_function_calls");
      callsMade++;
      const args = parseArguments(call.arguments);
      const callId = usedIds.has(call.id) || call.id === "" ? `${call.id}~${iteration + 1}.${index + 1}` : call.id;
      usedIds.add(callId);

      if (inputs.approval[call.name] === "always_require") {
        approval_requests.push({ function: call.name, arguments: args.ok ? args.value : call.arguments, call_id: callId });
        proposed = true;
        continue;
      }
      if (!args.ok) {
        messages.push(toolMessage(call, toolInputError(`the arguments of ${call.name} are ${args.problem}; send a JSON object that matches the function's parameters`, [{ path: "", message: args.problem }])));
        continue;
      }
      const reply = await inputs.dispatcher.call(call.name, args.value, callId);
      if (reply.kind === "harness_error") {
        return finish("harness_error", { harness_error: `the harness failed the call to ${call.name} (call ${callId}): ${reply.message}` });
      }
      messages.push(toolMessage(call, toolContent(reply)));
    }
    if (proposed) return finish("approval_request");
  }
  return finish("max_iterations");
}

function chatRequest(inputs: AgentRunInputs, messages: ChatMessage[]): ChatRequest {
  // A copy: the transcript keeps growing after the call, and a client may hold on to its request.
  const request: ChatRequest = { messages: [...messages], ...inputs.parameters };
  if (inputs.tools.length > 0) request.tools = inputs.tools;
  return request;
}

/** The model's text, or null when it said nothing. */
function textOf(content: string | null): string | null {
  return content === null || content.trim() === "" ? null : content;
}

function parseArguments(raw: string): ParsedArguments {
  // Some endpoints send "" for a function without parameters; that is an empty argument object.
  if (raw.trim() === "") return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { ok: false, problem: "not valid JSON" };
  }
  if (!isJsonObject(value)) return { ok: false, problem: `JSON but not an object (got ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`})` };
  return { ok: true, value };
}

function toolMessage(call: ChatToolCall, content: string): ChatMessage {
  return { role: "tool", tool_call_id: call.id, content };
}

/** The body a remote agent gets over HTTP for the same answer (dispatch results and 422 errors). */
function toolContent(reply: Exclude<ToolAnswer, { kind: "harness_error" }>): string {
  return reply.kind === "result" ? JSON.stringify(reply.result) : toolInputError(reply.message, reply.details);
}

function toolInputError(message: string, details: JsonValue): string {
  return JSON.stringify({ error: { code: "tool_input_error", message, details } });
}
