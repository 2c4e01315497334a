import { describe, expect, it } from "vitest";
import { mcpRequestKey, mcpTextProblems } from "../../src/core/simulation/mcp-request-text.js";

const TWICE = (key: string): string =>
  `the key "${key}" appears more than once in this object; JSON.parse keeps only the last, so the other value would be lost without a word`;

function problemsOf(text: string): { request: unknown[]; argumentsByRequest: Record<string, unknown[]> } {
  const found = mcpTextProblems(text, JSON.parse(text));
  return { request: found.request, argumentsByRequest: Object.fromEntries(found.argumentsByRequest) };
}

const callText = (id: string, args: string, method = "tools/call"): string =>
  `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":{"name":"echo","arguments":${args}}}`;

describe("mcpTextProblems: whose mistake a lossy MCP text is", () => {
  it("finds nothing in a text JSON.parse reads exactly", () => {
    expect(problemsOf(callText("1", '{"a":[1,{"b":2}]}'))).toEqual({ request: [], argumentsByRequest: {} });
  });

  it("files a single call's lossy arguments under its id, at pointers into the arguments", () => {
    expect(problemsOf(callText('"x"', '{"a":{"b":1,"b":2}}'))).toEqual({
      request: [],
      argumentsByRequest: { '"x"': [{ path: "/a/b", message: TWICE("b") }] },
    });
  });

  it('in a batch, files each call\'s problems under its own id, telling 1 from "1"', () => {
    const text = `[${callText("1", '{"a":1,"a":2}')},${callText('"1"', '{"c":1}')},${callText("2", '{"b":1,"b":2}')}]`;
    expect(problemsOf(text)).toEqual({
      request: [],
      argumentsByRequest: { "1": [{ path: "/a", message: TWICE("a") }], "2": [{ path: "/b", message: TWICE("b") }] },
    });
  });

  it.each([
    [
      "a repeated field of the call itself",
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","method":"tools/list"}',
      "/method",
    ],
    [
      "a repeated arguments key",
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{},"arguments":{}}}',
      "/params/arguments",
    ],
    [
      "lossy arguments of a message that is not a tools/call",
      callText("1", '{"a":1,"a":2}', "prompts/get"),
      "/params/arguments/a",
    ],
    [
      "lossy arguments of a notification (no id)",
      '{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"a":1,"a":2}}}',
      "/params/arguments/a",
    ],
    [
      "a single object whose key looks like a batch index",
      '{"0":{"params":{"arguments":{"a":1,"a":2}}},"jsonrpc":"2.0"}',
      "/0/params/arguments/a",
    ],
  ])("refuses the whole request for %s", (_name, text, path) => {
    expect(problemsOf(text)).toEqual({
      request: [{ path, message: expect.stringContaining("appears more than once") }],
      argumentsByRequest: {},
    });
  });

  it("refuses a batch that gives one id to two requests, whatever else is in it", () => {
    const shared =
      "the id 7 is also the id of the message at /0; each request of a batch needs an id of its own, or its answer cannot be told apart";
    expect(
      problemsOf(
        `[${callText("7", "{}")},{"jsonrpc":"2.0","method":"notifications/initialized"},${callText("7", "{}")}]`,
      ),
    ).toEqual({
      request: [{ path: "/2/id", message: shared }],
      argumentsByRequest: {},
    });
    expect(problemsOf(`[${callText('"7"', "{}")},${callText("7", "{}")}]`)).toEqual({
      request: [],
      argumentsByRequest: {},
    });
  });

  it("checks every call however many problems come before it, and lists at most 20 per call", () => {
    const many = Array.from({ length: 30 }, (_, i) => `"n${i}":1,"n${i}":2`).join(",");
    const found = mcpTextProblems(
      `[${callText("1", `{${many}}`)},${callText("2", '{"a":1,"a":2}')}]`,
      JSON.parse(`[${callText("1", `{${many}}`)},${callText("2", '{"a":1,"a":2}')}]`),
    );
    expect({
      request: found.request,
      first: found.argumentsByRequest.get("1")?.map((p) => p.path),
      second: found.argumentsByRequest.get("2"),
    }).toEqual({
      request: [],
      first: Array.from({ length: 20 }, (_, i) => `/n${i}`),
      second: [{ path: "/a", message: TWICE("a") }],
    });
  });

  it("files a whole number past 2^53 as the arguments' problem too", () => {
    expect(problemsOf(callText("3", '{"id":9007199254740993}'))).toEqual({
      request: [],
      argumentsByRequest: {
        "3": [
          {
            path: "/id",
            message:
              "the whole number 9007199254740993 is past 2^53 and reads as 9007199254740992, so it would be kept as another number; send it as a string",
          },
        ],
      },
    });
  });

  it("keys ids as their JSON text", () => {
    expect([mcpRequestKey(1), mcpRequestKey("1")]).toEqual(["1", '"1"']);
  });
});
