/**
 * The attempt's setup is one row of its object's storage: every pinned operation's definition
 * without its checked examples, and its tools with their initial states. What a row cannot hold is
 * refused where the setup is asked for (a simulation, a run's start), before any object holds it.
 */
import { requireFitsRow } from "../../adapters/d1/row-limit.js";

/** Throws RowTooLarge when the setup's JSON text (or the parts it is made of) is past one stored row. */
export function requireSetupFits(text: string | readonly string[]): void {
  requireFitsRow(
    text,
    "the attempt's setup (its operations' definitions without their checked examples, and its tools)",
    "pin fewer operations, or keep large initial states in a dataset",
    "one row of the attempt's storage",
  );
}
