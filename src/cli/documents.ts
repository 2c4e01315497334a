/**
 * Loads the documents a command is given: reads the file (or stdin for "-"), parses JSON or YAML,
 * and turns every failure into UnusableInput naming the file and, where there is one, the field.
 */
import type { JsonValue, Problem } from "../core/json.js";
import { parseText, syntaxFor } from "../core/policy/parse-text.js";
import { UnusableInput, type CliIo } from "./io.js";
import { messageOf } from "../core/message-of.js";

/** `role` is what the file is for ("policy", "manifest"), used in messages. */
export async function loadDocument(io: CliIo, path: string, role: string): Promise<JsonValue> {
  const text = await readSource(io, path, role);
  const parsed = parseText(text, syntaxFor(path, text));
  if (!parsed.ok)
    throw new UnusableInput(displayName(path), `the ${role} file ${displayName(path)} is unusable: ${parsed.message}`);
  return parsed.value;
}

/** Problems found in a loaded document, reported against its file. */
export function documentProblems(path: string, role: string, problems: readonly Problem[]): UnusableInput {
  const count = problems.length === 1 ? "a problem" : `${problems.length} problems`;
  return new UnusableInput(displayName(path), `the ${role} file ${displayName(path)} has ${count}`, problems);
}

export function displayName(path: string): string {
  return path === "-" ? "<stdin>" : path;
}

async function readSource(io: CliIo, path: string, role: string): Promise<string> {
  try {
    return path === "-" ? await io.readStdin() : await io.readFile(path);
  } catch (error) {
    throw new UnusableInput(
      displayName(path),
      `cannot read the ${role} file ${displayName(path)}: ${readError(error)}`,
    );
  }
}

function readError(error: unknown): string {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "";
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "it is a directory";
  if (code === "EACCES") return "permission denied";
  return messageOf(error);
}
