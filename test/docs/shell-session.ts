/**
 * Runs a document's shell blocks one after another the way a reader pastes them into one
 * terminal: variables, functions and the working directory a block leaves behind are there for
 * the next one. Each block runs in its own bash process (so one can time out or fail without
 * taking the session down) that starts from the state the previous block saved.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** Values a reader copies from what `npm start` printed, and where the docs' default ones are replaced. */
export interface ReaderValues {
  /** The server's base URL; replaces the docs' `http://127.0.0.1:8787`. */
  url: string;
  /** The demo key; replaces the placeholder `tpk_...` (or `tpk_…`). */
  key: string;
  /** The server's state directory; replaces the docs' `.toolproof/state`. */
  stateDir: string;
  /** The demo model's base URL (`npm run demo-model`); replaces the docs' `http://127.0.0.1:8788`. */
  modelUrl: string;
}

export interface PreparedBlock {
  script: string;
  /** Why the block cannot be pasted as it stands (left-over placeholders, a misplaced expectation). */
  problems: string[];
}

const EXPECT = /^(\s*)#\s*expect:\s*(?:(exit)\s+(\d+)|(\d{3}))\b/;
/**
 * Commands that would change the project under the running test (reinstall its dependencies,
 * run the suite again) or serve until stopped. A block with one must be marked as skipped.
 */
const NOT_HERE = /\bnpm\s+(?:ci|install|i|test|start|run\s+(?:dev|demo-model|bench[\w:-]*))(?=\s|;|&|\||$)/;
/** `tool_...`, `att_…`, `HASH=...`: a value the reader would have to type in by hand. */
const PLACEHOLDER = /\b[a-z]+_(?:\.\.\.|…)|=(?:\.\.\.|…)(?=\s|$)/;

/**
 * The block as the test runs it: the reader's values put in, and each `# expect:` comment
 * turned into a check on the command that follows it. Lines keep their numbers.
 */
export function prepareBlock(text: string, values: ReaderValues): PreparedBlock {
  const problems: string[] = [];
  const lines = text
    .replaceAll("http://127.0.0.1:8787", values.url)
    .replaceAll("http://127.0.0.1:8788", values.modelUrl)
    .replace(/tpk_(?:\.\.\.|…)/g, values.key)
    .replaceAll(".toolproof/state", values.stateDir)
    .split("\n");
  let pending: { check: string; line: number } | undefined;
  const out = lines.map((line, index) => {
    const expect = EXPECT.exec(line);
    if (!expect && /^\s*#\s*expect:/.test(line))
      problems.push(
        `line ${index + 1}: "${line.trim()}" is neither "# expect: <HTTP status>" nor "# expect: exit <code>"`,
      );
    if (expect) {
      if (pending)
        problems.push(`line ${pending.line}: "# expect:" is followed by another "# expect:" instead of a command`);
      pending = {
        check: expect[2] ? `__docs_expect_exit ${expect[3]} ` : `__docs_expect_status ${expect[4]} `,
        line: index + 1,
      };
      return line;
    }
    const code = withoutComment(line);
    const unsafe = NOT_HERE.exec(code);
    if (unsafe)
      problems.push(
        `line ${index + 1}: "${unsafe[0]}" cannot run under the test; mark the block <!-- docs-test: skip: <reason> -->`,
      );
    if (PLACEHOLDER.test(code)) problems.push(`line ${index + 1}: a placeholder a reader cannot paste: ${line.trim()}`);
    if (pending && code.trim() !== "") {
      if (/^\s*[A-Za-z_][A-Za-z0-9_]*=/.test(line))
        problems.push(`line ${index + 1}: "# expect:" applies to a command, not to an assignment`);
      const [, indent = ""] = /^(\s*)/.exec(line) ?? [];
      const prefixed = `${indent}${pending.check}${line.slice(indent.length)}`;
      pending = undefined;
      return prefixed;
    }
    return line;
  });
  if (pending) problems.push(`line ${pending.line}: "# expect:" is not followed by a command`);
  return { script: out.join("\n"), problems };
}

/** The line without a shell comment (a `#` at the start or after blank space); good enough for docs. */
function withoutComment(line: string): string {
  return line.replace(/(^|\s)#.*$/, "");
}

/** The shell side, kept as shell: the harness functions (see the convention in docs.test.ts) and the per-block runner. */
const HARNESS = path.join(import.meta.dirname, "harness.sh");
const RUN_BLOCK = path.join(import.meta.dirname, "run-block.sh");

export interface BlockRun {
  code: number | null;
  /** stdout and stderr, interleaved as a terminal would show them. */
  output: string;
  timedOut: boolean;
}

export class ShellSession {
  private readonly dir = mkdtempSync(path.join(tmpdir(), "toolproof-docs-shell-"));

  constructor(
    private readonly cwd: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    // Names the environment brings are the reader's shell, not something a block set.
    writeFileSync(path.join(this.dir, "env-names"), `${Object.keys(env).join("\n")}\n`);
  }

  /** Runs one prepared block; `file` and `line` place error messages in the document. */
  run(script: string, where: { file: string; line: number }, timeoutMs: number): Promise<BlockRun> {
    writeFileSync(path.join(this.dir, "block.sh"), script);
    const child = spawn("bash", ["--noprofile", "--norc", RUN_BLOCK], {
      cwd: this.cwd,
      env: {
        ...this.env,
        __DOCS_HARNESS: HARNESS,
        __DOCS_DIR: this.dir,
        __DOCS_SEEN: path.join(this.dir, "seen"),
        __DOCS_FILE: where.file,
        __DOCS_LINE: String(where.line),
      },
      // Its own process group, so a timeout ends everything the block started.
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    return new Promise((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        // Whatever a block left running in the background goes with it.
        killGroup(child.pid);
        resolve({ code, output, timedOut });
      });
    });
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // The group is already gone.
  }
}
