/** What `npm start` and `npm run dev` print once the server is up: where it is, the demo key, and what to paste next. */
import path from "node:path";
import type { SeededSuite, SeededTool } from "./seed-demo.js";
import { DEMO_MODEL } from "./demo-model-script.js";
import { demoKeyFile } from "./paths.js";

export interface BannerInput {
  url: string;
  stateDir: string;
  demoKey: string;
  demoTools: SeededTool[];
  demoSuite?: SeededSuite | undefined;
  seedError?: string | undefined;
  /** How it is served, e.g. "Workers runtime (Miniflare, no dev proxy)". */
  servedBy: string;
}

export function banner(input: BannerInput): string {
  const relative = (file: string) => {
    const rel = path.relative(process.cwd(), file);
    return rel === "" || rel.startsWith("..") ? file : rel;
  };
  const auth = `-H "Authorization: Bearer ${input.demoKey}"`;
  const lines = [
    "",
    `toolproof is running at ${input.url}  (${input.servedBy})`,
    `  state:      ${relative(input.stateDir)}`,
    `  demo key:   ${input.demoKey}`,
    `              tenant "demo", every permission; local development only (kept in ${relative(demoKeyFile(input.stateDir))})`,
    `  dashboard:  ${input.url}/  (open it in a browser and sign in with the demo key)`,
  ];
  if (input.demoTools.length > 0) {
    lines.push("  demo tools:");
    for (const tool of input.demoTools) {
      const operations = tool.operations.map((op) => `${op.operation_id} r${op.revision ?? "-"}`).join(", ");
      lines.push(`    ${tool.id}  ${tool.name}  (${operations})`);
      for (const warning of tool.warnings) lines.push(`      warning: ${warning}`);
    }
  }
  const suite = input.demoSuite;
  if (suite) {
    lines.push(
      `  demo suite: ${suite.name} v${suite.version}  (${suite.scenarios} scenarios x ${suite.runs_per_scenario} runs, from examples/evals/invoicedesk.yaml)`,
    );
    for (const name of suite.missing_connections) {
      // The demo model first: it works with no model account and no network, so the first run needs nothing else.
      lines.push(
        `    no model connection "${name}" yet: runs of the suite need one. With no model at hand, start the scripted demo model`,
        `    in another terminal (it prints this same command; --toolproof tells it where this toolproof is):`,
        `    npm run demo-model -- --toolproof ${input.url}`,
        `    then connect it:`,
        `    curl -s -X PUT ${input.url}/api/connections/${name} ${auth} -H "content-type: application/json" \\`,
        `      -d '{"base_url": "http://127.0.0.1:8788/v1", "model": "${DEMO_MODEL}", "api_key": "not-needed"}'`,
        `    Or any OpenAI-compatible endpoint instead, e.g. Ollama: base_url http://127.0.0.1:11434/v1, model llama3.1, api_key ollama.`,
      );
    }
  }
  if (input.seedError !== undefined) {
    lines.push("  warning: the demo tools could not be seeded; the API is up regardless:");
    lines.push(...input.seedError.split("\n").map((line) => `    ${line}`));
  }
  const example = input.demoTools[0];
  lines.push("", "Try:", `  curl -s ${input.url}/api/tools ${auth}`);
  if (example) lines.push(`  curl -s ${input.url}/api/tools/${example.id}/testing ${auth}`);
  if (suite) lines.push(`  curl -s ${input.url}/api/suites/${suite.name} ${auth}`);
  lines.push("", "Stop with Ctrl-C.", "");
  return lines.join("\n");
}
