import { describe, expect, it } from "vitest";
import type { Clock } from "../../../src/core/ports.js";
import { parseDelayScale, waitSimulatedDelay } from "../../../src/core/simulation/delay.js";

/** A clock that records what it was asked to wait and advances instantly. */
function fakeClock(): Clock & { slept: number[] } {
  let now = 0;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}

describe("simulated delay", () => {
  it("waits delay_ms × scale on the injected clock", async () => {
    const clock = fakeClock();
    const waited = [
      await waitSimulatedDelay(250, 1, clock),
      await waitSimulatedDelay(250, 0.5, clock),
      await waitSimulatedDelay(250, 0, clock),
      await waitSimulatedDelay(0, 1, clock),
    ];
    // 250×1 = 250, 250×0.5 = 125, 250×0 = 0 and 0×1 = 0 (no sleep call for zero)
    expect({ waited, slept: clock.slept, now: clock.now() }).toEqual({
      waited: [250, 125, 0, 0],
      slept: [250, 125],
      now: 375,
    });
  });

  it.each([
    [undefined, 1],
    ["", 1],
    ["0", 0],
    ["0.25", 0.25],
    ["1", 1],
    ["2", 1],
    ["-1", 1],
    ["fast", 1],
  ])("DELAY_SCALE %j reads as %d", (raw, expected) => {
    expect(parseDelayScale(raw)).toBe(expected);
  });
});
