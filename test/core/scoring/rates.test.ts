import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  binomialRatio,
  detectionPower,
  passAtK,
  passHatK,
  perK,
  runsNeeded,
  wilsonInterval,
} from "../../../src/core/scoring/rates.js";

/** C(n, k) exactly. */
function binomial(n: number, k: number): bigint {
  if (k < 0 || k > n) return 0n;
  let value = 1n;
  for (let i = 0; i < k; i++) value = (value * BigInt(n - i)) / BigInt(i + 1);
  return value;
}

/** num / den as the nearest double, without converting either (each may be far beyond 1e308). */
function ratioOf(num: bigint, den: bigint): number {
  if (num === 0n) return 0;
  const shift = den.toString(2).length - num.toString(2).length + 64;
  const scaled = shift >= 0 ? (num << BigInt(shift)) / den : num / (den << BigInt(-shift));
  return Number(scaled) * 2 ** -shift;
}

describe("the Wilson score interval (95%)", () => {
  // center = (p + z²/2n) / (1 + z²/n), half = z/(1 + z²/n) · √(p(1−p)/n + z²/4n²), z = 1.95996…, z² = 3.84146
  it.each<[string, number, number, { low: number; high: number } | null]>([
    // 0/10: center = 0.192073/1.384146 = 0.138766, half = 1.415999 · √(0.009604) = 0.138766 → [0, 0.277533]
    ["0 of 10", 0, 10, { low: 0, high: 0.277533 }],
    // 10/10: the mirror image → [0.722467, 1]
    ["10 of 10", 10, 10, { low: 0.722467, high: 1 }],
    // 14/15: p = 0.933333, z²/n = 0.256098; center = (0.933333 + 0.128049)/1.256098 = 0.844984,
    // half = 1.560359 · √(0.004148 + 0.004268) = 0.143149 → [0.701835, 0.988133]
    ["14 of 15", 14, 15, { low: 0.701835, high: 0.988133 }],
    // 13/15: p = 0.866667; center = (0.866667 + 0.128049)/1.256098 = 0.791909, half = 0.170458 → [0.621180, 0.962639]
    ["13 of 15", 13, 15, { low: 0.62118, high: 0.962639 }],
    // 27/30: p = 0.9, z²/n = 0.128049; center = (0.9 + 0.064024)/1.128049 = 0.854594, half = 0.110805 → [0.743789, 0.965400]
    ["27 of 30", 27, 30, { low: 0.743789, high: 0.9654 }],
    ["no runs", 0, 0, null],
  ])("%s", (_name, passed, runs, expected) => {
    const interval = wilsonInterval(passed, runs);
    if (expected === null) return expect(interval).toBeNull();
    expect(interval?.low).toBeCloseTo(expected.low, 6);
    expect(interval?.high).toBeCloseTo(expected.high, 6);
  });

  it("contains the observed rate and stays inside [0, 1]", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }).chain((n) => fc.tuple(fc.integer({ min: 0, max: n }), fc.constant(n))),
        ([c, n]) => {
          const interval = wilsonInterval(c, n);
          expect(interval).not.toBeNull();
          if (!interval) return;
          expect(
            0 <= interval.low && interval.low <= c / n + 1e-12 && c / n - 1e-12 <= interval.high && interval.high <= 1,
          ).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("pass^k and pass@k", () => {
  it.each<[string, number, number, number, number, number]>([
    // n = 3, c = 2: pass^1 = C(2,1)/C(3,1) = 2/3; pass@1 = 1 − C(1,1)/C(3,1) = 2/3
    ["2 of 3, k = 1", 2, 3, 1, 2 / 3, 2 / 3],
    // pass^2 = C(2,2)/C(3,2) = 1/3; pass@2 = 1 − C(1,2)/C(3,2) = 1 − 0 = 1
    ["2 of 3, k = 2", 2, 3, 2, 1 / 3, 1],
    // pass^3 = C(2,3)/C(3,3) = 0; pass@3 = 1
    ["2 of 3, k = 3", 2, 3, 3, 0, 1],
    // n = 15, c = 14: pass^2 = C(14,2)/C(15,2) = 91/105 = 13/15; pass@2 = 1 − C(1,2)/105 = 1
    ["14 of 15, k = 2", 14, 15, 2, 13 / 15, 1],
    // pass^14 = C(14,14)/C(15,14) = 1/15
    ["14 of 15, k = 14", 14, 15, 14, 1 / 15, 1],
    // n = 10, c = 5: pass^3 = C(5,3)/C(10,3) = 10/120; pass@3 = 1 − C(5,3)/C(10,3) = 110/120
    ["5 of 10, k = 3", 5, 10, 3, 10 / 120, 110 / 120],
    // n = 10, c = 9: pass^3 = C(9,3)/C(10,3) = 84/120 = 0.7
    ["9 of 10, k = 3", 9, 10, 3, 0.7, 1],
    // nothing passed: pass^k = 0 and pass@k = 1 − C(10,k)/C(10,k) = 0
    ["0 of 10, k = 4", 0, 10, 4, 0, 0],
    ["10 of 10, k = 10", 10, 10, 10, 1, 1],
  ])("%s", (_name, c, n, k, hat, at) => {
    expect(passHatK(c, n, k)).toBeCloseTo(hat, 12);
    expect(passAtK(c, n, k)).toBeCloseTo(at, 12);
  });

  it("lists k = 1..n", () => {
    // 2 of 3: the values above
    expect(perK(2, 3, passHatK)).toEqual({ "1": 2 / 3, "2": (2 / 3) * (1 / 2), "3": 0 });
    expect(perK(2, 3, passAtK)).toEqual({ "1": 1 - 1 / 3, "2": 1, "3": 1 });
  });

  it("refuses counts that are not a run", () => {
    expect(() => passHatK(4, 3, 1)).toThrow(RangeError);
    expect(() => passAtK(1, 3, 0)).toThrow(RangeError);
    expect(() => passAtK(1, 3, 4)).toThrow(RangeError);
    expect(() => passHatK(1.5, 3, 1)).toThrow(RangeError);
  });

  it("matches exact BigInt combinatorics for n up to 3000", () => {
    const counts = fc
      .integer({ min: 1, max: 3000 })
      .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: n })));
    fc.assert(
      fc.property(counts, ([n, c, k]) => {
        const den = binomial(n, k);
        const hat = ratioOf(binomial(c, k), den);
        const miss = ratioOf(binomial(n - c, k), den);
        const ours = passHatK(c, n, k);
        // A product of k ratios drifts by at most about k ulps; below 1e-290 only "tiny" matters.
        if (hat > 1e-290) expect(Math.abs(ours - hat) / hat).toBeLessThan(1e-12 + k * 4e-16);
        else expect(ours).toBeLessThan(1e-280);
        expect(Math.abs(passAtK(c, n, k) - (1 - miss))).toBeLessThan(1e-12);
        expect(binomialRatio(c, n, k)).toBe(ours);
      }),
      { numRuns: 60 },
    );
  });
});

describe("detection power", () => {
  it.each<[string, number, number, number]>([
    // seed 000: 1 − 0.9³ = 1 − 0.729 = 0.271
    ["3 runs, a 1-in-10 misfire", 0.1, 3, 0.271],
    // 1 − 0.9¹⁰ = 1 − 0.348678 = 0.651322
    ["10 runs, a 1-in-10 misfire", 0.1, 10, 0.6513215599],
    // 1 − 0.9²⁹ = 1 − 0.047101 = 0.952899
    ["29 runs, a 1-in-10 misfire", 0.1, 29, 0.9528987],
    // 1 − 0.9²⁸ = 1 − 0.052335 = 0.947665: one run short of 95%
    ["28 runs, a 1-in-10 misfire", 0.1, 28, 0.9476652],
    ["no misfire is never caught", 0, 100, 0],
    ["a certain misfire is caught by one run", 1, 1, 1],
    ["no runs catch nothing", 0.5, 0, 0],
  ])("%s", (_name, p, n, power) => {
    expect(detectionPower(p, n)).toBeCloseTo(power, 6);
  });

  it.each<[string, number, number | null]>([
    // ceil(log 0.05 / log 0.9) = ceil(−2.995732 / −0.105361) = ceil(28.43) = 29
    ["1 in 10", 0.1, 29],
    // ceil(−2.995732 / −0.010050) = ceil(298.07) = 299
    ["1 in 100", 0.01, 299],
    // ceil(−2.995732 / −0.693147) = ceil(4.32) = 5
    ["1 in 2", 0.5, 5],
    ["always", 1, 1],
    ["never", 0, null],
  ])("runs needed for 95%%: %s", (_name, p, runs) => {
    expect(runsNeeded(p)).toBe(runs);
  });

  it("runs needed is the smallest n with power >= the confidence, even where the logarithms land on an integer", () => {
    // 0.5 at 75%: log 0.25 / log 0.5 = 2 exactly in theory; 1 − 0.5² = 0.75 reaches it with 2.
    expect(runsNeeded(0.5, 0.75)).toBe(2);
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 0.999, noNaN: true }),
        fc.double({ min: 0.5, max: 0.999, noNaN: true }),
        (p, confidence) => {
          const n = runsNeeded(p, confidence);
          expect(n).not.toBeNull();
          if (n === null) return;
          expect(detectionPower(p, n)).toBeGreaterThanOrEqual(confidence);
          if (n > 1) expect(detectionPower(p, n - 1)).toBeLessThan(confidence);
        },
      ),
      { numRuns: 300 },
    );
  });
});
