/**
 * Unknown fields answered with the field that was probably meant: the known fields are read from
 * the body's own zod schema at the problem's place, so the hint can never name a field that the
 * route would not accept there.
 */
import type { Context } from "hono";
import { z } from "zod";
import { unknownFieldMessage } from "../../core/field-names.js";
import { pointer, type Problem } from "../../core/json.js";
import { invalidRequest } from "./errors.js";
import { readJson } from "./json-body.js";
import { zodProblems } from "./validation.js";

/** Reads a JSON body and validates it against a zod schema, with a "did you mean" on every unknown field. */
export async function readBodyWithHints<T extends z.ZodType>(
  c: Context,
  schema: T,
  maxBytes?: number,
): Promise<z.output<T>> {
  const parsed = schema.safeParse(await readJson(c, maxBytes));
  if (!parsed.success) throw invalidRequest(hintedProblems(parsed.error, schema));
  return parsed.data;
}

export function hintedProblems(error: z.ZodError, schema: z.ZodType): Problem[] {
  return error.issues.flatMap((issue) => {
    if (issue.code !== "unrecognized_keys") return zodProblems(new z.ZodError([issue]));
    const tokens = issue.path.map((segment) => (typeof segment === "symbol" ? String(segment.description) : segment));
    const known = [...knownKeysAt(schema, tokens)];
    return issue.keys.map((key) => ({
      path: pointer(...tokens, key),
      message: unknownFieldMessage(
        key,
        known.filter((k) => k !== key),
      ),
    }));
  });
}

/** The fields the object schema at `tokens` accepts (every union branch's together), or none. */
function knownKeysAt(schema: unknown, tokens: ReadonlyArray<string | number>): Set<string> {
  const inner = unwrap(schema);
  if (inner instanceof z.ZodUnion) return new Set(inner.options.flatMap((option) => [...knownKeysAt(option, tokens)]));
  const [head, ...rest] = tokens;
  if (head === undefined) return new Set(inner instanceof z.ZodObject ? Object.keys(inner.shape) : []);
  if (inner instanceof z.ZodObject && typeof head === "string" && Object.hasOwn(inner.shape, head))
    return knownKeysAt(inner.shape[head], rest);
  if (inner instanceof z.ZodArray && typeof head === "number") return knownKeysAt(inner.element, rest);
  if (inner instanceof z.ZodRecord) return knownKeysAt(inner.valueType, rest);
  return new Set();
}

/** Past the wrappers that do not change which fields an object takes. */
function unwrap(schema: unknown): unknown {
  let current = schema;
  for (let depth = 0; depth < 16; depth++) {
    if (
      current instanceof z.ZodOptional ||
      current instanceof z.ZodNullable ||
      current instanceof z.ZodDefault ||
      current instanceof z.ZodLazy
    )
      current = current.unwrap();
    else if (current instanceof z.ZodPipe) current = current.in;
    else return current;
  }
  return current;
}
