/**
 * The openai adapter inside workerd, where the run consumer and the connection test call it:
 * the same answers and the same failures in words as in Node.
 */
import { describe, expect, it } from "vitest";
import { openAIModelClient, type ModelConnectionConfig } from "../../src/adapters/model/openai-client.js";
import { tcpProbe } from "../../src/adapters/model/tcp-probe.js";
import { testConnection } from "../support/model-server/connection-config.js";
import { modelServer, uniqueModel } from "../support/model-server/in-tests.js";

const server = modelServer();

const config = (model: string, overrides: Partial<ModelConnectionConfig> = {}) =>
  testConnection(server.openaiBaseUrl, model, { name: "in-workerd", api_key: "sk-workerd-key", ...overrides });

describe("the openai adapter in workerd", () => {
  it("answers tool calls after a retried 429", async () => {
    const model = uniqueModel("workerd-adapter");
    await server.script(model, {
      faults: [{ status: 429, retry_after: 0 }],
      default: [
        {
          tool_calls: [
            { name: "lookup", arguments: { id: 1 } },
            { name: "lookup", arguments: "{oops" },
          ],
        },
      ],
    });
    let t = 0;
    const result = await openAIModelClient(config(model, { max_retries: 1 }), () => (t += 10)).chat({
      messages: [{ role: "user", content: "go" }],
    });
    const sent =
      (
        (await server.log(model))[1]?.answer as
          | { choices: Array<{ message: { tool_calls: Array<{ id: string }> } }> }
          | undefined
      )?.choices[0]?.message.tool_calls ?? [];
    expect(result).toEqual({
      ok: true,
      answer: {
        content: null,
        tool_calls: [
          { id: sent[0]?.id, name: "lookup", arguments: '{"id":1}' },
          { id: sent[1]?.id, name: "lookup", arguments: "{oops" },
        ],
        finish_reason: "tool_calls",
        usage: {
          prompt_tokens: Math.ceil(JSON.stringify([{ role: "user", content: "go" }]).length / 4),
          completion_tokens: Math.ceil('lookup{"id":1}lookup{oops'.length / 4),
        },
        latency_ms: 10,
      },
    });
  });

  it("says a refused key, a timeout and a closed port in words", async () => {
    const keyed = uniqueModel("workerd-keyed");
    await server.script(keyed, {
      api_key: "sk-other",
      latency_ms: 0,
      conversations: { slow: [{ content: "late", latency_ms: 10_000 }] },
      default: [{ content: "x" }],
    });
    const refused = await openAIModelClient(config(keyed, { api_key: "sk-workerd-wrong" })).chat({
      messages: [{ role: "user", content: "q" }],
    });
    const slow = await openAIModelClient(config(keyed, { api_key: "sk-other", timeout_ms: 100 })).chat({
      messages: [{ role: "user", content: "slow" }],
    });
    const closed = await openAIModelClient(config(keyed, { base_url: "http://127.0.0.1:9/v1" }), Date.now, {
      probe: tcpProbe,
    }).chat({ messages: [{ role: "user", content: "q" }] });
    expect([refused, slow, closed]).toEqual([
      {
        ok: false,
        failure: {
          kind: "unauthorized",
          status: 401,
          message:
            'connection "in-workerd": the endpoint refused the API key (401): Incorrect API key provided: sk-****rong.',
          retryable: false,
        },
      },
      {
        ok: false,
        failure: {
          kind: "timeout",
          status: null,
          message: `connection "in-workerd": no answer from ${server.openaiBaseUrl} within 100 ms`,
          retryable: true,
        },
      },
      {
        ok: false,
        failure: {
          kind: "unreachable",
          status: null,
          message:
            'connection "in-workerd": could not reach http://127.0.0.1:9/v1: the connection to 127.0.0.1:9 was refused (nothing accepts connections at that address and port)',
          retryable: true,
        },
      },
    ]);
  });

  it("tells a connection closed without an answer from a refused one", async () => {
    const model = uniqueModel("workerd-drop");
    await server.script(model, { default: [{ drop: true }] });
    const address = new URL(server.url).host;
    expect(
      await openAIModelClient(config(model), Date.now, { probe: tcpProbe }).chat({
        messages: [{ role: "user", content: "q" }],
      }),
    ).toEqual({
      ok: false,
      failure: {
        kind: "unreachable",
        status: null,
        message: `connection "in-workerd": could not reach ${server.openaiBaseUrl}: ${address} accepted the connection and closed it without an answer (Network connection lost.)`,
        retryable: true,
      },
    });
  });
});
