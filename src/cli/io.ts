/**
 * What a CLI command may touch (output streams, files, stdin), and the exit codes the pipeline reads:
 * 0 clean, 1 findings or a failed metric, 2 input the command cannot use.
 */
import { readFile } from "node:fs/promises";
import type { Problem } from "../core/json.js";

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_UNUSABLE = 2;

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  readFile(path: string): Promise<string>;
  readStdin(): Promise<string>;
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
