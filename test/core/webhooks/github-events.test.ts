/**
 * GitHub event filters and what a delivery's payload says about its source: the decision is the
 * filter's definition (some entry names the event, and its actions and states, when listed,
 * include the delivery's), checked against random filters and sources; the commit and ref are
 * read where GitHub puts them for each event.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  filterDecision,
  githubSource,
  type GithubEventFilter,
  type GithubSource,
} from "../../../src/core/webhooks/github-events.js";

const nameArb = fc.constantFrom("push", "pull_request", "deployment_status", "issues");
const wordArb = fc.constantFrom("opened", "synchronize", "closed", "success", "failure");
const entryArb: fc.Arbitrary<GithubEventFilter> = fc.record(
  {
    event: nameArb,
    actions: fc.array(wordArb, { minLength: 1, maxLength: 3 }),
    states: fc.array(wordArb, { minLength: 1, maxLength: 3 }),
  },
  { requiredKeys: ["event"] },
);
const sourceArb: fc.Arbitrary<GithubSource> = fc.record(
  { event: nameArb, action: wordArb, state: wordArb },
  { requiredKeys: ["event"] },
);

describe("filterDecision", () => {
  it("takes a delivery exactly when one entry names its event and lists (or leaves open) its action and state", () => {
    fc.assert(
      fc.property(fc.array(entryArb, { maxLength: 4 }), sourceArb, (filter, source) => {
        const expected = filter.some(
          (entry) =>
            entry.event === source.event &&
            (entry.actions === undefined || (source.action !== undefined && entry.actions.includes(source.action))) &&
            (entry.states === undefined || (source.state !== undefined && entry.states.includes(source.state))),
        );
        const decision = filterDecision(filter, source);
        expect(decision.take).toBe(expected);
        if (!decision.take) expect(decision.reason).toContain(source.event);
      }),
      { numRuns: 300 },
    );
  });

  it("says why in words", () => {
    const filter = [
      { event: "pull_request", actions: ["opened"] },
      { event: "deployment_status", states: ["success"] },
    ];
    expect(filterDecision(filter, { event: "push" })).toEqual({
      take: false,
      reason: "the event push is not in the webhook's filter (pull_request, deployment_status)",
    });
    expect(filterDecision(filter, { event: "pull_request", action: "closed" })).toEqual({
      take: false,
      reason: "pull_request: action closed is not one of opened",
    });
    expect(filterDecision(filter, { event: "deployment_status" })).toEqual({
      take: false,
      reason: "deployment_status: state (none) is not one of success",
    });
    expect(filterDecision([], { event: "push" })).toEqual({
      take: false,
      reason: "the event push is not in the webhook's filter (none)",
    });
  });
});

describe("githubSource", () => {
  const repository = { full_name: "contoso/agent" };
  it("reads the commit and ref where each event carries them", () => {
    expect(
      githubSource("deployment_status", {
        deployment_status: { state: "success" },
        deployment: { sha: "abc", ref: "main" },
        repository,
      }),
    ).toEqual({
      event: "deployment_status",
      state: "success",
      commit: "abc",
      ref: "main",
      repository: "contoso/agent",
    });
    expect(
      githubSource("pull_request", {
        action: "opened",
        pull_request: { head: { sha: "def", ref: "feature" } },
        repository,
      }),
    ).toEqual({
      event: "pull_request",
      action: "opened",
      commit: "def",
      ref: "feature",
      repository: "contoso/agent",
    });
    expect(githubSource("push", { ref: "refs/heads/main", after: "123", repository })).toEqual({
      event: "push",
      commit: "123",
      ref: "refs/heads/main",
      repository: "contoso/agent",
    });
    expect(
      githubSource("workflow_run", { action: "completed", workflow_run: { head_sha: "456", head_branch: "main" } }),
    ).toEqual({ event: "workflow_run", action: "completed", commit: "456", ref: "main" });
  });

  it("leaves out what a payload does not carry, or carries as something other than text", () => {
    expect(githubSource("pull_request", { action: 3, pull_request: null })).toEqual({ event: "pull_request" });
    expect(githubSource("push", [1, 2])).toEqual({ event: "push" });
    expect(githubSource("issues", "text")).toEqual({ event: "issues" });
  });
});
