/**
 * The estimators behind a run's figures, as plain functions of counts. Binomial ratios are
 * computed as running products of ratios, never as factorials, so n in the thousands neither
 * overflows nor loses precision (C(3000, 1500) alone is about 10^901).
 */

/** z for a two-sided 95% interval (the 97.5th percentile of the standard normal). */
export const Z_95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/**
 * The Wilson score interval for `passed` successes in `runs` trials: unlike p ± z·√(p(1−p)/n) it
 * stays inside [0, 1] and is not zero-width at 0 or n passes. Null with no runs.
 */
export function wilsonInterval(passed: number, runs: number, z: number = Z_95): Interval | null {
  if (runs === 0) return null;
  const p = passed / runs;
  const z2 = z * z;
  const denominator = 1 + z2 / runs;
  const center = (p + z2 / (2 * runs)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / runs + z2 / (4 * runs * runs));
  return { low: Math.max(0, center - half), high: Math.min(1, center + half) };
}

/** C(a, k) / C(b, k) for 0 <= k <= b, as the product over i < k of (a − i) / (b − i). */
export function binomialRatio(a: number, b: number, k: number): number {
  if (k > a) return 0;
  let ratio = 1;
  for (let i = 0; i < k; i++) ratio *= (a - i) / (b - i);
  return ratio;
}

/**
 * pass^k (τ-bench): the chance that k runs drawn without replacement from n, c of which passed,
 * all pass: C(c, k) / C(n, k).
 */
export function passHatK(passed: number, runs: number, k: number): number {
  checkCounts(passed, runs, k);
  return binomialRatio(passed, runs, k);
}

/** pass@k: the chance that at least one of k runs drawn from n passes: 1 − C(n − c, k) / C(n, k). */
export function passAtK(passed: number, runs: number, k: number): number {
  checkCounts(passed, runs, k);
  return 1 - binomialRatio(runs - passed, runs, k);
}

/** The chance that n runs see at least one misfire of rate p: 1 − (1 − p)^n. */
export function detectionPower(misfireRate: number, runs: number): number {
  if (runs <= 0) return 0;
  if (misfireRate >= 1) return 1;
  // −expm1(n·log1p(−p)) is 1 − (1 − p)^n without the cancellation for small p.
  return -Math.expm1(runs * Math.log1p(-misfireRate));
}

/**
 * The fewest runs that catch a misfire of rate p with the given confidence:
 * ceil(log(1 − confidence) / log(1 − p)); null when p is 0 (no number of runs suffices).
 */
export function runsNeeded(misfireRate: number, confidence = 0.95): number | null {
  if (misfireRate <= 0) return null;
  if (misfireRate >= 1) return 1;
  let runs = Math.max(1, Math.ceil(Math.log1p(-confidence) / Math.log1p(-misfireRate)));
  // The logarithms can land a hair off an exact integer; settle on the true smallest count.
  while (runs > 1 && detectionPower(misfireRate, runs - 1) >= confidence) runs--;
  while (detectionPower(misfireRate, runs) < confidence) runs++;
  return runs;
}

/** pass^k and pass@k for k = 1..runs, keyed by k as a string (a JSON object). */
export function perK(
  passed: number,
  runs: number,
  estimator: (passed: number, runs: number, k: number) => number,
): Record<string, number> {
  const values: Record<string, number> = {};
  for (let k = 1; k <= runs; k++) values[String(k)] = estimator(passed, runs, k);
  return values;
}

function checkCounts(passed: number, runs: number, k: number): void {
  if (
    !(
      Number.isInteger(passed) &&
      Number.isInteger(runs) &&
      Number.isInteger(k) &&
      passed >= 0 &&
      passed <= runs &&
      k >= 1 &&
      k <= runs
    )
  ) {
    throw new RangeError(
      `need integers 0 <= passed <= runs and 1 <= k <= runs, got passed ${passed}, runs ${runs}, k ${k}`,
    );
  }
}
