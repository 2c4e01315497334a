/**
 * The built-in agent runner: one repetition's conversation with the model under test. The model is
 * reached through the ModelClient port and every tool call through the ToolDispatcher (the attempt
 * object, with the same validation and evidence as a remote agent's call), so this loop decides
 * only what the agent framework decides: which calls run, which wait for approval, when to stop.
 * docs/evals.md ("How a repetition runs") states the rules below for readers of results.
 *
 * - Every call the model asks for ends up among the repetition's calls, whatever becomes of it:
 *   executed by the attempt (its evidence), proposed for approval, or refused before any tool saw
 *   it (recorded here as a RefusedCall, scoring/calls.ts). A call no list held would be a call
 *   scoring never saw, and a forbidden one would pass.
 * - Every tool call of one answer is handled in order, then the loop decides whether to ask the
 *   model again. Parallel calls are one decision of the model (it saw none of their results), so
 *   a call's place in the list carries no meaning and none is skipped for coming after another.
 * - A function the agent was not given is answered as a tool input error (the model may recover,
 *   as agent frameworks let it) and recorded as refused (`unknown_function`); it is never sent to
 *   the attempt, whose answer to an unknown name is a harness error meant for remote agents.
 * - A call to an `always_require` function is recorded as an approval request (exact name,
 *   arguments parsed or as raw text, call id) and not executed. The other calls of that answer are
 *   still handled (approval-free ones run, further `always_require` ones are recorded too), and
 *   the run stops after the answer, as an agent returns with its approval requests.
 * - Arguments that are not a JSON object, or a JSON object no call can use (nested past the limit,
 *   a number JSON cannot carry, a whole number past 2^53 that would read as another, a key given
 *   twice), are answered to the model as a tool input error, in the same body shape as the
 *   attempt's own tool input errors, never dispatched, and recorded as refused with the text the
 *   model sent.
 * - A harness error stops the run at once: the calls after it in the same answer are not handled,
 *   and are recorded as refused (`not_handled`).
 * - `max_function_calls` counts every tool call the model asks for, whatever comes of it (run,
 *   refused, malformed or an approval request). A call past the budget is not handled and ends
 *   the run with `max_function_calls`; it and the rest of its answer are recorded as `not_handled`.
 * - `max_iterations` counts model answers. The calls of the last allowed answer are still
 *   handled; if the model would then need another answer, the run ends with `max_iterations`.
 * - The attempt treats a call id as an idempotency key (the same id replays the first answer, or
 *   is refused with other arguments), and some endpoints send empty, repeated or unusable ids (a
 *   lone UTF-16 surrogate, which cannot be stored; an id too long to keep). Such a call is
 *   dispatched and recorded under a derived id (`<id>~<answer>.<call>`, both from 1, the id made
 *   well-formed and cut to MAX_KEPT_CALL_ID first); the model is still answered under its own id.
 */
import { jsonTextProblems, isWellFormedText, toWellFormedText } from "../json-input.js";
import { isJsonObject, type JsonValue, type Problem } from "../json.js";
import type { ChatMessage, ChatRequest, ChatToolCall } from "../ports.js";
import type { ApprovalRequest, RefusedCall, Refusal } from "../scoring/calls.js";
import { argumentProblems, MAX_NAME_LENGTH } from "../simulation/dispatch-request.js";
import type { AgentRun, AgentRunInputs, AgentStopReason, ToolAnswer, TranscriptTurn } from "./agent-types.js";

type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;

/** Parsed tool arguments, or why they are unusable. */
type ParsedArguments =
  | { ok: true; value: Record<string, JsonValue> }
  | { ok: false; refusal: Extract<Refusal, "malformed_arguments" | "unusable_arguments">; problems: Problem[] };

/**
 * The longest model call id kept as it is. The attempt takes ids of up to MAX_NAME_LENGTH
 * characters, and the eval consumer adds a suffix to tell deliveries apart (attempt-ports.ts).
 */
const MAX_KEPT_CALL_ID = MAX_NAME_LENGTH - 40;

export async function runAgent(inputs: AgentRunInputs): Promise<AgentRun> {
  const messages: ChatMessage[] = [
    ...(inputs.history ?? [{ role: "system", content: inputs.instructions }]),
    { role: "user", content: inputs.query },
  ];
  const turns: TranscriptTurn[] = [];
  const approval_requests: ApprovalRequest[] = [];
  const refused_calls: RefusedCall[] = [];
  const offered = new Set(inputs.tools.map((tool) => tool.name));
  let callsMade = 0;
  /** Call ids already dispatched or recorded in this run (see the note on ids above). */
  const usedIds = inputs.used_call_ids ?? new Set<string>();
  let lastText: string | null = null;
  const finish = (
    stop_reason: AgentStopReason,
    extra: Pick<AgentRun, "model_failure" | "harness_error"> = {},
  ): AgentRun => ({
    stop_reason,
    final_answer: lastText,
    approval_requests,
    refused_calls,
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
    turns.push({
      messages_sent: sent,
      answer: assistant,
      latency_ms: answer.latency_ms,
      usage: answer.usage,
      finish_reason: answer.finish_reason,
    });
    lastText = textOf(answer.content);
    if (answer.tool_calls.length === 0) return finish("final_answer");

    const calls = answer.tool_calls.map((call, index) => ({ call, callId: ownId(call.id, usedIds, iteration, index) }));
    /** Records the calls of this answer from `from` on as never handled, because the run ends here. */
    const notHandled = (from: number, why: string): void => {
      for (const { call, callId } of calls.slice(from)) refuse(call, callId, "not_handled", why);
    };
    const refuse = (call: ChatToolCall, callId: string, refusal: Refusal, message: string, args?: JsonValue): void => {
      refused_calls.push({ function: call.name, arguments: args ?? call.arguments, call_id: callId, refusal, message });
    };

    let proposed = false;
    for (const [index, { call, callId }] of calls.entries()) {
      if (callsMade >= inputs.max_function_calls) {
        notHandled(index, `past max_function_calls (${inputs.max_function_calls}): the run ended before this call`);
        return finish(proposed ? "approval_request" : "max_function_calls");
      }
      callsMade++;

      if (!offered.has(call.name)) {
        const message = unknownFunctionMessage(call.name, offered);
        const parsed = parseArguments(call.arguments);
        refuse(call, callId, "unknown_function", message, parsed.ok ? parsed.value : call.arguments);
        messages.push(toolMessage(call, toolInputError(message, [{ path: "", message: "unknown function" }])));
        continue;
      }
      const args = parseArguments(call.arguments);
      if (inputs.approval[call.name] === "always_require") {
        approval_requests.push({
          function: call.name,
          arguments: args.ok ? args.value : call.arguments,
          call_id: callId,
        });
        proposed = true;
        continue;
      }
      if (!args.ok) {
        const message = unusableMessage(call.name, args);
        refuse(call, callId, args.refusal, message);
        messages.push(
          toolMessage(
            call,
            toolInputError(
              message,
              args.problems.map((p) => ({ path: p.path, message: p.message })),
            ),
          ),
        );
        continue;
      }
      const reply = await inputs.dispatcher.call(call.name, args.value, callId);
      if (reply.kind === "harness_error") {
        const message = `the harness failed the call to ${call.name} (call ${callId}): ${reply.message}`;
        if (!reply.recorded) refuse(call, callId, "refused_by_attempt", message, args.value);
        notHandled(
          index + 1,
          `after a harness error earlier in the same answer (call ${callId}): the run ended before this call`,
        );
        return finish("harness_error", { harness_error: message });
      }
      if (reply.kind === "refused") refuse(call, callId, "refused_by_attempt", reply.message, args.value);
      messages.push(toolMessage(call, toolContent(reply)));
    }
    if (proposed) return finish("approval_request");
  }
  return finish("max_iterations");
}

/** The id a call is dispatched and recorded under: the model's own when the attempt can keep it, else a derived one. */
function ownId(id: string, usedIds: Set<string>, iteration: number, index: number): string {
  const usable = id !== "" && id.length <= MAX_KEPT_CALL_ID && isWellFormedText(id) && !usedIds.has(id);
  // Cut first, then made well-formed: a cut may split a surrogate pair.
  const base = toWellFormedText(id.slice(0, MAX_KEPT_CALL_ID));
  let callId = usable ? id : `${base}~${iteration + 1}.${index + 1}`;
  // A model id may already look like a derived one; each recorded id stays unique in the run.
  for (let n = 2; usedIds.has(callId); n++) callId = `${base}~${iteration + 1}.${index + 1}.${n}`;
  usedIds.add(callId);
  return callId;
}

function unusableMessage(name: string, args: Extract<ParsedArguments, { ok: false }>): string {
  const what =
    args.refusal === "malformed_arguments"
      ? `are ${args.problems.map((p) => p.message).join("; ")}`
      : `cannot be used (${args.problems.map((p) => `${p.path || "/"}: ${p.message}`).join("; ")})`;
  return `the arguments of ${name} ${what}; send a JSON object that matches the function's parameters`;
}

function unknownFunctionMessage(name: string, offered: ReadonlySet<string>): string {
  const names = [...offered];
  return `there is no function named ${JSON.stringify(name)}; the functions you have are ${names.length === 0 ? "none" : names.join(", ")}`;
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
    return { ok: false, refusal: "malformed_arguments", problems: [{ path: "", message: "not valid JSON" }] };
  }
  if (!isJsonObject(value)) {
    const got = Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`;
    return {
      ok: false,
      refusal: "malformed_arguments",
      problems: [{ path: "", message: `JSON but not an object (got ${got})` }],
    };
  }
  // The attempt refuses these too, but without recording the call; caught here, the call is kept
  // with the text the model sent (1e400 would otherwise be stored as null, 9007199254740993 as
  // 9007199254740992, and of a key given twice only the last value).
  const unusable = argumentProblems(value);
  if (unusable.length > 0) return { ok: false, refusal: "unusable_arguments", problems: unusable };
  const lost = jsonTextProblems(raw);
  if (lost.length > 0) return { ok: false, refusal: "unusable_arguments", problems: lost };
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
