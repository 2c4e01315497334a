/**
 * recordDraft: recorded real calls become a draft that reproduces every recorded answer, passes
 * its own check, and says which values are volatile.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkDefinition, executeCall, recordDraft, type RecordedCall } from "../../../src/core/contract/index.js";
import { canonicalJson, type JsonObject, type JsonValue } from "../../../src/core/json.js";
import type { JsonSchema } from "../../../src/core/ports.js";
import { contract, validator } from "./helpers.js";

const RUNS = 150;

function jsonArb(): fc.Arbitrary<JsonValue> {
  // SAFETY: fc.jsonValue only produces values JSON text can express.
  return fc.jsonValue({ maxDepth: 3 }).map((value) => value as JsonValue);
}

function objectArb(): fc.Arbitrary<JsonObject> {
  // SAFETY: a dictionary of JSON values is a JSON object.
  return fc.dictionary(fc.string({ maxLength: 6 }), jsonArb(), { maxKeys: 4 }).map((value) => value as JsonObject);
}

const callsArb = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 5 }), jsonArb()), { minLength: 1, maxLength: 12 })
  .chain((pairs) => fc.tuple(fc.constant(pairs), fc.array(objectArb(), { minLength: 6, maxLength: 6 })))
  .map(([pairs, inputs]) =>
    pairs.map(
      ([which, answer], seq): RecordedCall => ({
        attempt_id: "att_1",
        seq: seq + 1,
        input: inputs[which] ?? {},
        answer,
      }),
    ),
  );

const anyObject: JsonSchema = { type: "object" };

describe("recordDraft", () => {
  it("always reproduces its examples, and the draft passes its check", async () => {
    await fc.assert(
      fc.asyncProperty(callsArb, async (calls) => {
        const result = recordDraft(calls, true);
        if (!result.ok) {
          // Only when every answer holds an expression lookalike.
          expect(result.message).toMatch(/^none of the recorded calls can become an example/);
          return;
        }
        const { definition, skipped } = result.draft;
        const report = await checkDefinition(contract(anyObject, true), definition, validator);
        expect(report.valid, JSON.stringify(report.errors)).toBe(true);
        const skippedSeqs = new Set(skipped.map((s) => s.seq));
        // The first call of each distinct input is answered exactly as the real handler answered it.
        const seen = new Set<string>();
        for (const call of calls) {
          const key = canonicalJson(call.input);
          if (seen.has(key) || skippedSeqs.has(call.seq)) continue;
          seen.add(key);
          const outcome = executeCall({
            input_schema: anyObject,
            output_schema: true,
            definition,
            variant: definition.default_variant,
            args: call.input,
            state: {},
            validator,
          });
          expect(outcome.kind).toBe("result");
          if (outcome.kind === "result") expect(canonicalJson(outcome.result)).toBe(canonicalJson(call.answer));
        }
        expect(definition.examples.length).toBe(seen.size);
      }),
      { numRuns: RUNS },
    );
  });

  it("drafts one example per distinct input, a default from the schema, and names the volatile values", () => {
    const calls: RecordedCall[] = [
      {
        attempt_id: "att_a",
        seq: 1,
        input: { id: "INV-1" },
        answer: { id: "INV-1", status: "open", fetched_at: "2026-03-02T09:00:01Z", request_id: "r-1" },
      },
      {
        attempt_id: "att_a",
        seq: 2,
        input: { id: "INV-2" },
        answer: { id: "INV-2", status: "paid", fetched_at: "2026-03-02T09:00:02Z", request_id: "r-2" },
      },
      {
        attempt_id: "att_b",
        seq: 1,
        input: { id: "INV-1" },
        answer: { id: "INV-1", status: "open", fetched_at: "2026-03-02T09:00:01Z", request_id: "r-3" },
      },
    ];
    const schema: JsonSchema = {
      type: "object",
      properties: { id: { type: "string" }, status: { type: "string" } },
      required: ["id", "status"],
    };
    const result = recordDraft(calls, schema);
    expect(result).toEqual({
      ok: true,
      draft: {
        definition: {
          schema_version: 1,
          default_variant: "recorded",
          variants: {
            recorded: {
              result: { id: "example", status: "example" },
              rules: [
                { when: [{ source: "input", path: "", op: "eq", value: { id: "INV-1" } }], result: calls[0]?.answer },
                { when: [{ source: "input", path: "", op: "eq", value: { id: "INV-2" } }], result: calls[1]?.answer },
              ],
            },
          },
          examples: [
            { variant: "recorded", input: { id: "INV-1" }, expected: calls[0]?.answer },
            { variant: "recorded", input: { id: "INV-2" }, expected: calls[1]?.answer },
          ],
        },
        sources: [
          { example: 0, attempt_id: "att_a", seq: 1, calls: 2 },
          { example: 1, attempt_id: "att_a", seq: 2, calls: 1 },
        ],
        volatile: [
          { example: 0, path: "/fetched_at", kind: "timestamp", value: "2026-03-02T09:00:01Z" },
          {
            example: 0,
            path: "/request_id",
            kind: "differs_between_equal_inputs",
            value: "r-1",
            others: [{ attempt_id: "att_b", seq: 1, value: "r-3" }],
          },
          { example: 1, path: "/fetched_at", kind: "timestamp", value: "2026-03-02T09:00:02Z" },
        ],
        skipped: [],
      },
    });
  });

  it("keeps an answer that broke the contract, so the check shows it as a failing example", async () => {
    const schema: JsonSchema = { type: "object", properties: { status: { type: "string" } }, required: ["status"] };
    const result = recordDraft(
      [{ attempt_id: "att_a", seq: 1, input: { id: "INV-BAD" }, answer: { status: 42 } }],
      schema,
    );
    if (!result.ok) throw new Error(result.message);
    const report = await checkDefinition(contract(anyObject, schema), result.draft.definition, validator);
    expect({
      valid: report.valid,
      examples: report.examples.map((e) => ({ index: e.index, passed: e.passed, path: e.error?.path })),
    }).toEqual({
      valid: false,
      examples: [{ index: 0, passed: false, path: "/variants/recorded/rules/0/result/status" }],
    });
  });

  it("leaves out an answer a definition cannot hold as a literal, and says why", () => {
    const calls: RecordedCall[] = [{ attempt_id: "att_a", seq: 4, input: {}, answer: { note: { $input: "x" } } }];
    expect(recordDraft(calls, true)).toEqual({
      ok: false,
      message:
        "none of the recorded calls can become an example (see each reason): att_a call 4: the answer holds an object at /note whose only key is an expression operator ($input, $state, $number, $dateAdd), which a definition cannot hold as a literal",
    });
  });

  it("keeps at most 100 distinct inputs and reports the rest", () => {
    const calls: RecordedCall[] = Array.from({ length: 102 }, (_, i) => ({
      attempt_id: "att_a",
      seq: i + 1,
      input: { n: i },
      answer: { n: i },
    }));
    const result = recordDraft(calls, true);
    if (!result.ok) throw new Error(result.message);
    expect(result.draft.definition.examples.length).toBe(100);
    expect(result.draft.skipped).toEqual([
      {
        attempt_id: "att_a",
        seq: 101,
        reason: "a definition holds at most 100 examples; this is a further distinct input",
      },
      {
        attempt_id: "att_a",
        seq: 102,
        reason: "a definition holds at most 100 examples; this is a further distinct input",
      },
    ]);
  });
});
