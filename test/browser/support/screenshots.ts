/**
 * Full-page screenshots of what the browser tests saw, kept in test/browser/screenshots/ (git-ignored;
 * CI leaves them in its work tree). One file per page and viewport, named by the test.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page } from "playwright-core";

export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, "..", "screenshots");

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
