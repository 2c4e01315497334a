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
    const missing: Problem = { path: `/examples/${index}`, message: "there is no such example" };
    const error: ExampleError = { kind: "harness_error", ...missing, details: [missing] };
    return { index, variant: "", passed: false, error };
  }
  const at = `/examples/${index}`;
  const fail = (error: ExampleError): ExampleReport => ({ index, variant: example.variant, passed: false, error });
  const trace: CallTrace = { inputSchemaFailed: false };
  const outcome = runCall(
    {
      input_schema: contract.input_schema,
      output_schema: contract.output_schema,
      definition,
      variant: example.variant,
      args: example.input,
      state: example.state ?? initialState(definition),
      validator,
    },
    trace,
  );
  switch (outcome.kind) {
    case "tool_input_error": {
      const problems: Problem[] =
        outcome.details.length > 0 ? outcome.details : [{ path: "", message: outcome.message }];
      const details = problems.map((p) => ({ path: `${at}/input${p.path}`, message: p.message }));
      return fail(summarized(trace.inputSchemaFailed ? "input_schema" : "tool_input_error", details));
    }
    case "harness_error": {
      if (outcome.harness_kind === "output_schema") {
        const base = resultTemplateAt(definition, example.variant, outcome.rule);
        const problems: Problem[] =
          outcome.details.length > 0 ? outcome.details : [{ path: "", message: outcome.message }];
        const details = problems.map((p) => ({
          path: `${base}${p.path}`,
          message: `the rendered result at "${p.path || "/"}" does not match the output schema: ${p.message}`,
        }));
        return fail(summarized("output_schema", details));
      }
      const problems: Problem[] =
        outcome.details.length > 0 ? outcome.details : [{ path: at, message: outcome.message }];
      const details = problems.map((p) => ({ path: p.path, message: `${outcome.harness_kind}: ${p.message}` }));
      // The harness message already describes the whole failure; details locate each part.
      const first = details[0] as Problem;
      return fail({
        kind: "harness_error",
        path: first.path,
        message: `${outcome.harness_kind}: ${outcome.message}`,
        details,
      });
    }
    case "result": {
      const diff = firstDifference(example.expected, outcome.result);
      if (diff === null) return { index, variant: example.variant, passed: true };
      const path = `${at}/expected${diff.path}`;
      const message = `expected ${describe(diff.expected)} but the call rendered ${describe(diff.actual)}`;
      return fail({ kind: "mismatch", path, message, details: [{ path, message }] });
    }
  }
}

/** An error led by its first problem, with every problem in `details` (none is left out). */
function summarized(kind: ExampleError["kind"], details: Problem[]): ExampleError {
  // SAFETY: callers pass at least one problem.
  const first = details[0] as Problem;
  return { kind, path: first.path, message: `${first.message}${more(details.length)}`, details };
}

/**
 * The example's failure as problems for the report's flat error list: one per problem in its
 * details, so a client that shows only `errors` still shows every problem.
 */
export function exampleProblems(report: ExampleReport): Problem[] {
  if (report.passed || report.error === undefined) return [];
  const error = report.error;
  return error.details.map((detail) => ({
    path: detail.path,
    message: `example ${report.index} (variant "${report.variant}") failed, ${error.kind}: ${detail.message}`,
  }));
}
