/**
 * The dashboard in a real browser: toolproof started as a newcomer starts it (demo data, the
 * demo suite run against the local model server), signed in with the printed key through the
 * form, then the Tools, Policies and Judges pages read as a person reads them: a stale badge, a
 * revision diff, a policy diff, a calibration figure (checked against the API's), links followed,
 * axe-core with no serious or critical violation, the keyboard's first stop, and full-page
 * screenshots at laptop and phone sizes in test/browser/screenshots/.
 */
import { describe, expect, it } from "vitest";
import policy from "../../examples/policy/policy.json" with { type: "json" };
import { expectAccessible } from "./support/accessibility.js";
import { newContext } from "./support/chromium.js";
import { mainText, signIn, tableRows } from "./support/dashboard.js";
import { dashboardFixture } from "./support/fixture.js";
import { screenshot } from "./support/screenshots.js";
import { field } from "./support/toolproof.js";

let calibration: { kappa: number | null; pass_fail_agreement: number | null; labels: number };

interface ToolView {
  id: string;
  name: string;
  operations: Array<{ operation_id: string; description: string; contract_hash: string }>;
}

const dashboard = dashboardFixture(async (demo) => {
  // The README's first eval run, then hand labels for its five repetitions: the Judges page has figures to show.
  const runId = await demo.runDemoSuite(1);
  const labels = [1, 2, 3, 4, 5].map((n) => ({ repetition: n, label: n === 2 ? "fail" : "pass" }));
  await demo.api("POST", `/api/runs/${runId}/labels`, { labels });
  const api = await demo.api("GET", "/api/suites/invoicedesk/calibration");
  // SAFETY: the documented calibration answer; the current judge is first.
  calibration = (api as { judges: Array<typeof calibration> }).judges[0] as typeof calibration;

  // SAFETY: the documented list answer of GET /api/tools.
  const tools = (field(await demo.api("GET", "/api/tools"), "items") as ToolView[]) ?? [];
  const invoices = tools.find((t) => t.name === "invoices");
  const appointments = tools.find((t) => t.name === "appointments");
  if (!invoices || !appointments) throw new Error(`the demo tools are missing: ${tools.map((t) => t.name).join(", ")}`);
  // Revision 2 of get_invoice says "not found" in other words: a diff to read.
  const revisions = field(
    await demo.api("GET", `/api/tools/${invoices.id}/operations/get_invoice/revisions`),
    "items",
  ) as Array<{ definition: unknown }>;
  const reworded = JSON.parse(
    JSON.stringify(revisions[0]?.definition).replaceAll(
      "No invoice found with this id.",
      "There is no invoice with this id.",
    ),
  );
  const getInvoice = invoices.operations.find((op) => op.operation_id === "get_invoice");
  await demo.api(
    "POST",
    `/api/tools/${invoices.id}/testing`,
    { action: "save", operation_id: "get_invoice", contract_hash: getInvoice?.contract_hash, definition: reworded },
    201,
  );
  // A changed operation description changes the appointments contract: its saved mock goes stale.
  const full = (await demo.api("GET", `/api/tools/${appointments.id}`)) as ToolView;
  const [first, ...rest] = full.operations;
  if (!first) throw new Error("the appointments tool has no operation");
  await demo.api("PUT", `/api/tools/${appointments.id}`, {
    ...full,
    operations: [{ ...first, description: `${first.description} Times are local to the clinic.` }, ...rest],
  });
  await demo.api("PUT", "/api/policies/invoice-desk", policy);
  await demo.api("PUT", "/api/policies/invoice-desk", { ...policy, min_description_length: 10 });
});

describe("the dashboard in Chromium", () => {
  it("signs in with the printed key and walks the Tools, Policies and Judges pages", { timeout: 180_000 }, async () => {
    const demo = dashboard.demo;
    const context = await newContext(dashboard.browser, "laptop");
    const page = await context.newPage();
    await page.goto(demo.url);
    await expectAccessible(page);
    await screenshot(page, "dashboard-sign-in-laptop");
    await signIn(page, demo.url, demo.key);

    // Signed in, the home is the Runs page; Tools is a link away. The stale appointments mock is marked in words.
    expect(new URL(page.url()).pathname).toBe("/runs");
    await page.getByRole("link", { name: "Tools", exact: true }).click();
    expect(new URL(page.url()).pathname).toBe("/tools");
    const rows = await tableRows(page, "Operations by tool");
    expect(rows.map((row) => row.replace(/ \| [0-9a-f]{12}$/, " | HASH"))).toEqual([
      "Tool | Operation | Mock | Latest revision | Contract hash",
      "appointments | book_appointment | Stale | Revision 1 | HASH",
      "invoices | get_invoice | Current | Revision 2 | HASH",
      "invoices | place_invoice_on_hold | Current | Revision 1 | HASH",
    ]);
    expect(await mainText(page)).toContain("1 operation has a stale mock.");
    await expectAccessible(page);
    await screenshot(page, "dashboard-tools-laptop");

    // The keyboard's first stop is the skip link, and it shows a focus ring.
    await page.keyboard.press("Tab");
    expect(
      await page.evaluate(
        "[document.activeElement.textContent.trim(), getComputedStyle(document.activeElement).outlineStyle]",
      ),
    ).toEqual(["Skip to content", "solid"]);

    // A tool, the compare form, the diff between its two revisions.
    await page.getByRole("link", { name: "invoices", exact: true }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("invoices");
    await page.getByLabel("Compare").first().selectOption("1");
    await page.getByLabel("with").first().selectOption("2");
    await page.getByRole("button", { name: "Show the diff" }).first().click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("get_invoice: revision 1 → revision 2");
    expect(await mainText(page)).toContain("4 lines added, 4 lines removed (from revision 1 to revision 2).");
    const changed = async (kind: string) =>
      (await page.locator(`.diff .${kind}`).allInnerTexts()).map((line) => line.replace(/\s+/g, " "));
    expect(await changed("removed")).toEqual(Array(4).fill('− "message": "No invoice found with this id."'));
    expect(await changed("added")).toEqual(Array(4).fill('+ "message": "There is no invoice with this id."'));
    await expectAccessible(page);
    await screenshot(page, "dashboard-tool-diff-laptop");
    await page.getByRole("link", { name: "Revision 1" }).click();
    expect(await mainText(page)).toContain("get_invoice, revision 1 Current");
    await expectAccessible(page);
    await screenshot(page, "dashboard-tool-revision-laptop");

    // Policies: versions, then the diff link.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Policies" }).click();
    await page.getByRole("link", { name: "invoice-desk" }).click();
    expect(await tableRows(page, "Versions of invoice-desk, newest first")).toHaveLength(3);
    await expectAccessible(page);
    await screenshot(page, "dashboard-policy-laptop");
    await page.getByRole("link", { name: "Diff with version 1" }).click();
    expect(await page.locator(".diff .removed, .diff .added").allInnerTexts()).toEqual([
      `−   "min_description_length": ${policy.min_description_length},`,
      '+   "min_description_length": 10,',
    ]);
    await expectAccessible(page);
    await screenshot(page, "dashboard-policy-diff-laptop");

    // Judges: the figures are the calibration route's.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Judges" }).click();
    const judgeRow = (await tableRows(page, "Current judge of each suite")).find((row) =>
      row.startsWith("invoicedesk"),
    );
    const kappa = calibration.kappa === null ? "—" : calibration.kappa.toFixed(2);
    const agreement =
      calibration.pass_fail_agreement === null
        ? "—"
        : `${(Math.round(calibration.pass_fail_agreement * 1000) / 10).toFixed(1)}%`;
    expect(judgeRow?.split(" | ").slice(2, 5)).toEqual([String(calibration.labels), kappa, agreement]);
    await page.getByRole("link", { name: "invoicedesk" }).click();
    expect(await mainText(page)).toContain(`Current judge Kappa ${kappa} Pass/fail agreement ${agreement}`);
    expect(await page.locator("figure.chart svg[role=img]").count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, "dashboard-judge-laptop");

    // Signing out ends the session: the pages lead back to the form.
    await page.getByRole("button", { name: "Sign out" }).click();
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await page.goto(`${demo.url}/tools`);
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await context.close();
  });

  it("fits a phone's width and stays accessible there", { timeout: 120_000 }, async () => {
    await dashboard.walkOnPhone("dashboard", [
      ["/tools", "tools"],
      ["/judges/invoicedesk", "judge"],
      ["/policies/invoice-desk/diff?from=1&to=2", "policy-diff"],
    ]);
  });
});
