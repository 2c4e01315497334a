/**
 * What `npm start` prints when the demo suite has no model connection: the scripted demo model
 * first (it needs no model account and no network), told where this toolproof is, then the
 * command that connects it; a real endpoint such as Ollama only after. The whole banner is
 * checked end to end by local-server.test.ts; this is its words, quickly.
 */
import { describe, expect, it } from "vitest";
import { banner } from "../../scripts/local/banner.js";

describe("the start banner", () => {
  it("leads with npm run demo-model for this toolproof's URL, then the connect command, then other endpoints", () => {
    const text = banner({
      url: "http://127.0.0.1:8812",
      stateDir: "/tmp/state",
      demoKey: "tpk_demo",
      demoTools: [],
      demoSuite: {
        name: "invoicedesk",
        version: 1,
        changed: false,
        scenarios: 5,
        runs_per_scenario: 3,
        missing_connections: ["demo-model"],
      },
      servedBy: "test",
    });
    const from = text.indexOf('    no model connection "demo-model" yet');
    expect(text.slice(from, text.indexOf("\n\nTry:"))).toBe(
      [
        '    no model connection "demo-model" yet: runs of the suite need one. With no model at hand, start the scripted demo model',
        "    in another terminal (it prints this same command; --toolproof tells it where this toolproof is):",
        "    npm run demo-model -- --toolproof http://127.0.0.1:8812",
        "    then connect it:",
        '    curl -s -X PUT http://127.0.0.1:8812/api/connections/demo-model -H "Authorization: Bearer tpk_demo" -H "content-type: application/json" \\',
        `      -d '{"base_url": "http://127.0.0.1:8788/v1", "model": "invoicedesk-demo", "api_key": "not-needed"}'`,
        "    Or any OpenAI-compatible endpoint instead, e.g. Ollama: base_url http://127.0.0.1:11434/v1, model llama3.1, api_key ollama.",
      ].join("\n"),
    );
  });
});
