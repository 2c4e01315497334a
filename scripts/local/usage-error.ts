/**
 * Command-line mistakes: they name the argument that was wrong and end the process with exit
 * code 2 (the shell convention for bad usage), distinct from 1 for failures while working.
 */
export class UsageError extends Error {
  constructor(
    /** The argument as the user typed it (or would type it), e.g. "--port" or "<name>". */
    readonly argument: string,
    message: string,
  ) {
    super(message);
    this.name = "UsageError";
  }
}

export const USAGE_EXIT_CODE = 2;

/** node:util parseArgs throws TypeErrors with a code; turn them into UsageErrors naming the option. */
export function fromParseArgsError(error: unknown): unknown {
  if (
    !(error instanceof TypeError) ||
    !("code" in error) ||
    typeof error.code !== "string" ||
    !error.code.startsWith("ERR_PARSE_ARGS")
  ) {
    return error;
  }
  // Node quotes the offending token: "Unknown option '--foo'", "Option '--port <value>' argument missing".
  const option = /'([^' ]+)/.exec(error.message)?.[1] ?? "arguments";
  return new UsageError(option, error.message);
}

/** A whole number in range, else a UsageError naming the argument. */
export function integerArgument(argument: string, raw: string, min: number, max: number): number {
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(argument, `${argument} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}
