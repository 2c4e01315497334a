/**
 * Answers in the shapes real OpenAI-compatible endpoints send (docs/connections.md, "Answers as
 * endpoints send them"), replayed byte for byte from the local model server: each is read into the
 * core's ChatAnswer or refused with an error naming the endpoint and the shape.
 */
import { describe, expect, it } from "vitest";
import { derivedCallId, openAIModelClient } from "../../../src/adapters/model/openai-client.js";
import type { ChatAnswer } from "../../../src/core/ports.js";
import { testConnection } from "../../support/model-server/connection-config.js";
import { modelServer, uniqueModel } from "../../support/model-server/in-tests.js";

const server = modelServer();
const ARGS = '{"invoice_id":"INV-1"}';

/** A chat.completion body around one message (finish_reason as given). */
function completion(
  message: Record<string, unknown>,
  finish_reason: string | null = "tool_calls",
  extra: Record<string, unknown> = {},
) {
  return {
    id: "chatcmpl-x",
    object: "chat.completion",
    created: 0,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason }],
    ...extra,
  };
}

async function replay(body: unknown) {
  const model = uniqueModel("shape");
  await server.script(model, { default: [{ body }] });
  let t = 0;
  return openAIModelClient(testConnection(server.openaiBaseUrl, model), () => (t += 5)).chat({
    messages: [{ role: "user", content: "q" }],
  });
}

const answered = (answer: Partial<ChatAnswer>) => ({
  ok: true,
  answer: { content: null, tool_calls: [], finish_reason: "tool_calls", usage: null, latency_ms: 5, ...answer },
});
const call = (id: string, args = ARGS) => ({ id, name: "get_invoice", arguments: args });

describe("shapes that are read", () => {
  it.each<[string, unknown, ReturnType<typeof answered>]>([
    [
      "a tool call without type (llama.cpp, LM Studio)",
      completion({ content: null, tool_calls: [{ id: "c1", function: { name: "get_invoice", arguments: ARGS } }] }),
      answered({ tool_calls: [call("c1")] }),
    ],
    [
      'a tool call with id "" and finish_reason "stop" (Gemini)',
      completion(
        {
          content: null,
          tool_calls: [{ id: "", type: "function", function: { name: "get_invoice", arguments: ARGS } }],
        },
        "stop",
      ),
      answered({ tool_calls: [call(derivedCallId(0, "get_invoice", ARGS))], finish_reason: "stop" }),
    ],
    [
      "two tool calls without id: each its own derived id",
      completion({
        tool_calls: [
          { type: "function", function: { name: "get_invoice", arguments: ARGS } },
          { type: "function", function: { name: "get_invoice", arguments: ARGS } },
        ],
      }),
      answered({
        tool_calls: [call(derivedCallId(0, "get_invoice", ARGS)), call(derivedCallId(1, "get_invoice", ARGS))],
      }),
    ],
    [
      "arguments already parsed as an object (Ollama)",
      completion({
        content: "",
        tool_calls: [{ id: "c1", function: { name: "get_invoice", arguments: { invoice_id: "INV-1" } } }],
      }),
      answered({ content: "", tool_calls: [call("c1")] }),
    ],
    [
      "arguments null (a function without parameters)",
      completion({ tool_calls: [{ id: "c1", type: "function", function: { name: "get_invoice", arguments: null } }] }),
      answered({ tool_calls: [call("c1", "")] }),
    ],
    [
      "text content beside tool calls",
      completion({
        content: "Let me look that up.",
        tool_calls: [{ id: "c1", type: "function", function: { name: "get_invoice", arguments: ARGS } }],
      }),
      answered({ content: "Let me look that up.", tool_calls: [call("c1")] }),
    ],
    ["content absent, tool_calls null", completion({ tool_calls: null }, "stop"), answered({ finish_reason: "stop" })],
    [
      "reasoning fields beside the content (vLLM: reasoning_content, renamed reasoning)",
      completion(
        { content: "INV-1 is paid.", reasoning_content: "The user asks...", reasoning: "The user asks..." },
        "stop",
      ),
      answered({ content: "INV-1 is paid.", finish_reason: "stop" }),
    ],
    [
      "content as text parts",
      completion(
        {
          content: [
            { type: "text", text: "INV-1 " },
            { type: "text", text: "is paid." },
          ],
        },
        "stop",
      ),
      answered({ content: "INV-1 is paid.", finish_reason: "stop" }),
    ],
    [
      "the legacy function_call (older Azure and vLLM answers)",
      completion({ content: null, function_call: { name: "get_invoice", arguments: ARGS } }, "function_call"),
      answered({ tool_calls: [call(derivedCallId(0, "get_invoice", ARGS))], finish_reason: "function_call" }),
    ],
    [
      "several choices: choices[0] by its index",
      {
        id: "x",
        choices: [
          { index: 1, message: { role: "assistant", content: "second" }, finish_reason: "stop" },
          { index: 0, message: { role: "assistant", content: "first" }, finish_reason: "stop" },
        ],
      },
      answered({ content: "first", finish_reason: "stop" }),
    ],
    [
      "no finish_reason and no usage",
      completion({ content: "ok" }, null),
      answered({ content: "ok", finish_reason: null }),
    ],
  ])("%s", async (_name, body, expected) => {
    expect(await replay(body)).toEqual(expected);
  });

  it("derives the same id for the same call, and different ids for other calls", () => {
    expect(derivedCallId(0, "get_invoice", ARGS)).toBe(derivedCallId(0, "get_invoice", ARGS));
    expect(
      new Set([
        derivedCallId(0, "get_invoice", ARGS),
        derivedCallId(1, "get_invoice", ARGS),
        derivedCallId(0, "get_invoices", ARGS),
        derivedCallId(0, "get_invoice", "{}"),
      ]).size,
    ).toBe(4);
    expect(derivedCallId(0, "get_invoice", ARGS)).toMatch(/^tp_1_[0-9a-f]{8}$/);
  });
});

describe("shapes that are refused, naming the endpoint and the shape", () => {
  const refused = (what: string) => ({
    ok: false,
    failure: {
      kind: "invalid_answer",
      status: 200,
      message: `connection "agent" (${server.openaiBaseUrl}): ${what}`,
      retryable: false,
    },
  });
  it.each<[string, unknown, string]>([
    [
      "a tool call of another type",
      completion({ tool_calls: [{ id: "c1", type: "custom", custom: { name: "x", input: "y" } }] }),
      'the endpoint answered a tool call of type "custom", not "function" (choices[0].message.tool_calls[0])',
    ],
    [
      "tool_calls that is not a list",
      completion({ tool_calls: { id: "c1" } }),
      "the endpoint answered choices[0].message.tool_calls as an object, not a list",
    ],
    [
      "a tool call that is not an object",
      completion({ tool_calls: ["get_invoice"] }),
      "the endpoint answered a tool call that is a string, not an object (choices[0].message.tool_calls[0])",
    ],
    [
      "content that is a number",
      completion({ content: 42 }, "stop"),
      "the endpoint answered choices[0].message.content as a number, neither text nor text parts",
    ],
    [
      "a streaming chunk",
      {
        id: "x",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { content: "hi" }, finish_reason: null }],
      },
      "the endpoint answered a streaming chunk (choices[0].delta) to a request that did not ask to stream",
    ],
    ["no choices", { id: "x", choices: [] }, "the endpoint answered without any choice (no choices[0].message)"],
  ])("%s", async (_name, body, what) => {
    expect(await replay(body)).toEqual(refused(what));
  });
});
