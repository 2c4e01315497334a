/**
 * The openai adapter against the local model server, over HTTP through the real `openai` package:
 * what it sends, what it reads back, and every failure as the words a person would act on.
 */
import { describe, expect, it } from "vitest";
import { openAIModelClient, type ModelConnectionConfig } from "../../../src/adapters/model/openai-client.js";
import type { ChatRequest } from "../../../src/core/ports.js";
import { testConnection } from "../../support/model-server/connection-config.js";
import { modelServer, uniqueModel } from "../../support/model-server/in-tests.js";
import { startModelServer } from "../../support/model-server/server.js";

const server = modelServer();

const config = (model: string, overrides: Partial<ModelConnectionConfig> = {}) =>
  testConnection(server.openaiBaseUrl, model, overrides);

/** A clock that moves 25 ms per reading: every call's latency is exactly 25. */
function steppingClock(): () => number {
  let t = 1_000;
  return () => (t += 25);
}

const ask = (query: string): ChatRequest => ({ messages: [{ role: "user", content: query }] });

describe("answers", () => {
  it("reads a plain answer with usage and latency", async () => {
    const model = uniqueModel("plain");
    await server.script(model, { default: [{ content: "Hello." }] });
    const result = await openAIModelClient(config(model), steppingClock()).chat(ask("hi"));
    const prompt = Math.ceil(JSON.stringify([{ role: "user", content: "hi" }]).length / 4);
    expect(result).toEqual({
      ok: true,
      answer: {
        content: "Hello.",
        tool_calls: [],
        finish_reason: "stop",
        usage: { prompt_tokens: prompt, completion_tokens: 2 },
        latency_ms: 25,
      },
    });
  });

  it("reads parallel tool calls with the endpoint's ids, malformed argument text kept as is", async () => {
    const model = uniqueModel("calls");
    await server.script(model, {
      default: [
        {
          tool_calls: [
            { name: "get_invoice", arguments: { invoice_id: "INV-1" } },
            { name: "get_invoice", arguments: '{"invoice_id": "INV-2"' },
          ],
        },
      ],
    });
    const result = await openAIModelClient(config(model), steppingClock()).chat(ask("two"));
    const [entry] = await server.log(model);
    const sent =
      (entry?.answer as { choices: Array<{ message: { tool_calls: Array<{ id: string }> } }> } | undefined)?.choices[0]
        ?.message.tool_calls ?? [];
    expect(result).toEqual({
      ok: true,
      answer: {
        content: null,
        tool_calls: [
          { id: sent[0]?.id, name: "get_invoice", arguments: '{"invoice_id":"INV-1"}' },
          { id: sent[1]?.id, name: "get_invoice", arguments: '{"invoice_id": "INV-2"' },
        ],
        finish_reason: "tool_calls",
        // The server's usage: a quarter of the prompt's JSON and of the calls' names and arguments.
        usage: {
          prompt_tokens: Math.ceil(JSON.stringify([{ role: "user", content: "two" }]).length / 4),
          completion_tokens: Math.ceil('get_invoice{"invoice_id":"INV-1"}get_invoice{"invoice_id": "INV-2"'.length / 4),
        },
        latency_ms: 25,
      },
    });
    expect(sent[0]?.id).not.toBe(sent[1]?.id);
  });

  it("sends the conversation, tools, parameters, structured output and the connection's headers", async () => {
    const model = uniqueModel("sent");
    await server.script(model, { judge_default: ['{"score": 5}'] });
    const request: ChatRequest = {
      messages: [
        { role: "system", content: "You help with invoices." },
        { role: "user", content: "Is INV-1 paid?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "call_1", name: "get_invoice", arguments: '{"invoice_id":"INV-1"}' }],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"status":"paid"}' },
      ],
      tools: [
        {
          name: "get_invoice",
          description: "Look up an invoice",
          parameters: { type: "object", properties: { invoice_id: { type: "string" } } },
        },
        { name: "ping", description: "No arguments", parameters: true },
      ],
      temperature: 0,
      seed: 42,
      max_tokens: 64,
      response_format: { name: "verdict", schema: { type: "object", properties: { score: { type: "integer" } } } },
    };
    await openAIModelClient(config(model, { headers: { "x-team": "finance" } })).chat(request);
    const [entry] = await server.log(model);
    expect({ ...entry, received_at: 0, answered_at: 0, answer: null, answer_bytes: 0, delivered: null }).toEqual({
      seq: 1,
      kind: "judge",
      path: "/v1/chat/completions",
      api_version: null,
      query: "Is INV-1 paid?",
      messages: [
        { role: "system", content: "You help with invoices." },
        { role: "user", content: "Is INV-1 paid?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "call_1", type: "function", function: { name: "get_invoice", arguments: '{"invoice_id":"INV-1"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_1", content: '{"status":"paid"}' },
      ],
      tools: [
        {
          type: "function",
          function: {
            name: "get_invoice",
            description: "Look up an invoice",
            parameters: { type: "object", properties: { invoice_id: { type: "string" } } },
          },
        },
        { type: "function", function: { name: "ping", description: "No arguments", parameters: { type: "object" } } },
      ],
      tool_choice: null,
      response_format: {
        type: "json_schema",
        json_schema: {
          name: "verdict",
          schema: { type: "object", properties: { score: { type: "integer" } } },
          strict: true,
        },
      },
      temperature: 0,
      seed: 42,
      max_tokens: 64,
      headers: { authorization: "Bearer sk-test-0001", "x-team": "finance" },
      retry_count: 0,
      received_at: 0,
      answered_at: 0,
      status: 200,
      answer: null,
      answer_bytes: 0,
      delivered: null,
    });
  });

  it("sends strict: false when the request asks for a schema that only guides", async () => {
    const model = uniqueModel("not-strict");
    await server.script(model, { judge_default: ["{}"] });
    await openAIModelClient(config(model)).chat({
      ...ask("draft"),
      response_format: { name: "definition", schema: { type: "object" }, strict: false },
    });
    const [entry] = await server.log(model);
    expect(entry?.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "definition", schema: { type: "object" }, strict: false },
    });
  });

  it("leaves response_format out for a connection without structured output", async () => {
    const model = uniqueModel("unstructured");
    await server.script(model, { default: [{ content: '{"score": 4, "reason": "ok"}' }] });
    await openAIModelClient(config(model, { structured_output: false })).chat({
      ...ask("grade"),
      response_format: { name: "verdict", schema: { type: "object" } },
    });
    const [entry] = await server.log(model);
    expect([entry?.kind, entry?.response_format]).toEqual(["chat", null]);
  });

  it("reaches a dated Azure API through AzureOpenAI: the model is the deployment, the key goes as api-key", async () => {
    const model = uniqueModel("azure");
    await server.script(model, { api_key: "azure-secret-1", default: [{ content: "from azure" }] });
    const result = await openAIModelClient(
      config(model, { base_url: server.url, api_key: "azure-secret-1", api_version: "2024-10-21" }),
      steppingClock(),
    ).chat(ask("q"));
    expect(result.ok && result.answer.content).toBe("from azure");
    const [entry] = await server.log(model);
    expect([entry?.path, entry?.api_version, entry?.headers["api-key"]]).toEqual([
      `/openai/deployments/${model}/chat/completions`,
      "2024-10-21",
      "azure-secret-1",
    ]);
  });
});

describe("retries", () => {
  it("retries a 429 (retry-after: 0) and then succeeds, without sleeping", async () => {
    const model = uniqueModel("rate");
    await server.script(model, { faults: [{ status: 429, retry_after: 0 }], default: [{ content: "ok" }] });
    const started = Date.now();
    const result = await openAIModelClient(config(model, { max_retries: 2 })).chat(ask("q"));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(result.ok && result.answer.content).toBe("ok");
    expect((await server.log(model)).map((r) => [r.status, r.retry_count])).toEqual([
      [429, 0],
      [200, 1],
    ]);
  });

  it("gives up after max_retries 500s, saying so", async () => {
    const model = uniqueModel("down");
    await server.script(model, {
      faults: [{ status: 500, times: 10, retry_after: 0, message: "the GPU fell over" }],
      default: [{ content: "never" }],
    });
    const result = await openAIModelClient(config(model, { max_retries: 2 })).chat(ask("q"));
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: "server_error",
        status: 500,
        message: 'connection "agent": the endpoint failed (500) (after 2 retries): the GPU fell over',
        retryable: true,
      },
    });
    expect((await server.log(model)).length).toBe(3);
  });

  it("reports a 429 that outlasts the retries as rate limited", async () => {
    const model = uniqueModel("limited");
    await server.script(model, {
      faults: [{ status: 429, times: 5, retry_after: 0 }],
      default: [{ content: "never" }],
    });
    const result = await openAIModelClient(config(model, { max_retries: 1 })).chat(ask("q"));
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: "rate_limited",
        status: 429,
        message:
          'connection "agent": the endpoint is rate limiting requests (429) (after 1 retry): Rate limit reached for requests. Please try again later.',
        retryable: true,
      },
    });
  });
});

describe("failures a person can act on", () => {
  it("a refused key", async () => {
    const model = uniqueModel("keyed");
    await server.script(model, { api_key: "sk-the-right-one", default: [{ content: "x" }] });
    const result = await openAIModelClient(config(model, { api_key: "sk-wrong-key-abcd", max_retries: 2 })).chat(
      ask("q"),
    );
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: "unauthorized",
        status: 401,
        message: 'connection "agent": the endpoint refused the API key (401): Incorrect API key provided: sk-****abcd.',
        retryable: false,
      },
    });
    expect((await server.log(model)).length).toBe(1);
  });

  it("an unknown model", async () => {
    const model = uniqueModel("missing");
    const result = await openAIModelClient(config(model)).chat(ask("q"));
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: "unknown_model",
        status: 404,
        message: `connection "agent": model "${model}" is unknown to the endpoint (404): The model \`${model}\` does not exist or you do not have access to it.`,
        retryable: false,
      },
    });
  });

  it("a base URL without chat completions", async () => {
    const model = uniqueModel("wrong-path");
    await server.script(model, { default: [{ content: "x" }] });
    const result = await openAIModelClient(config(model, { base_url: `${server.url}/api` })).chat(ask("q"));
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: "bad_request",
        status: 404,
        message: `connection "agent": ${server.url}/api has no chat completions endpoint (404): no route for POST /api/chat/completions; check base_url (OpenAI-style endpoints usually end in /v1)`,
        retryable: false,
      },
    });
  });

  it("a request the endpoint rejects", async () => {
    const model = uniqueModel("rejects");
    await server.script(model, {
      default: [{ status: 400, message: "tools[0].function.parameters is not a valid schema" }],
    });
    const result = await openAIModelClient(config(model)).chat(ask("q"));
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: "bad_request",
        status: 400,
        message:
          'connection "agent": the endpoint rejected the request (400): tools[0].function.parameters is not a valid schema',
        retryable: false,
      },
    });
  });

  it("never repeats the key or a header value an endpoint echoes back", async () => {
    const model = uniqueModel("echo");
    await server.script(model, {
      default: [{ status: 400, message: "bad request from sk-echo-secret-42 with gateway token gw-token-77" }],
    });
    const result = await openAIModelClient(
      config(model, { api_key: "sk-echo-secret-42", headers: { "x-gateway": "gw-token-77" } }),
    ).chat(ask("q"));
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: "bad_request",
        status: 400,
        message:
          'connection "agent": the endpoint rejected the request (400): bad request from [redacted] with gateway token [redacted]',
        retryable: false,
      },
    });
  });

  it("a timeout", async () => {
    const model = uniqueModel("slow");
    await server.script(model, { latency_ms: 10_000, default: [{ content: "late" }] });
    const result = await openAIModelClient(config(model, { timeout_ms: 100 })).chat(ask("q"));
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: "timeout",
        status: null,
        message: `connection "agent": no answer from ${server.openaiBaseUrl} within 100 ms`,
        retryable: true,
      },
    });
  });

  it("an endpoint nobody listens on", async () => {
    const closed = await startModelServer();
    await closed.close();
    const base = `${closed.url}/v1`;
    const result = await openAIModelClient(config("any", { base_url: base })).chat(ask("q"));
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: "unreachable",
        status: null,
        message: `connection "agent": could not reach ${base}: the connection to 127.0.0.1:${closed.port} was refused (nothing accepts connections at that address and port)`,
        retryable: true,
      },
    });
  });

  it("a connection closed without an answer", async () => {
    const model = uniqueModel("drop");
    await server.script(model, { default: [{ drop: true }] });
    const result = await openAIModelClient(config(model)).chat(ask("q"));
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: "unreachable",
        status: null,
        message: `connection "agent": could not reach ${server.openaiBaseUrl}: ${new URL(server.url).host} accepted the connection and closed it without an answer (fetch failed: UND_ERR_SOCKET other side closed)`,
        retryable: true,
      },
    });
  });

  it("an answer without choices, and a tool call without a name", async () => {
    const model = uniqueModel("empty");
    await server.script(model, {
      conversations: {
        none: [{ body: { id: "x", object: "chat.completion", choices: [] } }],
        nameless: [
          {
            body: {
              id: "y",
              choices: [
                {
                  index: 0,
                  message: {
                    role: "assistant",
                    content: null,
                    tool_calls: [{ id: "c", type: "function", function: { arguments: "{}" } }],
                  },
                },
              ],
            },
          },
        ],
      },
    });
    const client = openAIModelClient(config(model));
    expect([await client.chat(ask("none")), await client.chat(ask("nameless"))]).toEqual([
      {
        ok: false,
        failure: {
          kind: "invalid_answer",
          status: 200,
          message: `connection "agent" (${server.openaiBaseUrl}): the endpoint answered without any choice (no choices[0].message)`,
          retryable: false,
        },
      },
      {
        ok: false,
        failure: {
          kind: "invalid_answer",
          status: 200,
          message: `connection "agent" (${server.openaiBaseUrl}): the endpoint answered a tool call without a function name (choices[0].message.tool_calls[0])`,
          retryable: false,
        },
      },
    ]);
  });
});
