import type { Suite } from "../../core/evals/suite-types.js";
import type { Policy } from "../../core/policy/types.js";

export interface StartRunRequest {
  tenantId: string;
  keyId: string;
  suite: { name: string; version: number; document: Suite };
  /** The named policy's latest version, when the suite names one. */
  policy: Policy | null;
  runsPerScenario?: number | undefined;
  label?: string | undefined;
  /** What started the run, stored as the row's trigger. */
  trigger: Record<string, string>;
  /** Whoever started the run holds AIManager:RunRealTools (a suite with real tools needs it; a webhook never has it). */
  realToolsAllowed?: boolean | undefined;
}
