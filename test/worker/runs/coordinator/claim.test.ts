/** Whether a delivery may claim a repetition (runs/coordinator/claim.ts claimRefusal), over slots built here. */
import { describe, expect, it } from "vitest";
import { claimRefusal } from "../../../../src/worker/runs/coordinator/claim.js";
import { slot } from "./slots.js";

const TIMEOUT = 1_000;
const NOW = 10_000;

describe("a delivery's claim", () => {
  it("is taken for a repetition nobody holds, and again once a claim has gone quiet for the repetition timeout", () => {
    expect([
      claimRefusal(slot(1), NOW, TIMEOUT),
      claimRefusal(slot(2, { claims: 1, claimed_at: NOW - TIMEOUT }), NOW, TIMEOUT),
    ]).toEqual([null, null]);
  });

  it("is refused as busy while another delivery's claim is younger than the repetition timeout", () => {
    expect([
      claimRefusal(slot(1, { claims: 1, claimed_at: NOW }), NOW, TIMEOUT),
      claimRefusal(slot(2, { claims: 1, claimed_at: NOW - TIMEOUT + 1 }), NOW, TIMEOUT),
    ]).toEqual([{ kind: "busy" }, { kind: "busy" }]);
  });

  it("is refused as done once the repetition has its record, whatever else the slot says", () => {
    const record = "{}";
    expect([
      claimRefusal(slot(1, { record }), NOW, TIMEOUT),
      claimRefusal(slot(2, { record, claims: 1, claimed_at: NOW }), NOW, TIMEOUT),
      claimRefusal(slot(3, { record, job_deadline: NOW + 5_000 }), NOW, TIMEOUT),
    ]).toEqual([{ kind: "done" }, { kind: "done" }, { kind: "done" }]);
  });

  it("is refused as busy while an external agent has its job, however old the claim that sent it", () => {
    const sent = { claims: 1, claimed_at: 0, job_deadline: NOW + 60_000 };
    expect([
      claimRefusal(slot(1, sent), NOW, TIMEOUT),
      // Completed or timed out: the agent is done, and a delivery may take the repetition to score it.
      claimRefusal(slot(2, { ...sent, completed_at: NOW - 1 }), NOW, TIMEOUT),
      claimRefusal(slot(3, { ...sent, timed_out_at: NOW - 1 }), NOW, TIMEOUT),
    ]).toEqual([{ kind: "busy" }, null, null]);
  });
});
