/**
 * How a schema's problems read to the client who sent the schema. Every route that stores or runs
 * a client's schema reports checkSchema's problems through here, so they all say the same thing.
 */
import type { Problem } from "./json.js";
import type { SchemaProblem } from "./ports.js";

/**
 * The problem at its place in the request body (`field` is the schema's own pointer). A schema
 * that is not valid JSON Schema says so; one toolproof refuses (a pattern, a dynamic reference)
 * is valid, so its own message, which says why, stands alone.
 */
export function schemaFieldProblem(field: string, problem: SchemaProblem): Problem {
  return { path: `${field}${problem.path}`, message: schemaProblemMessage(problem) };
}

export function schemaProblemMessage(problem: SchemaProblem): string {
  return problem.refused ? problem.message : `not a valid JSON Schema: ${problem.message}`;
}
