/**
 * The harness itself: the browser is Debian's Chromium of the major version playwright-core 1.64.1
 * was built for, and the accessibility check does find violations (so an empty list means something).
 */
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousViolations } from "./support/accessibility.js";
import { launchChromium, newContext } from "./support/chromium.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe("the browser-test harness", () => {
  it("drives Chromium 156, the build playwright-core 1.64.1 expects", () => {
    expect(browser.version().split(".")[0]).toBe("156");
  });

  it("fails, saying how to install it, when the browser is missing", async () => {
    await expect(launchChromium("/nonexistent/chromium")).rejects.toThrow(
      "the browser tests need Debian's Chromium at /nonexistent/chromium, which is missing: install it with\n  apt-get install -y --no-install-recommends chromium fonts-liberation\n(.ci/run does this itself)",
    );
  });

  it("reports an image without text and an unlabelled field as critical violations", async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    await page.setContent(
      '<!doctype html><html lang="en"><head><title>broken</title></head><body><main><h1>Broken</h1><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><input type="text"></main></body></html>',
    );
    const found = await seriousViolations(page);
    expect(found.map((v) => v.split(":")[0])).toEqual(["critical image-alt", "critical label"]);
    await context.close();
  });
});
