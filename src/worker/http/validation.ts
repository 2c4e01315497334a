/** Turns zod's issues into the project's Problem shape: a JSON Pointer to the field and a plain message. */
import { z } from "zod";
import { pointer, type Problem } from "../../core/json.js";

// Plain wording for the two most common mistakes, whatever the field: a missing one and a wrong type.
z.config({
  customError: (issue) => {
    if (issue.code === "invalid_type") {
      if (issue.input === undefined) return "required";
      return `expected ${issue.expected}, got ${describeType(issue.input)}`;
    }
    return undefined;
  },
});

export function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

export function zodProblems(error: z.ZodError): Problem[] {
  return error.issues.flatMap((issue) => {
    const tokens = issue.path.map((segment) => (typeof segment === "symbol" ? String(segment.description) : segment));
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({ path: pointer(...tokens, key), message: `unknown field "${key}"` }));
    }
    return [{ path: pointer(...tokens), message: issue.message }];
  });
}
