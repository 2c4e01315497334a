/**
 * Tests inside workerd reach the shared model server the same way Node tests do (inject), and the
 * openai client works against it from inside the Worker runtime: the eval tests depend on both.
 */
import OpenAI, { RateLimitError } from "openai";
import { describe, expect, it } from "vitest";
import { modelServer, uniqueModel } from "../support/model-server/in-tests.js";

const server = modelServer();

describe("the model server from workerd", () => {
  it("is scripted with fetch and answered through the openai client on 127.0.0.1", async () => {
    const model = uniqueModel("workerd");
    await server.script(model, {
      api_key: "sk-workerd-0001",
      faults: [{ status: 429, retry_after: 0 }],
      conversations: { "Find INV-7": [{ tool_calls: [{ name: "get_invoice", arguments: { invoice_id: "INV-7" } }] }] },
    });
    const client = new OpenAI({
      baseURL: server.openaiBaseUrl,
      apiKey: "sk-workerd-0001",
      maxRetries: 1,
      timeout: 5000,
    });
    const answer = await client.chat.completions.create({ model, messages: [{ role: "user", content: "Find INV-7" }] });
    const call = answer.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === "function" ? [call.function.name, call.function.arguments] : null).toEqual([
      "get_invoice",
      '{"invoice_id":"INV-7"}',
    ]);
    expect((await server.log(model)).map((r) => [r.status, r.retry_count, r.headers.authorization])).toEqual([
      [429, 0, "Bearer sk-workerd-0001"],
      [200, 1, "Bearer sk-workerd-0001"],
    ]);
  });

  it("without retries, the 429 reaches the caller as the client's RateLimitError", async () => {
    const model = uniqueModel("workerd-429");
    await server.script(model, { faults: [{ status: 429, retry_after: 0 }], default: [{ content: "x" }] });
    const client = new OpenAI({ baseURL: server.openaiBaseUrl, apiKey: "k", maxRetries: 0 });
    const error = await client.chat.completions
      .create({ model, messages: [{ role: "user", content: "q" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
  });
});
