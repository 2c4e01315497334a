/**
 * Benchmark of the contract engine's hot path: executeCall with input and output validation, and
 * checkDefinition. Prints numbers only; it is never a test (timings on shared CI machines are
 * noise). Run with `npm run bench:core` (optionally `-- --calls 300000`).
 *
 * What is measured, per validator:
 *   - calls/s of executeCall on a 5-variant definition with 20 rules per variant, the call matching
 *     a late rule, nested references ($number of $input, $dateAdd of $input, $state), once with an
 *     unchanged state and once with set_state writing the state;
 *   - the validator's share: the same input+output validate calls timed on their own;
 *   - the core alone: executeCall with a validator that accepts everything;
 *   - checkDefinition/s on the same definition (10 examples).
 */
import { performance } from "node:perf_hooks";
import type { JsonObject, JsonValue } from "../../src/core/json.js";
import type { JsonSchema, SchemaValidator } from "../../src/core/ports.js";
import { checkDefinition, executeCall, initialState, parseDefinition } from "../../src/core/contract/index.js";
import type { MockDefinition, OperationContract, Rule, Variant } from "../../src/core/contract/index.js";
import { positiveFlag } from "./flags.js";
import { messageOf } from "../../src/core/message-of.js";

const CALLS = positiveFlag("calls", 200_000);
const CHECKS = positiveFlag("checks", 2_000);

const inputSchema: JsonSchema = {
  type: "object",
  required: ["patient", "amount", "from_date"],
  additionalProperties: false,
  properties: {
    patient: {
      type: "object",
      required: ["id"],
      properties: { id: { type: "string", minLength: 1 }, name: { type: "string" } },
    },
    amount: { type: "string" },
    from_date: { type: "string", format: "date" },
    channel: { type: "string", enum: ["web", "phone", "desk"] },
  },
};

const outputSchema: JsonSchema = {
  type: "object",
  required: ["status", "data"],
  properties: {
    status: { type: "integer" },
    data: {
      type: "object",
      required: ["reference", "patient_id", "total", "due"],
      properties: {
        reference: { type: "string" },
        patient_id: { type: "string" },
        total: { type: "number", minimum: 0 },
        due: { type: "string", format: "date-time" },
        rule: { type: "integer" },
        lines: { type: "array", items: { type: "object", properties: { sku: { type: "string" } } } },
      },
    },
  },
};

function resultFor(variant: number, rule: number): JsonValue {
  return {
    status: 200,
    data: {
      reference: { $state: "reference" },
      patient_id: { $input: "patient.id" },
      total: { $number: { $input: "amount" } },
      due: { $dateAdd: { value: { $input: "from_date" }, days: 7, hours: 16 } },
      rule: variant * 100 + rule,
      lines: [{ sku: "A-1" }, { sku: { $state: "last_sku" } }],
    },
  };
}

function buildDefinition(): MockDefinition {
  const variants: Record<string, Variant> = {};
  for (let v = 0; v < 5; v++) {
    const rules: Rule[] = [];
    for (let r = 0; r < 20; r++) {
      const rule: Rule = {
        when: [
          { source: "input", path: "patient.id", op: "eq", value: `P-${r}` },
          { source: "state", path: "reference", op: "exists", value: true },
          { source: "input", path: "channel", op: "in", value: ["web", "phone"] },
        ],
        result: resultFor(v, r),
      };
      // Odd rules write the state so both hot paths (state kept, state changed) are exercised.
      if (r % 2 === 1) rule.set_state = { "booking.last_patient": { $input: "patient.id" }, "booking.count": r };
      rules.push(rule);
    }
    variants[`v${v}`] = { result: resultFor(v, 99), rules };
  }
  const examples = [];
  for (let v = 0; v < 5; v++) {
    for (const id of ["P-18", "P-19"]) {
      const variant = `v${v}`;
      const rule = Number(id.slice(2));
      examples.push({
        variant,
        input: { patient: { id }, amount: "120.50", from_date: "2025-03-01", channel: "web" },
        expected: {
          status: 200,
          data: {
            reference: "REF-1",
            patient_id: id,
            total: 120.5,
            due: "2025-03-08T16:00:00.000Z",
            rule: v * 100 + rule,
            lines: [{ sku: "A-1" }, { sku: "B-2" }],
          },
        },
      });
    }
  }
  const raw: unknown = JSON.parse(
    JSON.stringify({
      schema_version: 1,
      default_variant: "v0",
      initial_state: { reference: "REF-1", last_sku: "B-2" },
      variants,
      examples,
    }),
  );
  const parsed = parseDefinition(raw);
  if (!parsed.ok) throw new Error(`benchmark definition does not parse: ${JSON.stringify(parsed.errors)}`);
  return parsed.definition;
}

const acceptAll: SchemaValidator = { checkSchema: () => [], validate: () => [] };

/**
 * A measurement in both wall-clock and this process's CPU time. On a shared machine (other test
 * runs, CI neighbours) wall time mostly measures the neighbours; CPU time is the better estimate
 * of what the code costs, so both are printed.
 */
interface Timing {
  wallMs: number;
  cpuMs: number;
}

function measure(run: () => void): Timing {
  const cpu = process.cpuUsage();
  const start = performance.now();
  run();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

async function measureAsync(run: () => Promise<void>): Promise<Timing> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run();
  const wallMs = performance.now() - start;
  const used = process.cpuUsage(cpu);
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

function timeCalls(
  label: string,
  validator: SchemaValidator,
  definition: MockDefinition,
  args: JsonObject,
  variant: string,
): Timing {
  const state = initialState(definition);
  const request = {
    input_schema: inputSchema,
    output_schema: outputSchema,
    definition,
    variant,
    args,
    state,
    validator,
  };
  const first = executeCall(request);
  if (first.kind !== "result") throw new Error(`${label}: benchmark call failed: ${JSON.stringify(first)}`);
  for (let i = 0; i < 20_000; i++) executeCall(request);
  let sink = 0;
  const timing = measure(() => {
    for (let i = 0; i < CALLS; i++) {
      const outcome = executeCall(request);
      if (outcome.kind === "result") sink += outcome.delay_ms + 1;
    }
  });
  if (sink !== CALLS) throw new Error(`${label}: a call failed during timing`);
  return timing;
}

function timeValidation(validator: SchemaValidator, args: JsonObject, result: JsonValue): Timing {
  for (let i = 0; i < 20_000; i++) {
    validator.validate(inputSchema, args);
    validator.validate(outputSchema, result);
  }
  let problems = 0;
  const timing = measure(() => {
    for (let i = 0; i < CALLS; i++) {
      problems += validator.validate(inputSchema, args).length;
      problems += validator.validate(outputSchema, result).length;
    }
  });
  if (problems !== 0) throw new Error("validation failed during timing");
  return timing;
}

async function timeChecks(validator: SchemaValidator, contract: OperationContract, raw: unknown): Promise<Timing> {
  for (let i = 0; i < 100; i++) await checkDefinition(contract, raw, validator);
  const report = await checkDefinition(contract, raw, validator);
  if (!report.valid) throw new Error(`benchmark definition does not check: ${JSON.stringify(report.errors)}`);
  return measureAsync(async () => {
    for (let i = 0; i < CHECKS; i++) await checkDefinition(contract, raw, validator);
  });
}

function rate(count: number, ms: number): string {
  return `${Math.round((count / ms) * 1000).toLocaleString("en-US")}/s`;
}

function us(count: number, ms: number): string {
  return `${((ms * 1000) / count).toFixed(2)} µs`;
}

/** "N/s (x µs each)" by CPU time, then the wall-clock rate. */
function report(count: number, timing: Timing): string {
  return `${rate(count, timing.cpuMs)} (${us(count, timing.cpuMs)} each) by CPU time; ${rate(count, timing.wallMs)} by wall clock`;
}

async function loadValidators(): Promise<Array<[string, SchemaValidator]>> {
  const validators: Array<[string, SchemaValidator]> = [];
  const runtime = await import("../../src/adapters/json-schema/runtime-validator.js");
  validators.push(["runtime (@cfworker/json-schema)", runtime.createRuntimeValidator()]);
  try {
    const ajv = await import("../../test/support/ajv/ajv-validator.js");
    validators.push(["ajv (Node only)", ajv.createAjvValidator()]);
  } catch (error) {
    console.log(`ajv validator not available: ${messageOf(error)}`);
  }
  return validators;
}

async function main(): Promise<void> {
  const definition = buildDefinition();
  const raw: unknown = JSON.parse(JSON.stringify(definition));
  const contract: OperationContract = {
    tool: "bench_tool",
    operation: "book",
    description: "Books an appointment.",
    input_schema: inputSchema,
    output_schema: outputSchema,
  };
  const keepArgs: JsonObject = {
    patient: { id: "P-18", name: "Ada" },
    amount: "120.50",
    from_date: "2025-03-01",
    channel: "web",
  };
  const writeArgs: JsonObject = { ...keepArgs, patient: { id: "P-19", name: "Ada" } };
  const sample = executeCall({
    input_schema: inputSchema,
    output_schema: outputSchema,
    definition,
    variant: "v4",
    args: keepArgs,
    state: initialState(definition),
    validator: acceptAll,
  });
  if (sample.kind !== "result") throw new Error(JSON.stringify(sample));

  console.log(`node ${process.version}, ${CALLS.toLocaleString("en-US")} calls per measurement, ${CHECKS} checks`);
  console.log(
    "definition: 5 variants x 20 rules x 3 conditions, variant v4, rule 18 (state kept) / rule 19 (set_state)",
  );
  console.log("\ncore only (a validator that accepts everything)");
  console.log(
    `  executeCall, state kept:    ${report(CALLS, timeCalls("core", acceptAll, definition, keepArgs, "v4"))}`,
  );
  console.log(
    `  executeCall, set_state:     ${report(CALLS, timeCalls("core", acceptAll, definition, writeArgs, "v4"))}`,
  );

  for (const [name, validator] of await loadValidators()) {
    const keep = timeCalls(name, validator, definition, keepArgs, "v4");
    const write = timeCalls(name, validator, definition, writeArgs, "v4");
    const validation = timeValidation(validator, keepArgs, sample.result);
    const checks = await timeChecks(validator, contract, raw);
    console.log(`\n${name}`);
    console.log(`  executeCall, state kept:    ${report(CALLS, keep)}`);
    console.log(`  executeCall, set_state:     ${report(CALLS, write)}`);
    console.log(
      `  validate input+output only: ${us(CALLS, validation.cpuMs)} per call by CPU time = ${((validation.cpuMs / keep.cpuMs) * 100).toFixed(0)}% of a call`,
    );
    console.log(`  checkDefinition (parse + 10 examples): ${report(CHECKS, checks)}`);
  }
}

await main();
