/**
 * Strict reading of the judge's answer: a JSON object with an integer `score` from 1 to 5 and a
 * non-empty `reason`, and nothing else. The one tolerance is an answer that is entirely a fenced
 * ```json block, which chat models produce even when asked not to. A lenient parser (the first
 * number in the text, say) would turn a confused judge into a score; here it is an `unparseable`
 * answer, retried and then recorded as a judge error. So is a key written twice at any depth
 * (`{"score": 1, "score": 5}`): JSON.parse would silently keep the last one.
 */
import { isJsonObject } from "../json.js";
import { firstRepeatedKey } from "../json-repeated-keys.js";
import type { JudgeOutcome } from "./repetition-verdict.js";

export type JudgeAnswer =
  | { kind: "score"; score: 1 | 2 | 3 | 4 | 5; reason: string }
  | { kind: "unparseable"; problem: string; raw: string | null };

const FENCED_JSON = /^```json[ \t]*\r?\n([\s\S]*?)\r?\n?```$/;

export function parseJudgeAnswer(raw: string | null | undefined): JudgeAnswer {
  const text = raw ?? null;
  const unparseable = (problem: string): JudgeAnswer => ({ kind: "unparseable", problem, raw: text });
  if (text === null || text.trim() === "") return unparseable("the judge gave no answer");

  const trimmed = text.trim();
  const body = FENCED_JSON.exec(trimmed)?.[1] ?? trimmed;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return unparseable("the answer is not JSON");
  }
  if (!isJsonObject(value)) return unparseable("the answer is not a JSON object");
  const repeated = firstRepeatedKey(body);
  if (repeated)
    return unparseable(
      `the answer repeats the key ${JSON.stringify(repeated.key)}${repeated.at === "" ? "" : ` (at ${repeated.at})`}`,
    );

  const extra = Object.keys(value).filter((key) => key !== "score" && key !== "reason");
  if (extra.length > 0) return unparseable(`unexpected field${extra.length > 1 ? "s" : ""} ${extra.join(", ")}`);
  const { score, reason } = value;
  if (!isRubricScore(score))
    return unparseable(
      `score must be an integer from 1 to 5, got ${score === undefined ? "nothing" : JSON.stringify(score)}`,
    );
  if (typeof reason !== "string" || reason.trim() === "") return unparseable("reason must be a non-empty string");
  return { kind: "score", score, reason: reason.trim() };
}

function isRubricScore(value: unknown): value is 1 | 2 | 3 | 4 | 5 {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 5;
}

/**
 * The judge's outcome after its attempts (each answer parsed in turn): the first score, or a judge
 * error naming every attempt's problem.
 */
export function judgeOutcomeOf(attempts: readonly JudgeAnswer[], promptVersion: string): JudgeOutcome {
  const scored = attempts.find((a) => a.kind === "score");
  if (scored?.kind === "score")
    return { kind: "score", score: scored.score, reason: scored.reason, prompt_version: promptVersion };
  if (attempts.length === 0) return { kind: "error", message: "the judge was never asked" };
  const problems = attempts.map((a, i) => `${i + 1}: ${a.kind === "unparseable" ? a.problem : ""}`);
  return {
    kind: "error",
    message: `no usable answer after ${attempts.length} attempt${attempts.length > 1 ? "s" : ""} (${problems.join("; ")})`,
  };
}
