/**
 * The docs stay true: every fenced `sh` (or `bash`, `shell`) block of README.md and docs/*.md is
 * run, as written, against a freshly started local server (the one `npm start` runs, on a free
 * port with its own temporary state), from the repository root.
 *
 * How a document's blocks run:
 * - One session per document: its blocks run in order, and the variables, shell functions and
 *   working directory a block leaves are there for the next, as when a reader pastes them into one
 *   terminal (docs/simulations.md does not inherit the README's $TOOL). Each block runs under
 *   `set -euo pipefail` and must exit 0; the first failing block of a document ends its session.
 * - What a reader copies from `npm start`'s banner is put in: `http://127.0.0.1:8787` becomes the
 *   server's URL, the placeholder `tpk_...` its demo key, `.toolproof/state` its state directory.
 *   The test also runs the demo model (`npm run demo-model`, scripts/local/demo-model-script.ts)
 *   on a free port, and `http://127.0.0.1:8788`, its default address, becomes that one: eval
 *   examples run whole, with real calls, judge answers and verdicts.
 *   Any other placeholder in a command (`TOOL=tool_...`, `HASH=...`) fails the block: capture the
 *   value with a command instead (`TOOL=$(curl ... | node -pe ...)`), so a reader can paste it too.
 * - `curl` must be silent (`-s`), and an HTTP answer of 400 or more fails the command, unless the
 *   line above it says that status is the point: `# expect: 409` (every request the next command
 *   makes must answer 409). `# expect: exit 1` says the next command must exit with status 1.
 *   Either applies to one simple command (no pipes), which may span lines.
 * - Blocks that are not commands to run are fenced as what they are (`json`, `yaml`, `text`,
 *   `ts`...). A command block that cannot run here is marked right above its fence with
 *   `<!-- docs-test: skip: <reason> -->`; it shows as skipped, with the reason, in the test output.
 *   A block that would change the project under the test or serve until stopped (`npm ci`,
 *   `npm install`, `npm test`, `npm start`, `npm run dev`, `npm run bench...`) must be marked so;
 *   it is refused, not run, otherwise. Every fence names its language, so nothing escapes the test
 *   by accident.
 *
 * `DOCS_TEST_OUTPUT=1 npx vitest run test/docs` prints what every block printed.
 */
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_MODEL, demoModelScript } from "../../scripts/local/demo-model-script.js";
import { startToolproof, type RunningToolproof } from "../../scripts/local-server.js";
import { startModelServer, type ModelServer } from "../support/model-server/server.js";
import { fencedBlocks, type FencedBlock } from "./markdown.js";
import { prepareBlock, ShellSession } from "./shell-session.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const RUNNABLE = new Set(["sh", "bash", "shell"]);
/** Bundling and starting workerd take seconds, more on a busy machine. */
const START_TIMEOUT_MS = 300_000;
/** One block: a few requests, or a CLI run that loads tsx or wrangler. */
const BLOCK_TIMEOUT_MS = 120_000;

const documents = [
  "README.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

let server: RunningToolproof | undefined;
let demoModel: ModelServer | undefined;
const stateDir = mkdtempSync(path.join(tmpdir(), "toolproof-docs-state-"));

beforeAll(async () => {
  demoModel = await startModelServer();
  demoModel.script(DEMO_MODEL, demoModelScript());
  server = await startToolproof({ port: 0, stateDir, quiet: true });
  expect(server.seedError).toBeUndefined();
}, START_TIMEOUT_MS);

/** Skipped blocks, printed at the end so a CI log shows them whatever the reporter. */
const skipped: string[] = [];

afterAll(async () => {
  if (skipped.length)
    console.info(
      `docs test: ${skipped.length} command blocks not run, by their docs-test markers:\n${skipped.map((line) => `  ${line}`).join("\n")}`,
    );
  await server?.stop();
  await demoModel?.close();
  rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

/** A reader's shell: the project's Node first on PATH (as npm scripts have it), and nothing a developer exported (URL, KEY, TOOL...). */
function readerEnvironment(): NodeJS.ProcessEnv {
  const keep = Object.entries(process.env).filter(([name]) =>
    /^(HOME|USER|LOGNAME|TMPDIR|TERM|LANG|LC_.*|npm_config_.*)$/i.test(name),
  );
  return {
    ...Object.fromEntries(keep),
    PATH: [path.join(ROOT, "node_modules", ".bin"), process.env.PATH ?? ""].join(path.delimiter),
    FORCE_COLOR: "0",
    NO_COLOR: "1",
    WRANGLER_SEND_METRICS: "false",
  };
}

for (const document of documents) {
  const blocks = fencedBlocks(readFileSync(path.join(ROOT, document), "utf8"));

  describe(document, () => {
    it("names a language on every fence, and marks only command blocks as skipped, with a reason", () => {
      const problems = blocks.flatMap((block) => [
        ...(block.language === ""
          ? [`line ${block.line - 1}: a fence without a language (sh, json, yaml, text, ...)`]
          : []),
        ...(block.malformedMarker
          ? [`line ${block.line - 2}: "${block.malformedMarker}" is not <!-- docs-test: skip: <reason> -->`]
          : []),
        ...(block.skipReason && !RUNNABLE.has(block.language)
          ? [`line ${block.line - 2}: a skip marker above a ${block.language} block, which never runs`]
          : []),
      ]);
      expect(problems).toEqual([]);
    });

    const commands = blocks.filter((block) => RUNNABLE.has(block.language));
    if (commands.length === 0) return;
    let session: ShellSession | undefined;
    let failedAt: number | undefined;
    afterAll(() => session?.dispose());

    for (const block of commands) {
      const title = `${document}:${block.line}: ${firstCommand(block)}`;
      if (block.skipReason) {
        skipped.push(`${document}:${block.line}: ${block.skipReason}`);
        it.skip(`${title} (skipped: ${block.skipReason})`, () => undefined);
        continue;
      }
      it(
        title,
        async (context) => {
          if (failedAt !== undefined) context.skip(`the block at line ${failedAt} failed, and this one builds on it`);
          if (!server) throw new Error("the server did not start");
          failedAt = block.line;
          const prepared = prepareBlock(block.text, {
            url: server.url,
            key: server.demoKey,
            stateDir: server.stateDir,
            modelUrl: demoModel?.url ?? "",
          });
          expect(prepared.problems.map((problem) => `${document}:${offset(problem, block.line)}`)).toEqual([]);
          session ??= new ShellSession(ROOT, readerEnvironment());
          const run = await session.run(prepared.script, { file: document, line: block.line }, BLOCK_TIMEOUT_MS);
          const report = `${run.timedOut ? `timed out after ${BLOCK_TIMEOUT_MS} ms\n` : ""}exit ${run.code}; output:\n${run.output}`;
          if (process.env.DOCS_TEST_OUTPUT) console.log(`${title}\n${run.output}`);
          expect(run.code === 0 && !run.timedOut, report).toBe(true);
          failedAt = undefined;
        },
        BLOCK_TIMEOUT_MS + 10_000,
      );
    }
  });
}

/** "line 3: ..." inside a block, as a line of the document. */
function offset(problem: string, firstLine: number): string {
  return problem.replace(/^line (\d+)/, (_, line: string) => String(firstLine + Number(line) - 1));
}

/** The block's first command, to name its test. */
function firstCommand(block: FencedBlock): string {
  const line = block.text.split("\n").find((text) => text.trim() !== "" && !text.trim().startsWith("#")) ?? "";
  return line.length > 70 ? `${line.slice(0, 67)}...` : line;
}
