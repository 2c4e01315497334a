/**
 * Checked examples: each one runs the real call algorithm in memory (no evidence, no
 * persistence) and must render exactly its `expected`. Failures are located by a JSON Pointer
 * into the definition, so an author can jump straight to the key that is wrong.
 */
import type { Problem } from "../json.js";
import { pointer } from "../json.js";
import type { SchemaValidator } from "../ports.js";
import { initialState, runCall, type CallTrace } from "./call.js";
import { compileDefinition } from "./compile.js";
import type { ExampleReport, MockDefinition, OperationContract } from "./types.js";
import { describe, firstDifference } from "./values.js";

type ExampleError = NonNullable<ExampleReport["error"]>;

function more(count: number): string {
  return count > 1 ? ` (and ${count - 1} more problem${count > 2 ? "s" : ""})` : "";
}

/** Where the template that produced an example's result lives, for pointing at output problems. */
function resultTemplateAt(definition: MockDefinition, variant: string, rule: number | null): string {
  const compiled = compileDefinition(definition).variants.get(variant);
  const base = `/variants${pointer(variant)}`;
  if (rule !== null && compiled?.rules[rule]?.result !== undefined) return `${base}/rules/${rule}/result`;
  return `${base}/result`;
}

/** Runs example `index` of a parsed definition against the contract's schemas. */
export function runExample(
  contract: OperationContract,
  definition: MockDefinition,
  index: number,
  validator: SchemaValidator,
): ExampleReport {
  const example = definition.examples[index];
  if (example === undefined) {
    const error: ExampleError = { kind: "harness_error", path: `/examples/${index}`, message: "there is no such example" };
    return { index, variant: "", passed: false, error };
  }
  const at = `/examples/${index}`;
  const fail = (error: ExampleError): ExampleReport => ({ index, variant: example.variant, passed: false, error });
  const trace: CallTrace = { inputSchemaFailed: false };
  const outcome = runCall({
    input_schema: contract.input_schema,
    output_schema: contract.output_schema,
    definition,
    variant: example.variant,
    args: example.input,
    state: example.state ?? initialState(definition),
    validator,
  }, trace);
  switch (outcome.kind) {
    case "tool_input_error": {
      const first: Problem = outcome.details[0] ?? { path: "", message: outcome.message };
      return fail({
        kind: trace.inputSchemaFailed ? "input_schema" : "tool_input_error",
        path: `${at}/input${first.path}`,
        message: `${first.message}${more(outcome.details.length)}`,
      });
    }
    case "harness_error": {
      if (outcome.harness_kind === "output_schema") {
        const first: Problem = outcome.details[0] ?? { path: "", message: outcome.message };
        return fail({
          kind: "output_schema",
          path: `${resultTemplateAt(definition, example.variant, outcome.rule)}${first.path}`,
          message: `the rendered result at "${first.path || "/"}" does not match the output schema: ${first.message}${more(outcome.details.length)}`,
        });
      }
      const first: Problem | undefined = outcome.details[0];
      return fail({ kind: "harness_error", path: first?.path ?? at, message: `${outcome.harness_kind}: ${outcome.message}` });
    }
    case "result": {
      const diff = firstDifference(example.expected, outcome.result);
      if (diff === null) return { index, variant: example.variant, passed: true };
      return fail({
        kind: "mismatch",
        path: `${at}/expected${diff.path}`,
        message: `expected ${describe(diff.expected)} but the call rendered ${describe(diff.actual)}`,
      });
    }
  }
}

/** The example's failure as a problem for the report's flat error list. */
export function exampleProblem(report: ExampleReport): Problem | null {
  if (report.passed || report.error === undefined) return null;
  return {
    path: report.error.path,
    message: `example ${report.index} (variant "${report.variant}") failed, ${report.error.kind}: ${report.error.message}`,
  };
}

