/**
 * The run's pass^k is τ-bench's estimator: for every task, c passes out of n trials, pass^k is the
 * mean over tasks of C(c, k) / C(n, k) (τ-bench's run.py, after Yao et al. 2024, with Python's
 * exact math.comb). Checked here against that formula written out directly with exact BigInt
 * binomials, on the same pass counts, through the code that fills a run's `pass_hat_k`.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { suiteFigures } from "../../../src/core/scoring/figures.js";
import { scenarioOf } from "./helpers.js";

/** math.comb(n, k), exactly. */
function comb(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let result = 1n;
  for (let i = 1; i <= k; i++) result = (result * BigInt(n - k + i)) / BigInt(i);
  return result;
}

/** A ratio of two exact integers as the nearest double, whatever their size. */
function ratio(a: bigint, b: bigint): number {
  if (a === 0n) return 0;
  // 60 decimal digits of the quotient are plenty for a double.
  const scale = 10n ** 60n;
  return Number((a * scale) / b) / 1e60;
}

/** τ-bench's pass^k, as its run.py computes it: for k = 1..n, the mean over tasks of comb(c, k) / comb(n, k). */
function tauBenchPassHatK(passCounts: readonly number[], trials: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (let k = 1; k <= trials; k++) {
    let sum = 0;
    for (const c of passCounts) sum += ratio(comb(c, k), comb(trials, k));
    out[String(k)] = sum / passCounts.length;
  }
  return out;
}

/** A task with c passes of n, as the run's repetitions: J passes (judge 5), S fails (selection). */
function task(index: number, passes: number, trials: number) {
  return scenarioOf(`task-${index}`, "J".repeat(passes) + "S".repeat(trials - passes));
}

describe("pass^k against τ-bench's estimator", () => {
  it("agrees on the same pass counts, for any number of tasks and trials", () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 40 })
          .chain((trials) =>
            fc.tuple(
              fc.constant(trials),
              fc.array(fc.integer({ min: 0, max: trials }), { minLength: 1, maxLength: 30 }),
            ),
          ),
        ([trials, passCounts]) => {
          const figures = suiteFigures(passCounts.map((c, i) => task(i, c, trials)));
          const expected = tauBenchPassHatK(passCounts, trials);
          expect(Object.keys(figures.pass_hat_k)).toEqual(Object.keys(expected));
          for (const [k, value] of Object.entries(expected)) {
            const got = figures.pass_hat_k[k] ?? Number.NaN;
            expect(Math.abs(got - value)).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(value)));
          }
        },
      ),
    );
  });

  it("gives τ-bench's numbers on a worked case: one task 3 of 3, one 2 of 3, one 0 of 3", () => {
    // pass^1 = (1 + 2/3 + 0)/3 = 5/9; pass^2 = (1 + 1/3 + 0)/3 = 4/9; pass^3 = (1 + 0 + 0)/3 = 1/3.
    const figures = suiteFigures([task(0, 3, 3), task(1, 2, 3), task(2, 0, 3)]);
    expect(figures.pass_hat_k["1"]).toBeCloseTo(5 / 9, 15);
    expect(figures.pass_hat_k["2"]).toBeCloseTo(4 / 9, 15);
    expect(figures.pass_hat_k["3"]).toBeCloseTo(1 / 3, 15);
  });

  it("agrees for a thousand trials, where C(n, k) reaches 10^299", () => {
    const trials = 1000;
    const passCounts = [1000, 999, 700, 500, 1];
    const figures = suiteFigures(passCounts.map((c, i) => task(i, c, trials)));
    const expected = tauBenchPassHatK(passCounts, trials);
    for (const k of ["1", "2", "10", "100", "500", "999", "1000"]) {
      const value = expected[k] ?? Number.NaN;
      expect(Math.abs((figures.pass_hat_k[k] ?? Number.NaN) - value)).toBeLessThanOrEqual(1e-12 * Math.max(1, value));
    }
  });
});
