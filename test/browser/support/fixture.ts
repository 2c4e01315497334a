/**
 * The one fixture every dashboard page test shares: toolproof started as a newcomer starts it
 * (startDemo) and Debian's Chromium launched side by side before the file's tests, the file's own
 * data prepared once (runs, tools, policies...), both torn down after them; then a signed-in page
 * per viewport, and the phone walk every page family repeats (no sideways scroll, axe, screenshot).
 */
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, expect } from "vitest";
import { expectAccessible } from "./accessibility.js";
import { launchChromium, newContext } from "./chromium.js";
import { signIn } from "./dashboard.js";
import { screenshot } from "./screenshots.js";
import { type DemoToolproof, startDemo } from "./toolproof.js";

/** Starting the server, running the demo suite once or twice and launching the browser, on a busy 2-core machine. */
const SET_UP_MS = 240_000;

export interface DashboardFixture {
  /** The running toolproof (throws before beforeAll has run). */
  readonly demo: DemoToolproof;
  readonly browser: Browser;
  /** A fresh context at `size`, signed in with the demo key through the form. */
  signedIn(size: "laptop" | "phone"): Promise<{ context: BrowserContext; page: Page }>;
  /**
   * Signed in on a phone, each path: the page never scrolls sideways (wide tables and diffs
   * scroll in their own box), axe finds nothing serious, and a screenshot `<prefix>-<name>-phone`.
   */
  walkOnPhone(prefix: string, pages: ReadonlyArray<readonly [path: string, name: string]>): Promise<void>;
}

/** Registers the file's beforeAll/afterAll; `prepare` gives the demo its data before any test runs. */
export function dashboardFixture(prepare: (demo: DemoToolproof) => Promise<void> = async () => {}): DashboardFixture {
  let demo: DemoToolproof | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    [demo, browser] = await Promise.all([startDemo(), launchChromium()]);
    await prepare(demo);
  }, SET_UP_MS);
  afterAll(async () => {
    await browser?.close();
    await demo?.stop();
  });
  const fixture: DashboardFixture = {
    get demo() {
      if (!demo) throw new Error("the dashboard fixture is not started (use it inside a test)");
      return demo;
    },
    get browser() {
      if (!browser) throw new Error("the dashboard fixture is not started (use it inside a test)");
      return browser;
    },
    async signedIn(size) {
      const context = await newContext(fixture.browser, size);
      const page = await context.newPage();
      await signIn(page, fixture.demo.url, fixture.demo.key);
      return { context, page };
    },
    async walkOnPhone(prefix, pages) {
      const { context, page } = await fixture.signedIn("phone");
      for (const [path, name] of pages) {
        await page.goto(`${fixture.demo.url}${path}`);
        const overflow = await page.evaluate(
          "document.documentElement.scrollWidth - document.documentElement.clientWidth",
        );
        expect(overflow, `${path} scrolls sideways on a phone`).toBe(0);
        await expectAccessible(page);
        await screenshot(page, `${prefix}-${name}-phone`);
      }
      await context.close();
    },
  };
  return fixture;
}
