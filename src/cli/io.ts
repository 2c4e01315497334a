/**
 * What a CLI command may touch (output streams, files, stdin, the environment), and the exit codes
 * the pipeline reads: 0 clean (a passing gate), 1 findings, a failed metric or a failed gate, 2 input
 * the command cannot use, and for the eval commands anything that is not a verdict (an errored or
 * uncalibrated run, a timeout, an unreachable service).
 */
import { appendFile, readFile, writeFile } from "node:fs/promises";
import type { Problem } from "../core/json.js";

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_UNUSABLE = 2;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  readFile(path: string): Promise<string>;
  readStdin(): Promise<string>;
  writeFile(path: string, text: string): Promise<void>;
  /** Appends, creating the file when missing ($GITHUB_STEP_SUMMARY is shared by a job's steps). */
  appendFile(path: string, text: string): Promise<void>;
  env: NodeJS.ProcessEnv;
  /** stderr is a terminal: progress is redrawn in place rather than logged line by line. */
  interactive: boolean;
}

export const processIo: CliIo = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  readFile: (path) => readFile(path, "utf8"),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
    return Buffer.concat(chunks).toString("utf8");
  },
  writeFile: (path, text) => writeFile(path, text, "utf8"),
  appendFile: (path, text) => appendFile(path, text, "utf8"),
  env: process.env,
  interactive: process.stderr.isTTY === true,
};

/**
 * Input the command cannot use: a bad flag, an unreadable file, a malformed document. `source`
 * names the file (or flag) and each problem its field, so the message says exactly what to fix.
 */
export class UnusableInput extends Error {
  constructor(
    readonly source: string,
    message: string,
    readonly problems: readonly Problem[] = [],
  ) {
    super(message);
    this.name = "UnusableInput";
  }
}
