/**
 * Model answers are read up to MAX_ANSWER_BYTES (docs/connections.md, "How much of an answer is
 * read"): past it the call fails once, naming the bound, without the rest being read, and the
 * client does not retry it.
 */
import { describe, expect, it } from "vitest";
import { MAX_ANSWER_BYTES, openAIModelClient } from "../../../src/adapters/model/openai-client.js";
import type { ChatRequest } from "../../../src/core/ports.js";
import { testConnection } from "../../support/model-server/connection-config.js";
import { modelServer, uniqueModel } from "../../support/model-server/in-tests.js";

const server = modelServer();
const ask = (query: string): ChatRequest => ({ messages: [{ role: "user", content: query }] });
const tooLarge = (connection: string) => ({
  ok: false,
  failure: {
    kind: "answer_too_large",
    status: 200,
    message: `connection "${connection}": the endpoint's answer is larger than ${MAX_ANSWER_BYTES} bytes, the most toolproof reads of one model answer; the rest was not read and the call is not retried`,
    retryable: false,
  },
});

/** The result with long strings replaced by their length: a failing assertion must not diff megabytes. */
function shortened(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_key, item: unknown) =>
      typeof item === "string" && item.length > 1000 ? `(${item.length} characters)` : item,
    ),
  );
}

/** Waits for the server to say whether the whole answer left it (the response has ended either way). */
async function delivered(model: string): Promise<Array<boolean | null>> {
  for (;;) {
    const log = await server.log(model);
    if (log.every((entry) => entry.delivered !== null)) return log.map((entry) => entry.delivered);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("the answer size bound", () => {
  it("is 256 KiB of the answer's body", () => {
    expect(MAX_ANSWER_BYTES).toBe(256 * 1024);
  });

  it("fails a 10 MB content once, with retries configured", async () => {
    const model = uniqueModel("huge-content");
    await server.script(model, { default: [{ content: "x", repeat: 10 * 1024 * 1024 }] });
    const result = await openAIModelClient(testConnection(server.openaiBaseUrl, model, { max_retries: 3 })).chat(
      ask("q"),
    );
    expect(shortened(result)).toEqual(tooLarge("agent"));
    expect(
      (await server.log(model)).map((entry) => [entry.retry_count, entry.answer_bytes > 10 * 1024 * 1024]),
    ).toEqual([[0, true]]);
  });

  it("stops reading at the bound: an answer that never ends fails like any other too large", async () => {
    const model = uniqueModel("endless");
    // The body never ends: a client that read answers to the end before checking would wait forever.
    await server.script(model, { default: [{ content: "x", repeat: "forever" }] });
    const result = await openAIModelClient(testConnection(server.openaiBaseUrl, model, { timeout_ms: 60_000 })).chat(
      ask("q"),
    );
    expect(result).toEqual(tooLarge("agent"));
    expect(await delivered(model)).toEqual([false]);
  });

  it("fails 5 MB of tool-call arguments", async () => {
    const model = uniqueModel("huge-arguments");
    await server.script(model, {
      default: [
        { tool_calls: [{ name: "get_invoice", arguments: { invoice_id: "INV-1" }, padding: 5 * 1024 * 1024 }] },
      ],
    });
    const result = await openAIModelClient(testConnection(server.openaiBaseUrl, model, { max_retries: 3 })).chat(
      ask("q"),
    );
    expect(shortened(result)).toEqual(tooLarge("agent"));
    expect((await server.log(model)).map((entry) => entry.retry_count)).toEqual([0]);
  });

  it("reads an answer just under the bound in full", async () => {
    const model = uniqueModel("big-enough");
    await server.script(model, { default: [{ content: "y", repeat: 200 * 1024 }] });
    const result = await openAIModelClient(testConnection(server.openaiBaseUrl, model)).chat(ask("q"));
    expect(shortened(result)).toMatchObject({
      ok: true,
      answer: { content: `(${200 * 1024} characters)`, finish_reason: "stop" },
    });
    expect(await delivered(model)).toEqual([true]);
  });
});
