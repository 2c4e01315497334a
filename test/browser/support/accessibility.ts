/**
 * The accessibility check: axe-core (pinned) injected into the page, run against WCAG 2.x A/AA
 * rules; any violation of serious or critical impact fails with the rule, why and where.
 */
import axe from "axe-core";
import type { Page } from "playwright-core";
import { expect } from "vitest";

const AXE_OPTIONS = { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] } };

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/** The serious and critical violations on the page, as sentences (empty when there are none). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axe.source);
  // A string, evaluated in the page (where axe.source defined window.axe), so no DOM types are needed here.
  const violations: unknown = await page.evaluate(
    `axe.run(document, ${JSON.stringify(AXE_OPTIONS)}).then((result) => result.violations)`,
  );
  // SAFETY: axe-core's documented result shape.
  return (violations as Violation[])
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}${v.nodes[0]?.failureSummary ? ` (${v.nodes[0].failureSummary.replace(/\s+/g, " ")})` : ""}`,
    );
}

/** Fails the test with every serious or critical violation on the page, naming the page. */
export async function expectAccessible(page: Page): Promise<void> {
  expect(await seriousViolations(page), `axe on ${page.url()}`).toEqual([]);
}
