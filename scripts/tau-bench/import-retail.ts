/**
 * npm run import:tau-retail -- --split test|train|dev|all [--out <file>] [--dataset-version N]
 *   [--agent-connection <name>] [--user-model <name>] [--instructions <file>] [--runs N]
 *
 * Turns τ-bench's retail tasks (examples/environments/tau-retail/reference/<split>.json) into a
 * suite document (JSON, which PUT /api/suites/:name and `toolproof suite push` take as it is),
 * written to stdout or to --out. The conversion is retail-suite.ts; the README of
 * examples/environments/tau-retail says how to load the environment it runs against.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_IMPORT_OPTIONS, type ReferenceSplit, retailSuite, SPLITS, type Split } from "./retail-suite.js";

const REFERENCE = path.join(import.meta.dirname, "../../examples/environments/tau-retail/reference");

function fail(message: string): never {
  process.stderr.write(`import:tau-retail: ${message}\n`);
  process.exit(2);
}

function wholeNumber(value: string | undefined, option: string, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max)
    fail(`--${option}: expected a whole number from 1 to ${max}, got ${value}`);
  return n;
}

function main(): void {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        split: { type: "string" },
        out: { type: "string" },
        "dataset-version": { type: "string" },
        "agent-connection": { type: "string" },
        "user-model": { type: "string" },
        instructions: { type: "string" },
        runs: { type: "string" },
      },
      strict: true,
    }));
  } catch (error) {
    fail(error instanceof Error ? error.message : String(error));
  }
  const split = values.split;
  if (split === undefined) fail("--split is required: test, train, dev or all");
  if (split !== "all" && !(SPLITS as readonly string[]).includes(split))
    fail(`--split: expected test, train, dev or all, got ${split}`);
  const splits: readonly Split[] = split === "all" ? SPLITS : [split as Split];
  const references = splits.map(
    (name) => JSON.parse(readFileSync(path.join(REFERENCE, `${name}.json`), "utf8")) as ReferenceSplit,
  );
  const suite = retailSuite(references, {
    dataset_version: wholeNumber(
      values["dataset-version"],
      "dataset-version",
      DEFAULT_IMPORT_OPTIONS.dataset_version,
      Number.MAX_SAFE_INTEGER,
    ),
    agent_connection: values["agent-connection"] ?? DEFAULT_IMPORT_OPTIONS.agent_connection,
    user_model: values["user-model"] ?? DEFAULT_IMPORT_OPTIONS.user_model,
    instructions:
      values.instructions === undefined
        ? DEFAULT_IMPORT_OPTIONS.instructions
        : readFileSync(values.instructions, "utf8"),
    runs_per_scenario: wholeNumber(values.runs, "runs", DEFAULT_IMPORT_OPTIONS.runs_per_scenario, 1000),
  });
  const text = `${JSON.stringify(suite, null, 2)}\n`;
  if (values.out === undefined) process.stdout.write(text);
  else {
    writeFileSync(values.out, text);
    const count = (suite.scenarios as unknown[]).length;
    process.stderr.write(`import:tau-retail: wrote ${count} scenarios to ${values.out}\n`);
  }
}

main();
