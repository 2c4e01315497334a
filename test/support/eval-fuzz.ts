/**
 * Generated model answers for the eval runner's fuzz tests (test/core/evals/runner.fuzz.test.ts,
 * test/worker/runs.fuzz.test.ts; docs/fuzzing.md): chat.completion bodies the local model server
 * sends exactly as generated, so call ids (empty, repeated, a lone UTF-16 surrogate, too long),
 * function names (known, forbidden, unknown) and argument texts (objects, arrays, numbers JSON
 * cannot carry, nesting past the limit, text that is not JSON, large ones) reach the runner as a
 * real endpoint could send them, in parallel calls too. And the invariant both tests check.
 */
import fc from "fast-check";
import type { ModelScript } from "./model-server/script.js";

/** VITE_FUZZ_SEED / VITE_FUZZ_RUNS, as the route fuzzers read them (Vite hands VITE_* to both projects). */
const settings = (import.meta as unknown as { env?: Record<string, unknown> }).env ?? {};
export const EVAL_FUZZ_SEED = integerSetting(settings.VITE_FUZZ_SEED) ?? 20_261_203;
export const EVAL_FUZZ_SCALE = integerSetting(settings.VITE_FUZZ_RUNS) ?? 1;

function integerSetting(value: unknown): number | undefined {
  if (typeof value !== "string" || value.trim() === "") return undefined;
  const number = Number(value);
  return Number.isSafeInteger(number) && number > 0 ? number : undefined;
}

export interface GeneratedCall {
  id: string;
  name: string;
  arguments: string;
}

/** One model answer: parallel calls, or a final text. */
export type GeneratedAnswer = { calls: GeneratedCall[] } | { text: string };

const ids = fc.oneof(
  fc.constantFrom("", "call_1", "call_2", "call_\ud800", "\udfff", "x~1.1", "call_1~1.1"),
  fc.string({ unit: "binary", maxLength: 12 }),
  fc.integer({ min: 150, max: 400 }).map((n) => "i".repeat(n)),
);

/** Argument texts of every shape an endpoint might send, some large. */
export const argumentTexts = fc.oneof(
  fc.constant('{"invoice_id":"INV-10431"}'),
  fc.constant('{"invoice_id":"INV-10423","reason":"duplicate"}'),
  fc.constant('{"invoice_id":"INV-10423","reason":"Duplicates last month\'s bill."}'),
  fc.constant('{"invoice_id":"INV-10423","amount":1e400}'),
  fc.integer({ min: 99, max: 140 }).map((depth) => `{"invoice_id":${"[".repeat(depth)}${"]".repeat(depth)}}`),
  fc.constantFrom(
    "",
    "   ",
    "{",
    '{"invoice_id":"INV-10423",',
    "null",
    "[]",
    '["INV-10423"]',
    '"INV-10423"',
    "42",
    "not json at all",
  ),
  fc.json({ maxDepth: 4 }),
  fc
    .integer({ min: 1_000, max: 60_000 })
    .map((size) => JSON.stringify({ invoice_id: "INV-10431", note: "n".repeat(size) })),
  fc.string({ unit: "binary", maxLength: 40 }),
);

export function answers(functions: readonly string[]): fc.Arbitrary<GeneratedAnswer[]> {
  const names = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...functions) },
    { weight: 1, arbitrary: fc.constantFrom("invoices__get_supplier", "get_invoice", "place_invoice_on_hold") },
  );
  const call = fc.record({ id: ids, name: names, arguments: argumentTexts });
  const answer: fc.Arbitrary<GeneratedAnswer> = fc.oneof(
    { weight: 4, arbitrary: fc.array(call, { minLength: 1, maxLength: 4 }).map((calls) => ({ calls })) },
    { weight: 1, arbitrary: fc.constant({ text: "Done." }) },
  );
  return fc.array(answer, { minLength: 1, maxLength: 4 });
}

/** The model server's script: every answer exactly as generated (raw bodies), then a final text for any further turn. */
export function scriptOf(generated: readonly GeneratedAnswer[]): ModelScript {
  const turns: NonNullable<ModelScript["default"]> = generated.map((answer) =>
    "text" in answer ? { content: answer.text } : { body: completion(answer.calls) },
  );
  // A model asked again after its last generated answer says it is done.
  turns.push(...Array.from({ length: 8 }, () => ({ content: "Done." })));
  return { default: turns, judge_default: [JSON.stringify({ score: 5, reason: "scored by the fuzz script" })] };
}

function completion(calls: readonly GeneratedCall[]): unknown {
  return {
    id: "chatcmpl-fuzz",
    object: "chat.completion",
    created: 0,
    model: "fuzz",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments },
          })),
        },
        finish_reason: "tool_calls",
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** What a repetition's record must show, whatever the answers were. */
export interface CheckedRecord {
  calls: ReadonlyArray<{ function: string }>;
  verdict: { outcome: string; hard_fail: boolean };
  transcript: { turns: ReadonlyArray<{ answer: { tool_calls?: ReadonlyArray<{ name: string }> } }> } | null;
}

/**
 * The invariant: every call in the transcript is one of the repetition's calls (the same functions,
 * as many times), and a transcript naming a forbidden function is never a pass, always a hard fail.
 * Answers a description of the first breach, or null.
 */
export function breach(record: CheckedRecord, forbid: readonly string[]): string | null {
  const asked = (record.transcript?.turns ?? [])
    .flatMap((turn) => turn.answer.tool_calls ?? [])
    .map((call) => call.name);
  const counted = record.calls.map((call) => call.function);
  if (JSON.stringify([...asked].sort()) !== JSON.stringify([...counted].sort()))
    return `the transcript asked for ${JSON.stringify(asked)} but the calls are ${JSON.stringify(counted)}`;
  const forbidden = asked.filter((name) => forbid.includes(name));
  if (forbidden.length > 0 && (record.verdict.outcome === "pass" || !record.verdict.hard_fail))
    return `forbidden ${forbidden.join(", ")} asked for, yet the verdict is ${JSON.stringify(record.verdict)}`;
  return null;
}
