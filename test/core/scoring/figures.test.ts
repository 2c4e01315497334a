import { describe, expect, it } from "vitest";
import { countsOf, scenarioFigures, suiteFigures } from "../../../src/core/scoring/figures.js";
import { scenarioOf, verdictOf } from "./helpers.js";

/** Every number rounded to 6 decimals, so whole figures compare with hand-computed values. */
function rounded<T>(value: T): T {
  return JSON.parse(
    JSON.stringify(value, (_key, v: unknown) => (typeof v === "number" ? Math.round(v * 1e6) / 1e6 : v)),
  ) as T;
}

describe("a run's figures", () => {
  it("counts a scenario: an error is a run that did not pass", () => {
    // J J j E F: runs 5, passed 2, errors 1, failed 5 − 2 − 1 = 2, pass rate 2/5 = 0.4, one forbidden call
    // Wilson(2, 5): z²/n = 0.768291; center = (0.4 + 0.384146)/1.768291 = 0.443449; half = 1.108393 · √(0.048 + 0.038415) = 1.108393 · 0.293964 = 0.325828 → [0.117621, 0.769277]
    // pass^1 = 2/5; pass^2 = C(2,2)/C(5,2) = 1/10; pass^3..5 = 0
    // pass@1 = 1 − C(3,1)/C(5,1) = 2/5; pass@2 = 1 − C(3,2)/C(5,2) = 1 − 3/10 = 0.7; pass@3 = 1 − C(3,3)/C(5,3) = 0.9; pass@4,5 = 1
    const figures = scenarioFigures(scenarioOf("status", "JJjEF"));
    expect({ ...figures, interval: null, pass_hat_k: null, pass_at_k: null }).toEqual({
      id: "status",
      runs: 5,
      passed: 2,
      failed: 2,
      errors: 1,
      pass_rate: 0.4,
      interval: null,
      forbidden_calls: 1,
      pass_hat_k: null,
      pass_at_k: null,
    });
    expect(figures.interval?.low).toBeCloseTo(0.117621, 5);
    expect(figures.interval?.high).toBeCloseTo(0.769277, 5);
    expect(rounded(figures.pass_hat_k)).toEqual({ "1": 0.4, "2": 0.1, "3": 0, "4": 0, "5": 0 });
    expect(rounded(figures.pass_at_k)).toEqual({ "1": 0.4, "2": 0.7, "3": 0.9, "4": 1, "5": 1 });
  });

  it("pools the suite and averages pass^k over scenarios (τ-bench)", () => {
    // the seed's five scenarios × 3: status JJJ, duplicate JJj, hold JJJ, pay NNN, ignore NNS
    // passed 3 + 2 + 3 + 3 + 2 = 13 of 15; pass rate 13/15
    // pass^2 per scenario: 1, C(2,2)/C(3,2) = 1/3, 1, 1, 1/3 → mean (3 + 2/3)/5 = 11/15
    // pass^3: 1, 0, 1, 1, 0 → 3/5;  pass@3: all 1 → 1; pass@1 = pass^1 = mean(1, 2/3, 1, 1, 2/3) = 13/15
    // detection power at p = 0.1 over 3 runs per scenario: 1 − 0.9³ = 0.271; runs needed 29
    // Wilson: 3/3 → [0.438503, 1]; 2/3 → [0.207660, 0.938508]; 13/15 → [0.621180, 0.962639]
    const figures = suiteFigures([
      scenarioOf("status", "JJJ"),
      scenarioOf("duplicate", "JJj"),
      scenarioOf("hold", "JJJ"),
      scenarioOf("pay", "NNN"),
      scenarioOf("ignore", "NNS"),
    ]);
    const all = {
      interval: { low: 0.438503, high: 1 },
      pass_hat_k: { "1": 1, "2": 1, "3": 1 },
      pass_at_k: { "1": 1, "2": 1, "3": 1 },
    };
    // 2 of 3: pass^1 = 2/3, pass^2 = 1/3, pass^3 = 0; pass@1 = 2/3, pass@2 = 1 − C(1,2)/C(3,2) = 1, pass@3 = 1
    const two = {
      interval: { low: 0.20766, high: 0.938508 },
      pass_hat_k: { "1": 0.666667, "2": 0.333333, "3": 0 },
      pass_at_k: { "1": 0.666667, "2": 1, "3": 1 },
    };
    const scenario = (id: string, passed: number, shape: typeof all) => ({
      id,
      runs: 3,
      passed,
      failed: 3 - passed,
      errors: 0,
      pass_rate: rounded(passed / 3),
      forbidden_calls: 0,
      ...shape,
    });
    expect(rounded(figures)).toEqual({
      runs: 15,
      passed: 13,
      failed: 2,
      errors: 0,
      pass_rate: 0.866667,
      interval: { low: 0.62118, high: 0.962639 },
      forbidden_calls: 0,
      scenarios: [
        scenario("status", 3, all),
        scenario("duplicate", 2, two),
        scenario("hold", 3, all),
        scenario("pay", 3, all),
        scenario("ignore", 2, two),
      ],
      pass_hat_k: { "1": 0.866667, "2": 0.733333, "3": 0.6 },
      pass_at_k: { "1": 0.866667, "2": 1, "3": 1 },
      misfire_rate: 0.1,
      runs_per_scenario: 3,
      detection_power: 0.271,
      runs_needed_95: 29,
    });
  });

  it("has no rate and no interval without runs", () => {
    expect(countsOf([])).toEqual({
      runs: 0,
      passed: 0,
      failed: 0,
      errors: 0,
      pass_rate: null,
      interval: null,
      forbidden_calls: 0,
    });
    const empty = suiteFigures([]);
    expect([empty.misfire_rate, empty.runs_per_scenario, empty.detection_power, empty.runs_needed_95]).toEqual([
      0.1, 0, 0, 29,
    ]);
  });

  it("counts forbidden calls per call", () => {
    expect(countsOf([verdictOf("F"), verdictOf("F"), verdictOf("J")]).forbidden_calls).toBe(2);
  });
});
