/**
 * The repetitions of a scenario share one replay of its gold calls (core/evals/gold-replays.ts),
 * through gradeScenarioEndState with in-memory attempts whose port counts the fresh attempts it
 * sets up: repetitions of one setup replay once, whether they grade at once or one after another,
 * and each gets the grade it would have had alone; another setup or other calls replay again; a
 * replay that failed, or threw, is replayed by the next repetition; a dropped replay is replayed.
 */
import { describe, expect, it } from "vitest";
import type { EndStatePort, GoldAttempt } from "../../../src/core/evals/end-state-grade.js";
import { gradeScenarioEndState } from "../../../src/core/evals/end-state-grade.js";
import type { EndStateSpec } from "../../../src/core/evals/end-state-types.js";
import { GoldReplays } from "../../../src/core/evals/gold-replays.js";
import type { JsonObject } from "../../../src/core/json.js";
import { fakeAttempt } from "./scripted.js";

const START: JsonObject = { invoices: { "INV-1": { status: "approved" }, "INV-2": { status: "approved" } } };
const HOLD_1: EndStateSpec = { gold_calls: [{ function: "hold", arguments: { invoice_id: "INV-1" } }] };
const HOLD_2: EndStateSpec = { gold_calls: [{ function: "hold", arguments: { invoice_id: "INV-2" } }] };

/** An invoice system with state; `broken` makes every hold a harness error (a fixture that fails). */
function invoices(broken = false): { state: JsonObject; attempt: ReturnType<typeof fakeAttempt> } {
  const state = structuredClone(START);
  const table = state.invoices as Record<string, JsonObject>;
  return {
    state,
    attempt: fakeAttempt({
      hold: (args) => {
        if (broken) return { kind: "harness_error", message: "the fixture broke", recorded: true };
        const invoice = table[String(args.invoice_id)];
        if (!invoice) return { kind: "tool_input_error", message: "no such invoice", details: [] };
        invoice.status = "on_hold";
        return { kind: "result", result: { status: "on_hold" } };
      },
    }),
  };
}

/** Every fresh attempt the ports of one test set up, in order; `next` decides how the next one behaves. */
function goldAttempts() {
  const made: string[] = [];
  let next: "works" | "breaks" | "throws" = "works";
  return {
    made,
    breakNext(how: "breaks" | "throws") {
      next = how;
    },
    async make(): Promise<GoldAttempt> {
      const how = next;
      next = "works";
      if (how === "throws") throw new Error("the gold calls' attempt could not be reached");
      const world = invoices(how === "breaks");
      const attempt_id = `att_gold${made.length + 1}`;
      made.push(attempt_id);
      return { attempt_id, dispatcher: world.attempt.dispatcher, state: async () => structuredClone(world.state) };
    },
  };
}

/** One repetition's port: the agent left INV-1 on hold; its fresh attempts come from `golds`. */
function port(golds: ReturnType<typeof goldAttempts>, replays: GoldReplays | null, setup = "setup-a"): EndStatePort {
  const final = structuredClone(START);
  (final.invoices as Record<string, JsonObject>)["INV-1"] = { status: "on_hold" };
  return {
    async states() {
      return { ok: true, initial: structuredClone(START), final };
    },
    goldAttempt: () => golds.make(),
    ...(replays === null ? {} : { sharing: { setup, replays } }),
  };
}

describe("repetitions of one scenario", () => {
  it("grading at once, replay its gold calls once, and each is graded as it would be alone", async () => {
    const golds = goldAttempts();
    const replays = new GoldReplays(8);
    const graded = await Promise.all([1, 2, 3, 4].map(() => gradeScenarioEndState(HOLD_1, port(golds, replays))));
    expect(golds.made).toEqual(["att_gold1"]);

    const alone = await gradeScenarioEndState(HOLD_1, port(goldAttempts(), null));
    expect(alone).toMatchObject({ ok: true, result: { pass: true, gold_attempt_id: "att_gold1" } });
    expect(graded).toEqual([alone, alone, alone, alone]);
  });

  it("grading one after another, replay once too, and name the differing paths as alone", async () => {
    const golds = goldAttempts();
    const replays = new GoldReplays(8);
    const first = await gradeScenarioEndState(HOLD_2, port(golds, replays));
    const second = await gradeScenarioEndState(HOLD_2, port(golds, replays));
    expect(golds.made).toEqual(["att_gold1"]);
    const alone = await gradeScenarioEndState(HOLD_2, port(goldAttempts(), null));
    expect(first).toEqual(alone);
    expect(second).toEqual(alone);
    expect(alone).toMatchObject({
      ok: true,
      result: {
        pass: false,
        mismatches: [
          { path: "/invoices/INV-1/status", expected: "approved", actual: "on_hold" },
          { path: "/invoices/INV-2/status", expected: "on_hold", actual: "approved" },
        ],
      },
    });
  });

  it("replay again for another setup or other gold calls", async () => {
    const golds = goldAttempts();
    const replays = new GoldReplays(8);
    await gradeScenarioEndState(HOLD_1, port(golds, replays, "setup-a"));
    await gradeScenarioEndState(HOLD_1, port(golds, replays, "setup-b"));
    await gradeScenarioEndState(HOLD_2, port(golds, replays, "setup-a"));
    await gradeScenarioEndState(HOLD_1, port(golds, replays, "setup-b"));
    await gradeScenarioEndState(HOLD_2, port(golds, replays, "setup-a"));
    expect(golds.made).toEqual(["att_gold1", "att_gold2", "att_gold3"]);
    expect(replays.size).toBe(3);
  });

  it("without a place to share, replay on a fresh attempt each", async () => {
    const golds = goldAttempts();
    await gradeScenarioEndState(HOLD_1, port(golds, null));
    await gradeScenarioEndState(HOLD_1, port(golds, null));
    expect(golds.made).toEqual(["att_gold1", "att_gold2"]);
  });

  it("replay again after a replay that failed: a failure is never held as the expectation", async () => {
    const golds = goldAttempts();
    const replays = new GoldReplays(8);
    golds.breakNext("breaks");
    const broken = await gradeScenarioEndState(HOLD_1, port(golds, replays));
    expect(broken).toEqual({
      ok: false,
      harness_error:
        'gold call 1 of 1, hold({"invoice_id":"INV-1"}), did not replay on attempt att_gold1: a harness error: the fixture broke; the expected end state cannot be built (fix the scenario\'s gold calls)',
    });
    expect(replays.size).toBe(0);
    const next = await gradeScenarioEndState(HOLD_1, port(golds, replays));
    expect(next).toMatchObject({ ok: true, result: { pass: true, gold_attempt_id: "att_gold2" } });
    await gradeScenarioEndState(HOLD_1, port(golds, replays));
    expect(golds.made).toEqual(["att_gold1", "att_gold2"]);
  });

  it("replay again after a replay that threw, and those waiting on it share the throw", async () => {
    const golds = goldAttempts();
    const replays = new GoldReplays(8);
    golds.breakNext("throws");
    const waiting = await Promise.allSettled([1, 2].map(() => gradeScenarioEndState(HOLD_1, port(golds, replays))));
    expect(waiting.map((settled) => settled.status)).toEqual(["rejected", "rejected"]);
    expect(replays.size).toBe(0);
    const next = await gradeScenarioEndState(HOLD_1, port(golds, replays));
    expect(next).toMatchObject({ ok: true, result: { pass: true, gold_attempt_id: "att_gold1" } });
    expect(golds.made).toEqual(["att_gold1"]);
  });

  it("replay again once their replay was dropped for newer ones past the limit", async () => {
    const golds = goldAttempts();
    const replays = new GoldReplays(2);
    await gradeScenarioEndState(HOLD_1, port(golds, replays, "setup-a"));
    await gradeScenarioEndState(HOLD_1, port(golds, replays, "setup-b"));
    // Used again, so setup-b is now the least recently used and goes first.
    await gradeScenarioEndState(HOLD_1, port(golds, replays, "setup-a"));
    await gradeScenarioEndState(HOLD_1, port(golds, replays, "setup-c"));
    expect(replays.size).toBe(2);
    await gradeScenarioEndState(HOLD_1, port(golds, replays, "setup-a"));
    expect(golds.made).toEqual(["att_gold1", "att_gold2", "att_gold3"]);
    await gradeScenarioEndState(HOLD_1, port(golds, replays, "setup-b"));
    expect(golds.made).toEqual(["att_gold1", "att_gold2", "att_gold3", "att_gold4"]);
  });
});
