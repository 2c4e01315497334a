/** Command-line flag handling shared by the commands: every mistake is an UnusableInput naming the flag. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UnusableInput } from "./io.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * node:util parseArgs with no positionals and no unknown flags; its errors become usage errors that
 * point at the command's --help.
 */
export function parseFlags<T extends Options>(args: string[], options: T, command: string): ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: false }>>["values"] {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UnusableInput("command line", `${message}; run "toolproof ${command} --help" for the options`);
  }
}

export function requireFlag(value: string | undefined, flag: string, what: string, command: string): string {
  if (value === undefined || value.trim() === "") throw new UnusableInput("command line", `missing ${flag}: ${what}; run "toolproof ${command} --help" for the options`);
  return value;
}

/** "a, b,c" → ["a", "b", "c"]; "" → [] (an empty list is still a list). */
export function nameList(value: string): string[] {
  return value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

export function thresholdFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = value.trim() === "" ? Number.NaN : Number(value);
  if (!Number.isFinite(number) || number < 0 || number > 1) throw new UnusableInput("--threshold", `--threshold: expected a number from 0 to 1, got ${JSON.stringify(value)}`);
  return number;
}
