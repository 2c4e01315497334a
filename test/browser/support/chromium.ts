/**
 * Headless Chromium from Debian's `chromium` package, driven by playwright-core (pinned to 1.64.1,
 * the release that expects Chromium 156: Debian's build). Nothing is downloaded: a missing
 * browser fails the test with the command that installs it (.ci/run installs it itself).
 */
import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium } from "playwright-core";

/** Debian's launcher script for the browser (it execs /usr/lib/chromium/chromium with Debian's flags). */
export const CHROMIUM_PATH = "/usr/bin/chromium";

export const INSTALL_HINT = "apt-get install -y --no-install-recommends chromium fonts-liberation";

/** `executablePath` is for the harness's own test of the missing-browser message. */
export async function launchChromium(executablePath = CHROMIUM_PATH): Promise<Browser> {
  if (!existsSync(executablePath)) {
    throw new Error(
      `the browser tests need Debian's Chromium at ${executablePath}, which is missing: install it with\n  ${INSTALL_HINT}\n(.ci/run does this itself)`,
    );
  }
  // Chromium refuses to start as root with its sandbox on; CI and this machine run as root.
  const args = process.getuid?.() === 0 ? ["--no-sandbox"] : [];
  return chromium.launch({ executablePath, headless: true, args });
}

/**
 * A fresh browser context (its own cookies) at a laptop or phone size. The pages' CSP allows no
 * script at all, so the context bypasses it only to let axe-core be injected for the check.
 */
export function newContext(browser: Browser, size: "laptop" | "phone" = "laptop"): Promise<BrowserContext> {
  const viewport = size === "laptop" ? { width: 1280, height: 800 } : { width: 390, height: 844 };
  return browser.newContext({
    viewport,
    bypassCSP: true,
    deviceScaleFactor: 1,
    isMobile: size === "phone",
    hasTouch: size === "phone",
  });
}
