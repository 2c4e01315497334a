/**
 * Every dataset pin a suite's scenarios name, to resolve them in one read (a run's plan and a
 * suite's save both need all of them before any scenario is planned).
 */
import type { DatasetPin } from "../datasets/pin.js";
import type { Scenario } from "./suite-types.js";

export function scenarioDatasetPins(scenarios: ReadonlyArray<Pick<Scenario, "datasets">>): DatasetPin[] {
  return scenarios.flatMap((scenario) => Object.values(scenario.datasets ?? {}));
}
