/**
 * The Runs pages' pure parts: chart scaling (never leaves the viewBox, whatever the numbers), the
 * SVG charts' marks and words, and the view models that word the scoring core's figures.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { passHatK, perK, wilsonInterval } from "../../../src/core/scoring/rates.js";
import { scenarioFigures } from "../../../src/core/scoring/figures.js";
import type { RepetitionVerdict } from "../../../src/core/scoring/repetition-verdict.js";
import { PassHatK, PASS_HAT_K_FRAME } from "../../../src/worker/dashboard/charts/pass-hat-k.js";
import { dateLabelIndexes, PassRateTrend, TREND_FRAME } from "../../../src/worker/dashboard/charts/pass-rate-trend.js";
import { ProgressBar, PROGRESS_FRAME, progressSegments } from "../../../src/worker/dashboard/charts/progress-bar.js";
import { bandCenter, bandWidth, type Frame, yOfCount, yOfRate } from "../../../src/worker/dashboard/charts/scale.js";
import { HISTOGRAM_FRAME, ScoreHistogram } from "../../../src/worker/dashboard/charts/score-histogram.js";
import {
  compareScenarios,
  detectionSentence,
  misfireWords,
  perKPoints,
  scenarioGrid,
  scoreCounts,
  type TrendMark,
  trendMark,
  type TrendPoint,
  verdictBadge,
} from "../../../src/worker/dashboard/runs/view-models.js";

const frames: Frame[] = [TREND_FRAME, HISTOGRAM_FRAME, PASS_HAT_K_FRAME];
const anyNumber = fc.oneof(
  fc.double(),
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.constantFrom(NaN, Infinity, -Infinity, 0, 1),
);

describe("chart scaling", () => {
  it("keeps every y inside the plot area, for any number", () => {
    fc.assert(
      fc.property(fc.constantFrom(...frames), anyNumber, anyNumber, (frame, value, max) => {
        for (const y of [yOfRate(frame, value), yOfCount(frame, value, max)]) {
          expect(y).toBeGreaterThanOrEqual(frame.top);
          expect(y).toBeLessThanOrEqual(frame.height - frame.bottom);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("keeps every band inside the plot area, for any index and count", () => {
    fc.assert(
      fc.property(fc.constantFrom(...frames), anyNumber, anyNumber, (frame, index, count) => {
        const x = bandCenter(frame, index, count);
        const half = bandWidth(frame, count) / 2;
        expect(x - half).toBeGreaterThanOrEqual(frame.left - 0.1);
        expect(x + half).toBeLessThanOrEqual(frame.width - frame.right + 0.1);
      }),
      { numRuns: 300 },
    );
    // The counterexample CI found: (index + 0.5) * width overflowed to Infinity.
    const frame = frames[0];
    if (frame)
      expect(bandCenter(frame, 3.1428201658432096e305, 3.1428201658432096e305)).toBeLessThanOrEqual(
        frame.width - frame.right,
      );
  });

  it("puts rate 1 at the top, 0 at the bottom, and bands in order", () => {
    const frame: Frame = { width: 640, height: 220, left: 44, right: 12, top: 12, bottom: 28 };
    expect([yOfRate(frame, 1), yOfRate(frame, 0), yOfRate(frame, 0.5)]).toEqual([12, 192, 102]);
    expect([0, 1, 2, 3].map((i) => bandCenter(frame, i, 4))).toEqual([117, 263, 409, 555]);
  });
});

/** Every coordinate attribute and path point of an SVG's markup. */
function coordinates(svg: string): { xs: number[]; ys: number[] } {
  const xs: number[] = [];
  const ys: number[] = [];
  for (const [, name, value] of svg.matchAll(/\s(x|x1|x2|cx|y|y1|y2|cy)="(-?[\d.]+)"/g))
    (name?.startsWith("x") || name === "cx" ? xs : ys).push(Number(value));
  for (const [, d] of svg.matchAll(/\sd="([^"]*)"/g)) {
    for (const [, x, y] of (d ?? "").matchAll(/[ML](-?[\d.]+),(-?[\d.]+)/g)) {
      xs.push(Number(x));
      ys.push(Number(y));
    }
  }
  return { xs, ys };
}

function expectInside(svg: string, frame: Frame): void {
  const { xs, ys } = coordinates(svg);
  expect(xs.length).toBeGreaterThan(0);
  for (const x of xs) expect(x >= 0 && x <= frame.width, `x ${x} in 0..${frame.width}`).toBe(true);
  for (const y of ys) expect(y >= 0 && y <= frame.height, `y ${y} in 0..${frame.height}`).toBe(true);
  expect(svg).not.toContain("NaN");
}

const rate = fc.oneof(fc.double({ min: -2, max: 3 }), fc.constantFrom(NaN, 0, 1));
const trendPoint: fc.Arbitrary<TrendPoint> = fc.record({
  run_id: fc.constantFrom("run_a", "run_b"),
  name: fc.string({ maxLength: 12 }),
  created_at: fc.constantFrom("2026-12-03T16:40:00.000Z", "not a date"),
  pass_rate: rate,
  interval: fc.option(fc.record({ low: rate, high: rate }), { nil: null }),
  gate: rate,
  verdict: fc.constantFrom({ word: "Pass", tone: "pass" as const }, { word: "Fail", tone: "fail" as const }),
  mark: fc.constantFrom<TrendMark>("pass", "fail", "uncalibrated", "pending", "unmeasured"),
});

describe("charts", () => {
  it("the pass-rate trend stays inside its viewBox for any runs", () => {
    fc.assert(
      fc.property(fc.array(trendPoint, { maxLength: 25 }), (points) => {
        expectInside(String(PassRateTrend({ suite: "s", points })), TREND_FRAME);
      }),
      { numRuns: 100 },
    );
  });

  it("the histogram and pass^k stay inside their viewBoxes for any counts", () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 100_000 }), { minLength: 5, maxLength: 5 }),
        fc.array(rate, { maxLength: 40 }),
        (counts, values) => {
          const scores = { counts: counts as [number, number, number, number, number], unscored: 0, pending: 0 };
          expectInside(String(ScoreHistogram({ scores })), HISTOGRAM_FRAME);
          expectInside(String(PassHatK({ points: values.map((value, i) => ({ k: i + 1, value })) })), PASS_HAT_K_FRAME);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("the trend names each run's rate, interval, gate and verdict in words", () => {
    const svg = String(
      PassRateTrend({
        suite: "invoicedesk",
        points: [
          {
            run_id: "run_1",
            name: "baseline",
            created_at: "2026-12-01T09:05:00.000Z",
            pass_rate: 1,
            interval: wilsonInterval(15, 15),
            gate: 0.9,
            verdict: { word: "Pass", tone: "pass" },
            mark: "pass",
          },
          {
            run_id: "run_2",
            name: "candidate",
            created_at: "2026-12-03T16:40:00.000Z",
            pass_rate: 0.6,
            interval: wilsonInterval(9, 15),
            gate: 0.9,
            verdict: { word: "Fail", tone: "fail" },
            mark: "fail",
          },
        ],
      }),
    );
    expect(svg).toContain('<title id="trend-invoicedesk-t">Pass rate of suite invoicedesk over its last runs</title>');
    expect(svg).toContain("2 runs, the latest at 60.0% against a gate of 90.0%.");
    expect(svg).toContain("<title>baseline: 100.0% (95% interval 79.6%–100.0%), gate 90.0%, verdict Pass</title>");
    expect(svg).toContain("<title>candidate: 60.0% (95% interval 35.7%–80.2%), gate 90.0%, verdict Fail</title>");
    expect(svg).toContain("gate 90.0%");
    // The x axis names each run's date, not only "oldest" and "newest".
    expect([...svg.matchAll(/<text class="date"[^>]*>([^<]*)<\/text>/g)].map(([, d]) => d)).toEqual([
      "12-01 09:05",
      "12-03 16:40",
    ]);
  });

  it("writes the gate's label in the right margin, clear of the newest run's whisker", () => {
    const interval = wilsonInterval(9, 10);
    const svg = String(
      PassRateTrend({
        suite: "s",
        points: [
          {
            run_id: "r",
            name: "r",
            created_at: "2026-12-03T16:40:00.000Z",
            pass_rate: 0.9,
            interval,
            gate: 0.9,
            verdict: { word: "Pass", tone: "pass" },
            mark: "pass",
          },
        ],
      }),
    );
    const label = /<text class="gate-label" x="([\d.]+)"[^>]*text-anchor="start">gate 90.0%<\/text>/.exec(svg);
    expect(Number(label?.[1])).toBeGreaterThan(TREND_FRAME.width - TREND_FRAME.right);
    const whiskerX = Number(/<line class="whisker" x1="([\d.]+)"/.exec(svg)?.[1]);
    expect(whiskerX).toBeLessThan(TREND_FRAME.width - TREND_FRAME.right);
  });

  it("draws an uncalibrated run as a diamond and a run that measured nothing as a cross on the axis, without a whisker", () => {
    const point = (mark: TrendMark, pass_rate: number): TrendPoint => ({
      run_id: mark,
      name: mark,
      created_at: "2026-12-03T16:40:00.000Z",
      pass_rate,
      interval: wilsonInterval(Math.round(pass_rate * 5), 5),
      gate: 0.9,
      verdict: { word: mark, tone: "warn" },
      mark,
    });
    const svg = String(PassRateTrend({ suite: "s", points: [point("uncalibrated", 1), point("unmeasured", 0)] }));
    const groups = [...svg.matchAll(/<g class="point ([^"]*)" data-mark="(\w+)">([\s\S]*?)<\/g>/g)].map(
      ([, , mark, inner]) => ({
        mark,
        whisker: inner?.includes("whisker"),
        shape: /<(circle|rect|path) class="(\w+)"|<(circle|rect)/
          .exec(inner ?? "")
          ?.slice(1)
          .filter(Boolean)
          .join(" "),
      }),
    );
    expect(groups).toEqual([
      { mark: "uncalibrated", whisker: true, shape: "path diamond" },
      { mark: "unmeasured", whisker: false, shape: "path cross" },
    ]);
    expect(svg).toContain(
      "<title>unmeasured: nothing measured (every repetition ended in an error), gate 90.0%, verdict unmeasured</title>",
    );
    expect(svg).toContain("the latest measured nothing (every repetition errored) against a gate of 90.0%.");
  });

  it("marks each run by what it was: an uncalibrated run is not a failed one, an all-errored one measured nothing", () => {
    const run = { runs: 5, errors: 0, hard_fail: false };
    expect([
      trendMark({ ...run, verdict: "pass" }),
      trendMark({ ...run, verdict: "fail" }),
      trendMark({ ...run, verdict: "uncalibrated" }),
      trendMark({ ...run, verdict: null }),
      trendMark({ ...run, verdict: "error", errors: 5 }),
      trendMark({ ...run, verdict: "error", errors: 2 }),
    ]).toEqual(["pass", "fail", "uncalibrated", "pending", "unmeasured", "fail"]);
  });

  it("labels at most eight dates, the first and the last among them", () => {
    expect([dateLabelIndexes(0), dateLabelIndexes(3), dateLabelIndexes(20)]).toEqual([
      [],
      [0, 1, 2],
      [0, 3, 5, 8, 11, 14, 16, 19],
    ]);
  });

  it("splits the progress bar into passed, failed, errors and not reported, never past the total", () => {
    expect(
      progressSegments({ passed: 80, failed: 15, errors: 5, total: 300 }).map((s) => `${s.kind} ${s.count}`),
    ).toEqual(["passed 80", "failed 15", "errors 5", "pending 200"]);
    fc.assert(
      fc.property(anyNumber, anyNumber, anyNumber, fc.nat({ max: 100_000 }), (passed, failed, errors, total) => {
        const segments = progressSegments({ passed, failed, errors, total });
        expect(segments.reduce((sum, s) => sum + s.count, 0)).toBe(total);
        for (const s of segments) expect(s.count).toBeGreaterThanOrEqual(0);
        expectInside(String(ProgressBar({ counts: { passed, failed, errors, total }, label: "p" })), PROGRESS_FRAME);
      }),
      { numRuns: 200 },
    );
  });

  it("the histogram labels each bar with its count", () => {
    const svg = String(ScoreHistogram({ scores: { counts: [0, 1, 0, 3, 8], unscored: 2, pending: 0 } }));
    expect([...svg.matchAll(/data-score="(\d)" data-count="(\d+)"/g)].map(([, s, c]) => `${s}:${c}`)).toEqual([
      "1:0",
      "2:1",
      "3:0",
      "4:3",
      "5:8",
    ]);
    expect(svg).toContain(
      "Repetitions per judge score: score 1: 0, score 2: 1, score 3: 0, score 4: 3, score 5: 8; 2 decided without a score.",
    );
  });
});

function verdict(outcome: RepetitionVerdict["outcome"], extra: Partial<RepetitionVerdict> = {}): RepetitionVerdict {
  return {
    outcome,
    pass: outcome === "pass",
    reason: "r",
    cause: outcome === "pass" ? "judge_score" : "selection",
    hard_fail: false,
    forbidden_calls: [],
    judge_decided: false,
    ...extra,
  };
}

function scenario(id: string, outcomes: Array<RepetitionVerdict["outcome"]>, forbidden = 0) {
  return scenarioFigures({
    id,
    repetitions: outcomes.map((o, i) => ({
      repetition: i + 1,
      verdict: verdict(
        o,
        i < forbidden
          ? { forbidden_calls: [{ function: "hold", arguments: {}, call_id: null, proposed: false } as never] }
          : {},
      ),
    })),
  });
}

describe("view models", () => {
  it("says each verdict in words", () => {
    expect([
      verdictBadge({ status: "finished", verdict: "pass", hard_fail: false }),
      verdictBadge({ status: "finished", verdict: "fail", hard_fail: true }),
      verdictBadge({ status: "finished", verdict: "fail", hard_fail: false }),
      verdictBadge({ status: "finished", verdict: "error", hard_fail: false }),
      verdictBadge({ status: "running", verdict: null, hard_fail: false }),
    ]).toEqual([
      { word: "Pass", tone: "pass" },
      { word: "Fail: hard fail", tone: "fail" },
      { word: "Fail", tone: "fail" },
      { word: "Error", tone: "warn" },
      { word: "No verdict yet (running)", tone: "neutral" },
    ]);
  });

  it("puts hard fails first in the grid, then errors, then the suite's order", () => {
    const grid = scenarioGrid([
      scenario("a", ["pass", "pass"]),
      scenario("b", ["pass", "error"]),
      scenario("c", ["fail", "pass"], 1),
      scenario("d", ["pass", "fail"]),
    ]);
    expect(grid.map((row) => [row.id, row.k_of_n, row.hard_fail, row.forbidden_calls])).toEqual([
      ["c", "1/2", true, 1],
      ["b", "1/2", false, 0],
      ["a", "2/2", false, 0],
      ["d", "1/2", false, 0],
    ]);
  });

  it("marks the scenario that got worse and the one that got better, in words, worse first", () => {
    const baseline = [
      scenario("lookup", ["pass", "pass", "pass"]),
      scenario("refusal", ["fail", "fail", "pass"]),
      scenario("hold", ["pass"]),
      scenario("old", ["pass"]),
    ];
    const current = [
      scenario("lookup", ["pass", "fail", "fail"]),
      scenario("refusal", ["pass", "pass", "pass"]),
      scenario("hold", ["pass"], 1),
      scenario("new", ["pass"]),
    ];
    expect(compareScenarios(current, baseline).map((row) => [row.id, row.change, row.words])).toEqual([
      ["lookup", "worse", "▼ worse: 100.0% → 33.3%, -66.7 points (intervals overlap: may be noise)"],
      ["hold", "worse", "▼ worse: forbidden calls 0 → 1"],
      ["refusal", "better", "▲ better: 33.3% → 100.0%, +66.7 points (intervals overlap: may be noise)"],
      ["new", "new", "+ new in this run"],
      ["old", "gone", "– not in this run"],
    ]);
  });

  it("says a change is beyond noise when the intervals do not overlap", () => {
    const many = (passes: number) =>
      Array.from({ length: 40 }, (_, i) => (i < passes ? ("pass" as const) : ("fail" as const)));
    const [row] = compareScenarios([scenario("s", many(10))], [scenario("s", many(40))]);
    expect(row?.words).toBe("▼ worse: 100.0% → 25.0%, -75 points");
  });

  it("words detection power as the issue does, from the run's own figures", () => {
    const scenarios = [scenario("a", ["pass", "pass", "pass"]), scenario("b", ["pass", "pass", "pass"])];
    const ended = { status: "finished", errors: 0 };
    expect(
      detectionSentence({
        ...ended,
        detection_power: 1 - 0.9 ** 3,
        misfire_rate: 0.1,
        runs_needed_95: 29,
        scenarios,
        runs: 6,
      }),
    ).toBe(
      "With 3 repetitions per scenario, this run had a 27.1% chance to catch a 1-in-10 misfire; 29 runs per scenario would give 95%.",
    );
    expect(
      detectionSentence({
        ...ended,
        detection_power: null,
        misfire_rate: null,
        runs_needed_95: null,
        scenarios: [],
        runs: 0,
      }),
    ).toBeNull();
    // Nothing finished yet: no "0.0% chance" that would read as a finding about the agent.
    expect(
      detectionSentence({
        ...ended,
        detection_power: 0,
        misfire_rate: 0.1,
        runs_needed_95: 29,
        scenarios: [scenario("a", [])],
        runs: 0,
      }),
    ).toBeNull();
    // Still running (a scenario has 0 finished so far), or every repetition errored: no figure either.
    expect(
      detectionSentence({
        ...ended,
        status: "running",
        detection_power: 0,
        misfire_rate: 0.1,
        runs_needed_95: 29,
        scenarios: [...scenarios, scenario("c", [])],
        runs: 6,
      }),
    ).toBeNull();
    // Cancelled with a scenario that never ran: no "0 repetitions per scenario, a 0.0% chance".
    expect(
      detectionSentence({
        ...ended,
        status: "cancelled",
        detection_power: 0,
        misfire_rate: 0.1,
        runs_needed_95: 29,
        scenarios: [...scenarios, scenario("c", [])],
        runs: 6,
      }),
    ).toBeNull();
    expect(
      detectionSentence({
        status: "finished",
        errors: 6,
        detection_power: 1 - 0.9 ** 3,
        misfire_rate: 0.1,
        runs_needed_95: 29,
        scenarios,
        runs: 6,
      }),
    ).toBeNull();
    expect([misfireWords(0.1), misfireWords(0.25), misfireWords(0.03)]).toEqual([
      "a 1-in-10 misfire",
      "a 1-in-4 misfire",
      "a misfire rate of 3.0%",
    ]);
  });

  it("counts judge scores and orders pass^k by k", () => {
    const record = (score?: number) =>
      ({ verdict: score === undefined ? verdict("fail") : verdict("pass", { score }) }) as never;
    expect(scoreCounts([record(5), record(5), record(4), record(), null, record(1)])).toEqual({
      counts: [1, 0, 0, 1, 2],
      unscored: 1,
      pending: 1,
    });
    const values = perK(2, 3, passHatK);
    expect(perKPoints({ "3": values["3"] ?? -1, "1": values["1"] ?? -1, "2": values["2"] ?? -1 })).toEqual([
      { k: 1, value: 2 / 3 },
      { k: 2, value: 1 / 3 },
      { k: 3, value: 0 },
    ]);
  });
});
