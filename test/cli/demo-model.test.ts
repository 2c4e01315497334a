/**
 * `npm run demo-model` as a person runs it beside a toolproof on another port: the command it prints
 * must connect that toolproof (from --toolproof, else TOOLPROOF_URL), not always the default 8787,
 * and the endpoint it names must answer as the demo agent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { spawnScript } from "./run-script.js";

const children: Array<ReturnType<typeof spawnScript>> = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGTERM");
});

/** Starts demo-model and answers what it printed once the connect command is out. */
function printed(
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawnScript("demo-model.ts", args, env);
  children.push(child);
  return new Promise((resolve, reject) => {
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/"api_key": "not-needed"\}'/.test(output)) resolve({ code: null, output });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, output }));
  });
}

describe("npm run demo-model", () => {
  it("prints the connect command for the toolproof named by --toolproof, on the port it listens on", {
    timeout: 60_000,
  }, async () => {
    const { output } = await printed(["--port", "0", "--toolproof", "http://127.0.0.1:8812"]);
    const endpoint = /demo model endpoint at (http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(output)?.[1];
    expect(output).toContain(
      `curl -s -X PUT http://127.0.0.1:8812/api/connections/demo-model -H "Authorization: Bearer $KEY"`,
    );
    expect(output).toContain(
      `-d '{"base_url": "${endpoint}/v1", "model": "invoicedesk-demo", "api_key": "not-needed"}'`,
    );
    const models = await fetch(`${endpoint}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "invoicedesk-demo",
        messages: [{ role: "user", content: "What's the status of INV-10431?" }],
      }),
    });
    expect(models.status).toBe(200);
  });

  it("takes toolproof's URL from TOOLPROOF_URL without the flag, and refuses one that is no URL", {
    timeout: 60_000,
  }, async () => {
    const fromEnv = await printed(["--port", "0"], { TOOLPROOF_URL: "http://127.0.0.1:8899/" });
    expect(fromEnv.output).toContain("curl -s -X PUT http://127.0.0.1:8899/api/connections/demo-model");
    const bad = await printed(["--port", "0", "--toolproof", "8812"]);
    expect(bad).toEqual({ code: 2, output: '--toolproof: expected toolproof\'s URL (http://host:port), got "8812"\n' });
  });
});
