/** The run coordinator's watchdog decisions (runs/coordinator/watchdog.ts), over slots built here. */
import { describe, expect, it } from "vitest";
import { MAX_SENDS } from "../../../../src/worker/runs/coordinator/lifetimes.js";
import { nextWakeAt, watchdogPlan } from "../../../../src/worker/runs/coordinator/watchdog.js";
import { slot } from "./slots.js";

const TIMEOUT = 1_000;

describe("the watchdog's plan", () => {
  it("resends what went quiet, gives up after MAX_SENDS, and leaves what is still in time alone", () => {
    const quiet = slot(1, { claimed_at: 100 });
    const exhausted = slot(2, { sends: MAX_SENDS, sent_at: 50 });
    const fresh = slot(3, { claimed_at: 900 });
    expect(watchdogPlan([quiet, exhausted, fresh], 1_500, TIMEOUT)).toEqual({
      late: [],
      giveUp: [exhausted],
      resend: [quiet],
    });
  });

  it("times out an external agent past its job's deadline and sends it again, but never an agent still in time", () => {
    const late = slot(1, { job_deadline: 1_000 });
    const working = slot(2, { job_deadline: 5_000, sent_at: 0 });
    const completed = slot(3, { job_deadline: 1_000, completed_at: 800, claimed_at: 100 });
    expect(watchdogPlan([late, working, completed], 2_000, TIMEOUT)).toEqual({
      late: [late],
      giveUp: [],
      resend: [late, completed],
    });
  });

  it("wakes at the oldest repetition's timeout, an agent's job deadline, or the run's deadline, whichever is first", () => {
    expect(nextWakeAt([slot(1, { claimed_at: 300 }), slot(2, { sent_at: 200 })], 10_000, TIMEOUT)).toBe(1_200);
    expect(nextWakeAt([slot(1, { job_deadline: 4_000 })], 10_000, TIMEOUT)).toBe(4_000);
    expect(nextWakeAt([slot(1, { claimed_at: 300 })], 700, TIMEOUT)).toBe(700);
    expect(nextWakeAt([], 700, TIMEOUT)).toBe(700);
  });
});
