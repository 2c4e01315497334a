/**
 * What a simulation or a run stores of its pinned operations and tools, measured before anything
 * is stored: the attempt's setup is one row of its object's storage (every operation's definition
 * without its checked examples, and the tools with their initial states), and a run's coordinator
 * keeps each distinct operations and tools list, examples included, as a row of its own. A Durable
 * Object refuses a row over 2,000,000 bytes and the local runtime does not, so without this the
 * local run passes and a deployed one fails at its first attempt.
 */
import { D1_ROW_LIMIT_BYTES, requireFitsRow } from "../../adapters/d1/row-limit.js";
import {
  operationsWithoutCheckedExamples,
  type PinnedOperation,
  type PinnedTool,
} from "../../core/simulation/setup.js";

/** Throws RowTooLarge when the attempt's setup of these operations and tools is past one stored row. */
export function requireSetupFits(operations: readonly PinnedOperation[], tools: readonly PinnedTool[]): void {
  requireFitsRow(
    JSON.stringify({ operations: operationsWithoutCheckedExamples(operations), tools }),
    "the attempt's setup (its operations' definitions without their checked examples, and its tools)",
    "pin fewer operations, or keep large initial states in a dataset",
    "one row of the attempt's storage",
  );
}

/**
 * Throws RowTooLarge when a run of these operations and tools could not store them: as an
 * attempt's setup, or as the coordinator's rows. `texts` are the lists' JSON when the caller has it.
 */
export function requireListsFit(
  operations: readonly PinnedOperation[],
  tools: readonly PinnedTool[],
  texts: { operations: string; tools: string } = {
    operations: JSON.stringify(operations),
    tools: JSON.stringify(tools),
  },
): void {
  // The lists with their examples are at least the setup's size: most plans are known to fit here.
  if ((texts.operations.length + texts.tools.length) * 3 > D1_ROW_LIMIT_BYTES) requireSetupFits(operations, tools);
  for (const list of [texts.operations, texts.tools])
    requireFitsRow(
      list,
      "one of the run's operations or tools lists (checked examples included)",
      "pin fewer operations, or make their checked examples fewer or smaller",
      "one row of the run coordinator's storage",
    );
}
