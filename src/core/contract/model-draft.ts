/**
 * A draft definition written by a model from an author's instructions. The model proposes and the
 * checker decides: the answer is run through checkDefinition exactly like an authored definition,
 * and the draft is handed back with its report whether or not it passes (an author fixes a near
 * miss faster than they write one), never saved. An answer that is not a JSON object is returned
 * word for word with what is wrong with it.
 */
import type { JsonObject } from "../json.js";
import type { ModelClient, ModelFailure, SchemaValidator } from "../ports.js";
import { checkDefinition } from "./check.js";
import { DRAFT_PROMPT_VERSION, DRAFT_RESPONSE_FORMAT, draftMessages, parseDraftAnswer } from "./draft-prompt.js";
import type { CheckReport, OperationContract } from "./types.js";

export interface ModelDraftInputs {
  client: ModelClient;
  contract: OperationContract;
  instructions: string;
  /** Ask for DRAFT_RESPONSE_FORMAT (the connection supports structured output). */
  structured_output: boolean;
  validator: SchemaValidator;
}

export type ModelDraftResult =
  | { kind: "draft"; definition: JsonObject; report: CheckReport; prompt_version: string }
  /** The model answered, but not with a JSON object: there is nothing to check. */
  | { kind: "unusable_answer"; problem: string; raw_answer: string | null; prompt_version: string }
  /** The endpoint failed (after the client's own retries). */
  | { kind: "model_failure"; failure: ModelFailure };

export async function draftFromInstructions(inputs: ModelDraftInputs): Promise<ModelDraftResult> {
  const result = await inputs.client.chat({
    messages: draftMessages(inputs.contract, inputs.instructions),
    ...(inputs.structured_output ? { response_format: DRAFT_RESPONSE_FORMAT } : {}),
  });
  if (!result.ok) return { kind: "model_failure", failure: result.failure };
  const raw_answer = result.answer.content;
  const parsed = parseDraftAnswer(raw_answer);
  if (!parsed.ok) {
    // A long definition can outgrow the endpoint's answer limit; say so, since the fix is not in the instructions.
    const problem =
      result.answer.finish_reason === "length"
        ? `${parsed.problem} (the answer was cut off at the endpoint's length limit)`
        : parsed.problem;
    return { kind: "unusable_answer", problem, raw_answer, prompt_version: DRAFT_PROMPT_VERSION };
  }
  const report = await checkDefinition(inputs.contract, parsed.definition, inputs.validator);
  return { kind: "draft", definition: parsed.definition, report, prompt_version: DRAFT_PROMPT_VERSION };
}
