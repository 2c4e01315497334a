import Ajv from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type JudgeAnswer, judgeOutcomeOf, parseJudgeAnswer } from "../../../src/core/scoring/judge-parse.js";
import { JUDGE_RESPONSE_FORMAT } from "../../../src/core/scoring/judge-prompt.js";

describe("reading the judge's answer strictly", () => {
  it.each<[string, string, JudgeAnswer]>([
    [
      "a plain JSON answer",
      '{"score": 4, "reason": "Looked up INV-10431 as asked."}',
      { kind: "score", score: 4, reason: "Looked up INV-10431 as asked." },
    ],
    [
      "a fenced json block",
      '```json\n{"score": 5, "reason": "Optimal."}\n```',
      { kind: "score", score: 5, reason: "Optimal." },
    ],
    [
      "surrounding whitespace and a padded reason",
      '  \n{"reason": "  Two lookups of the same invoice. ", "score": 3}\n',
      { kind: "score", score: 3, reason: "Two lookups of the same invoice." },
    ],
    ["4.0 is the integer 4 in JSON", '{"score": 4.0, "reason": "ok"}', { kind: "score", score: 4, reason: "ok" }],
  ])("%s", (_name, raw, expected) => {
    expect(parseJudgeAnswer(raw)).toEqual(expected);
  });

  // Everything else is unparseable, and the answer is kept as it came for the repetition's record.
  it.each<[string, string | null, string]>([
    ["no answer", null, "the judge gave no answer"],
    ["an empty answer", "  ", "the judge gave no answer"],
    ["prose around the JSON", 'Here is my grade: {"score": 4, "reason": "ok"}', "the answer is not JSON"],
    ["prose after a fence", '```json\n{"score": 4, "reason": "ok"}\n```\nHope this helps', "the answer is not JSON"],
    ["a fence in another language", '```yaml\n{"score": 4, "reason": "ok"}\n```', "the answer is not JSON"],
    ["a bare score", "4", "the answer is not a JSON object"],
    ["a list", '[{"score": 4, "reason": "ok"}]', "the answer is not a JSON object"],
    ["a score as a string", '{"score": "4", "reason": "ok"}', 'score must be an integer from 1 to 5, got "4"'],
    ["a fractional score", '{"score": 3.5, "reason": "ok"}', "score must be an integer from 1 to 5, got 3.5"],
    ["a score off the scale", '{"score": 0, "reason": "ok"}', "score must be an integer from 1 to 5, got 0"],
    ["no score", '{"reason": "ok"}', "score must be an integer from 1 to 5, got nothing"],
    ["an empty reason", '{"score": 4, "reason": " "}', "reason must be a non-empty string"],
    ["no reason", '{"score": 4}', "reason must be a non-empty string"],
    ["an extra field", '{"score": 4, "reason": "ok", "result": "pass"}', "unexpected field result"],
    // JSON.parse keeps the last of repeated keys: a judge saying 1 then 5 must not read as 5.
    ["a repeated score", '{"score": 1, "score": 5, "reason": "dup"}', 'the answer repeats the key "score"'],
    ["a repeated reason", '{"score": 5, "reason": "bad", "reason": "good"}', 'the answer repeats the key "reason"'],
    [
      "a key repeated in another spelling",
      '{"score": 2, "\\u0073core": 5, "reason": "escaped"}',
      'the answer repeats the key "score"',
    ],
    [
      "a repeated key in a fenced block",
      '```json\n{"score": 5, "reason": "a", "score": 5}\n```',
      'the answer repeats the key "score"',
    ],
    [
      "a repeated key inside a nested value",
      '{"score": 5, "reason": "ok", "extra": [{"a": 1, "a": 2}]}',
      'the answer repeats the key "a" (at /extra/0)',
    ],
  ])("%s is unparseable", (_name, raw, problem) => {
    expect(parseJudgeAnswer(raw)).toEqual({ kind: "unparseable", problem, raw });
  });

  it("never throws, and accepts exactly what the structured-output schema accepts (with a non-blank reason)", () => {
    const validate = new Ajv({ strict: false }).compile(JUDGE_RESPONSE_FORMAT.json_schema.schema);
    const answer = fc.oneof(
      fc.record(
        {
          score: fc.oneof(fc.integer({ min: -1, max: 7 }), fc.double(), fc.string()),
          reason: fc.oneof(fc.string(), fc.integer()),
        },
        { requiredKeys: [] },
      ),
      fc.dictionary(
        fc.constantFrom("score", "reason", "result", "explanation"),
        fc.oneof(fc.integer({ min: 1, max: 5 }), fc.string()),
      ),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(answer, fc.boolean(), (value, fenced) => {
        const json = JSON.stringify(value) ?? "null";
        const parsed = parseJudgeAnswer(fenced ? `\`\`\`json\n${json}\n\`\`\`` : json);
        const reason =
          typeof value === "object" && value !== null && !Array.isArray(value)
            ? (value as { reason?: unknown }).reason
            : undefined;
        const expected = validate(value) && typeof reason === "string" && reason.trim() !== "";
        expect(parsed.kind === "score").toBe(expected);
      }),
      { numRuns: 400 },
    );
    fc.assert(
      fc.property(fc.string(), (text) => void parseJudgeAnswer(text)),
      { numRuns: 300 },
    );
  });

  it("refuses an answer with a key repeated at any depth, and only such an answer among valid JSON texts", () => {
    // A JSON text built by hand from fast-check's JSON values, with one object's key written twice
    // (or not): the parser must say which key, whatever the depth and the spacing.
    const text = (value: unknown, duplicate: { at: number } | null, counter: { objects: number }): string => {
      if (Array.isArray(value)) return `[${value.map((item) => text(item, duplicate, counter)).join(", ")}]`;
      if (typeof value !== "object" || value === null) return JSON.stringify(value);
      const index = counter.objects++;
      const entries = Object.entries(value).map(
        ([key, item]) => `${JSON.stringify(key)}: ${text(item, duplicate, counter)}`,
      );
      const first = Object.keys(value)[0];
      if (duplicate?.at === index && first !== undefined) entries.push(`${JSON.stringify(first)}: null`);
      return `{${entries.join(", ")}}`;
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat({ max: 6 }), fc.boolean(), (value, at, repeat) => {
        const wrapped = { score: 3, reason: "r", nested: value };
        const counter = { objects: 0 };
        const raw = text(wrapped, repeat ? { at } : null, counter);
        const parsed = parseJudgeAnswer(raw);
        const repeated = repeat && at < counter.objects && hasKeyAtObject(wrapped, at);
        if (repeated)
          expect(parsed).toMatchObject({
            kind: "unparseable",
            problem: expect.stringMatching(/^the answer repeats the key /),
          });
        else expect(parsed).toEqual({ kind: "unparseable", problem: "unexpected field nested", raw });
      }),
      { numRuns: 300 },
    );
  });
});

describe("the judge's outcome after retries", () => {
  it.each<[string, JudgeAnswer[], ReturnType<typeof judgeOutcomeOf>]>([
    [
      "scored at once",
      [{ kind: "score", score: 4, reason: "ok" }],
      { kind: "score", score: 4, reason: "ok", prompt_version: "p1" },
    ],
    [
      "scored on the retry",
      [
        { kind: "unparseable", problem: "the answer is not JSON", raw: "four" },
        { kind: "score", score: 2, reason: "wrong invoice" },
      ],
      { kind: "score", score: 2, reason: "wrong invoice", prompt_version: "p1" },
    ],
    [
      "never usable: a judge error naming each attempt",
      [
        { kind: "unparseable", problem: "the answer is not JSON", raw: "four" },
        { kind: "unparseable", problem: "the judge gave no answer", raw: null },
      ],
      {
        kind: "error",
        message: "no usable answer after 2 attempts (1: the answer is not JSON; 2: the judge gave no answer)",
      },
    ],
    ["never asked", [], { kind: "error", message: "the judge was never asked" }],
  ])("%s", (_name, attempts, expected) => {
    expect(judgeOutcomeOf(attempts, "p1")).toEqual(expected);
  });
});

/** Whether the at-th object met depth-first (the order text() numbers them in) has a key. */
function hasKeyAtObject(value: unknown, at: number): boolean {
  let seen = 0;
  let found = false;
  const walk = (item: unknown): void => {
    if (Array.isArray(item)) {
      item.forEach(walk);
      return;
    }
    if (typeof item !== "object" || item === null) return;
    if (seen++ === at) found = Object.keys(item).length > 0;
    Object.values(item).forEach(walk);
  };
  walk(value);
  return found;
}
