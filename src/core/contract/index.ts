/**
 * The version-1 mock definition engine: parse with limits, the call algorithm, checked
 * examples, the contract hash and drafts. Pure TypeScript, no platform imports; the outside
 * world is reached only through the SchemaValidator port. docs/mock-definition.md describes the
 * format this code implements.
 */
export type * from "./types.js";
export { parseDefinition, type ParseResult } from "./parse.js";
export { executeCall, initialState, type CallRequest } from "./call.js";
export { checkDefinition } from "./check.js";
export { contractHash, contractCanonicalJson } from "./hash.js";
export { generateDraft, DRAFT_VARIANT, type DraftResult } from "./draft.js";
export { draftFromInstructions, type ModelDraftInputs, type ModelDraftResult } from "./model-draft.js";
export {
  DRAFT_PROMPT_VERSION,
  DRAFT_RESPONSE_FORMAT,
  draftMessages,
  parseDraftAnswer,
  type DraftAnswer,
} from "./draft-prompt.js";
export { deriveValue, FORMAT_VALUES, type Derived } from "./derive.js";
export { compileDefinition } from "./compile.js";
export { conditionHolds, compileCondition } from "./conditions.js";
export { toNumber, OPERATORS } from "./expressions.js";
export { dateAdd } from "./datetime.js";
export { resolvePath, splitPath, setPath, pathProblem, FORBIDDEN_SEGMENTS } from "./paths.js";
export { LIMITS, VARIANT_NAME, SCHEMA_VERSION } from "./limits.js";
export {
  recordDraft,
  RECORDED_VARIANT,
  type RecordedCall,
  type RecordedDraft,
  type RecordDraftResult,
  type VolatileValue,
  type SkippedCall,
} from "./record-draft.js";
