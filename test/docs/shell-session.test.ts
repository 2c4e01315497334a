/**
 * The docs test's own machinery, against a tiny HTTP server that answers the status a path names
 * (`/status/409`): blocks share a session, placeholders are put in or refused, and a status or
 * exit code the docs do not expect fails the block, at the right line of the document.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fencedBlocks } from "./markdown.js";
import { prepareBlock, ShellSession, type ReaderValues } from "./shell-session.js";

let server: Server;
let values: ReaderValues;
const sessions: ShellSession[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const status = Number(/^\/status\/(\d{3})/.exec(request.url ?? "")?.[1] ?? 200);
    response.writeHead(status, { "content-type": "application/json" });
    response.end(JSON.stringify({ status, authorization: request.headers.authorization ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  values = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key: "tpk_test",
    stateDir: "/tmp/state-of-the-test",
    modelUrl: "http://127.0.0.1:9",
  };
});
afterAll(async () => {
  for (const session of sessions) session.dispose();
  await new Promise((resolve) => server.close(resolve));
});

/** Runs the blocks in one new session; the result of each. */
async function runAll(
  ...blocks: string[]
): Promise<Array<{ code: number | null; output: string; problems: string[] }>> {
  const session = new ShellSession(path.resolve(import.meta.dirname, "../.."), {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
  });
  sessions.push(session);
  const results = [];
  for (const [index, text] of blocks.entries()) {
    const prepared = prepareBlock(text, values);
    const run = await session.run(prepared.script, { file: "DOC.md", line: 10 * (index + 1) }, 20_000);
    results.push({ code: run.code, output: run.output, problems: prepared.problems });
  }
  return results;
}

describe("a docs shell session", () => {
  it("carries variables, functions and the working directory from block to block, and puts the reader's values in", async () => {
    const [first, second] = await runAll(
      "URL=http://127.0.0.1:8787\nKEY=tpk_...   # the demo key\nfield() { node -pe \"JSON.parse(require('fs').readFileSync(0, 'utf8')).$1\"; }\ncd test\n",
      'AUTH=$(curl -s $URL/any -H "Authorization: Bearer $KEY" | field authorization)\necho "$AUTH in $(basename "$PWD") from .toolproof/state"\n',
    );
    expect(first).toEqual({ code: 0, output: "", problems: [] });
    expect(second).toEqual({ code: 0, output: "Bearer tpk_test in test from /tmp/state-of-the-test\n", problems: [] });
  });

  it("prints a curl answer exactly as curl would", async () => {
    const [run] = await runAll("curl -s http://127.0.0.1:8787/status/201\n");
    expect(run).toEqual({ code: 0, output: '{"status":201,"authorization":null}', problems: [] });
  });

  it("fails a block on an HTTP error the docs do not expect, and names the line of the document", async () => {
    const [run] = await runAll("echo one\ncurl -s http://127.0.0.1:8787/status/401\necho never\n");
    expect(run?.code).not.toBe(0);
    expect(run?.output).toBe(
      `one\n{"status":401,"authorization":null}docs test: HTTP 401 (add "# expect: 401" above the command if that is the point): curl -s ${values.url}/status/401\n` +
        `docs test: exit 22 at DOC.md:11: curl -s ${values.url}/status/401\n`,
    );
  });

  it("passes an expected status, and fails an expected status that does not come or a command with no request", async () => {
    const [expected, wrong, none] = await runAll(
      "# expect: 409 (the point of this step)\ncurl -s http://127.0.0.1:8787/status/409 \\\n  -H 'x: y'\n",
      "# expect: 409\ncurl -s http://127.0.0.1:8787/status/200\n",
      "# expect: 409\ntrue\n",
    );
    expect(expected).toEqual({ code: 0, output: '{"status":409,"authorization":null}', problems: [] });
    expect(wrong?.code).not.toBe(0);
    expect(wrong?.output).toContain("docs test: expected HTTP 409, the server answered 200");
    expect(none?.code).not.toBe(0);
    expect(none?.output).toContain('docs test: "# expect: 409" but the command made no curl request: true');
  });

  it("checks an expected exit code both ways", async () => {
    const [expected, unexpected, zero] = await runAll(
      "# expect: exit 3\nbash -c 'exit 3'\necho after\n",
      "bash -c 'exit 3'\necho after\n",
      "# expect: exit 1\ntrue\n",
    );
    expect(expected).toEqual({ code: 0, output: "after\n", problems: [] });
    expect(unexpected).toEqual({ code: 3, output: "docs test: exit 3 at DOC.md:20: bash -c 'exit 3'\n", problems: [] });
    expect(zero?.code).toBe(1);
    expect(zero?.output).toContain("docs test: expected exit 1, got 0: true");
  });

  it("refuses curl without -s, unset variables, and placeholders a reader cannot paste", async () => {
    const [loud, unset] = await runAll("curl http://127.0.0.1:8787/\n", "echo $NOT_SET\n");
    expect(loud?.code).toBe(2);
    expect(loud?.output).toContain("docs test: curl without -s");
    expect(unset?.code).not.toBe(0);
    expect(unset?.output).toContain("NOT_SET: unbound variable");
    expect(
      prepareBlock("TOOL=tool_...   # from the answer\nHASH=...\n# → att_… is fine in a comment\n", values).problems,
    ).toEqual([
      "line 1: a placeholder a reader cannot paste: TOOL=tool_...   # from the answer",
      "line 2: a placeholder a reader cannot paste: HASH=...",
    ]);
    expect(
      prepareBlock(
        "npm ci && npm start\nnpm run bench:dispatch -- --json\nnpm run admin -- tenant list   # npm test is fine in a comment\nnpm run demo-model -- --latency 200\n",
        values,
      ).problems,
    ).toEqual([
      'line 1: "npm ci" cannot run under the test; mark the block <!-- docs-test: skip: <reason> -->',
      'line 2: "npm run bench:dispatch" cannot run under the test; mark the block <!-- docs-test: skip: <reason> -->',
      'line 4: "npm run demo-model" cannot run under the test; mark the block <!-- docs-test: skip: <reason> -->',
    ]);
    expect(
      prepareBlock(
        'curl -s -d \'{"base_url": "http://127.0.0.1:8788/v1"}\' http://127.0.0.1:8787/api/connections/demo-model\n',
        values,
      ).script,
    ).toContain(`curl -s -d '{"base_url": "${values.modelUrl}/v1"}' ${values.url}/api/connections/demo-model`);
    expect(
      prepareBlock(
        "# expect: 200\n# expect: 201\ncurl -s x\n# expect: a refusal\n# expect: 409\nX=$(curl -s x)\n# expect: exit 1\n",
        values,
      ).problems,
    ).toEqual([
      'line 1: "# expect:" is followed by another "# expect:" instead of a command',
      'line 4: "# expect: a refusal" is neither "# expect: <HTTP status>" nor "# expect: exit <code>"',
      'line 6: "# expect:" applies to a command, not to an assignment',
      'line 7: "# expect:" is not followed by a command',
    ]);
  });
});

describe("fenced blocks", () => {
  it("are read with their language, first line and skip reason", () => {
    const markdown = [
      "# Title", // 1
      "```sh", // 2
      "echo a", // 3
      "```", // 4
      "<!-- docs-test: skip: needs wrk -->", // 5
      "````bash", // 6
      "```", // 7
      "````", // 8
      "<!-- docs-test: maybe -->", // 9
      "  ~~~", // 10
      "  text", // 11
      "  ~~~", // 12
    ].join("\n");
    expect(fencedBlocks(markdown)).toEqual([
      { language: "sh", line: 3, text: "echo a\n" },
      { language: "bash", line: 7, text: "```\n", skipReason: "needs wrk" },
      { language: "", line: 11, text: "text\n", malformedMarker: "<!-- docs-test: maybe -->" },
    ]);
  });
});
