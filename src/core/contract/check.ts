/**
 * checkDefinition: the full verdict on a definition for one operation contract, as the testing
 * routes answer it and as a save is refused with. Parse errors come first; examples only run on
 * a definition that parsed, since running a structurally broken one would report noise.
 */
import type { Problem } from "../json.js";
import type { SchemaValidator } from "../ports.js";
import { exampleProblems, runExample } from "./examples.js";
import { contractHash } from "./hash.js";
import { parseDefinition } from "./parse.js";
import type { CheckReport, ExampleReport, OperationContract } from "./types.js";

/**
 * Parses `raw` and runs every checked example in memory against the contract's schemas.
 * `errors` lists parse errors followed by one entry per problem of each failing example (so a
 * client that only shows `errors` still shows everything); `examples` has one report per example.
 * The schemas must already be usable (routes call validator.checkSchema first).
 */
export async function checkDefinition(
  contract: OperationContract,
  raw: unknown,
  validator: SchemaValidator,
): Promise<CheckReport> {
  const contract_hash = await contractHash(contract);
  const parsed = parseDefinition(raw);
  if (!parsed.ok) return { valid: false, errors: parsed.errors, examples: [], contract_hash };
  const errors: Problem[] = [];
  const examples: ExampleReport[] = [];
  for (let index = 0; index < parsed.definition.examples.length; index++) {
    const report = runExample(contract, parsed.definition, index, validator);
    examples.push(report);
    errors.push(...exampleProblems(report));
  }
  return { valid: errors.length === 0 && examples.every((e) => e.passed), errors, examples, contract_hash };
}
