/** Command-line flag handling shared by the commands: every mistake is an UnusableInput naming the flag. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UnusableInput } from "./io.js";
import { messageOf } from "../core/message-of.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * node:util parseArgs with no positionals and no unknown flags; its errors become usage errors that
 * point at the command's --help.
 */
export function parseFlags<T extends Options>(
  args: string[],
  options: T,
  command: string,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: false }>>["values"] {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const message = messageOf(error);
    throw new UnusableInput("command line", `${message}; run "toolproof ${command} --help" for the options`);
  }
}

/** The same, for a command that also takes positional arguments (`eval show RUN`, `suite push FILE`). */
export function parseFlagsAndArguments<T extends Options>(
  args: string[],
  options: T,
  command: string,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: true }>> {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (error) {
    const message = messageOf(error);
    throw new UnusableInput("command line", `${message}; run "toolproof ${command} --help" for the options`);
  }
}

export function requireFlag(value: string | undefined, flag: string, what: string, command: string): string {
  if (value === undefined || value.trim() === "")
    throw new UnusableInput(
      "command line",
      `missing ${flag}: ${what}; run "toolproof ${command} --help" for the options`,
    );
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
  if (!Number.isFinite(number) || number < 0 || number > 1)
    throw new UnusableInput("--threshold", `--threshold: expected a number from 0 to 1, got ${JSON.stringify(value)}`);
  return number;
}

/** A whole number from `min` to `max`, for counts such as --runs. */
export function wholeNumberFlag(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const number = /^\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(number) || number < min || number > max)
    throw new UnusableInput(
      flag,
      `${flag}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  return number;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "30m", "90s", "1h", "500ms" → milliseconds; a bare number is seconds. */
export function durationFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  const ms = match ? Number(match[1]) * (UNIT_MS[match[2] ?? "s"] ?? 1000) : Number.NaN;
  if (!Number.isFinite(ms) || ms <= 0)
    throw new UnusableInput(
      flag,
      `${flag}: expected a duration such as 30m, 90s, 2h or 500ms, got ${JSON.stringify(value)}`,
    );
  return ms;
}
