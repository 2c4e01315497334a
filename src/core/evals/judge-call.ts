/**
 * Asking the judge model about one repetition: the prompt comes from scoring/judge-prompt.ts and
 * every answer is read by scoring's strict parser, so this file owns only the conversation. The
 * judge samples at temperature 0 with a fixed seed unless the suite's judge parameters say
 * otherwise, so two runs of the same case get the same grade wherever the endpoint allows it.
 *
 * An answer the parser rejects (not JSON, a score off the scale, empty) is asked again with the
 * same request, up to `attempts` answers in all: the prompt stays the one its version id names, and
 * a retry at fixed sampling still helps with the endpoints whose empty or cut-off answers are
 * transient. After the last one the outcome is a judge error naming every attempt's problem. An
 * endpoint that fails outright (after the client's own retries) is not the judge's verdict: it is
 * reported as `model_failure`, an infrastructure error for the repetition.
 */
import { isJsonObject, type JsonObject } from "../json.js";
import type { ChatRequest, ChatUsage } from "../ports.js";
import { type JudgeAnswer, judgeOutcomeOf, parseJudgeAnswer } from "../scoring/judge-parse.js";
import { JUDGE_PROMPT_VERSION, JUDGE_RESPONSE_FORMAT } from "../scoring/judge-prompt.js";
import type { JudgeCall, JudgeCallInputs } from "./agent-types.js";
import { DEFAULT_JUDGE_TEMPERATURE } from "./suite-parse.js";

const DEFAULT_JUDGE_ATTEMPTS = 2;
/**
 * The judge's seed when the suite sets none. With the temperature the suite parser defaults to 0,
 * the judge samples deterministically wherever the endpoint supports it.
 */
const DEFAULT_JUDGE_SEED = 1;

export async function callJudge(inputs: JudgeCallInputs): Promise<JudgeCall> {
  const attempts = Math.max(1, inputs.attempts ?? DEFAULT_JUDGE_ATTEMPTS);
  const request = judgeRequest(inputs);
  const answers: JudgeAnswer[] = [];
  const raw_answers: Array<string | null> = [];
  let latency_ms = 0;
  let usage: ChatUsage | null = null;

  while (answers.length < attempts) {
    const result = await inputs.client.chat(request);
    if (!result.ok) {
      const { failure } = result;
      return {
        outcome: { kind: "error", message: `the judge's endpoint failed: ${failure.message}` },
        raw_answers,
        latency_ms,
        usage,
        model_failure: failure,
      };
    }
    latency_ms += result.answer.latency_ms;
    usage = addUsage(usage, result.answer.usage);
    raw_answers.push(result.answer.content);
    const parsed = parseJudgeAnswer(result.answer.content);
    answers.push(parsed);
    if (parsed.kind === "score") break;
  }
  return { outcome: judgeOutcomeOf(answers, JUDGE_PROMPT_VERSION), raw_answers, latency_ms, usage };
}

function judgeRequest(inputs: JudgeCallInputs): ChatRequest {
  const request: ChatRequest = {
    messages: inputs.messages,
    temperature: DEFAULT_JUDGE_TEMPERATURE,
    seed: DEFAULT_JUDGE_SEED,
    ...definedParameters(inputs.parameters),
  };
  if (inputs.structured_output)
    request.response_format = { name: JUDGE_RESPONSE_FORMAT.json_schema.name, schema: JUDGE_SCHEMA };
  return request;
}

/** The suite's parameters that are set (an explicit `undefined` must not erase a default). */
function definedParameters(parameters: JudgeCallInputs["parameters"]): JudgeCallInputs["parameters"] {
  return Object.fromEntries(Object.entries(parameters).filter(([, value]) => value !== undefined));
}

/** JUDGE_RESPONSE_FORMAT's schema as a plain JSON object (the constant is deeply readonly). */
const JUDGE_SCHEMA: JsonObject = (() => {
  const copy: unknown = JSON.parse(JSON.stringify(JUDGE_RESPONSE_FORMAT.json_schema.schema));
  if (!isJsonObject(copy)) throw new Error("JUDGE_RESPONSE_FORMAT's schema is not a JSON object");
  return copy;
})();

function addUsage(total: ChatUsage | null, more: ChatUsage | null): ChatUsage | null {
  if (more === null) return total;
  if (total === null) return { ...more };
  return {
    prompt_tokens: total.prompt_tokens + more.prompt_tokens,
    completion_tokens: total.completion_tokens + more.completion_tokens,
  };
}
