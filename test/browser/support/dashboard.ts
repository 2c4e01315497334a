/** Moving through the dashboard as a person does: the sign-in form, links by their text, what a page says. */
import type { Page } from "playwright-core";

/** Opens the printed URL, lands on the sign-in form, signs in with the printed key. */
export async function signIn(page: Page, url: string, key: string): Promise<void> {
  await page.goto(url);
  if (!new URL(page.url()).pathname.startsWith("/sign-in"))
    throw new Error(`opening ${url} did not show the sign-in form but ${page.url()}`);
  await page.getByLabel("API key").fill(key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForLoadState("load");
  if (new URL(page.url()).pathname.startsWith("/sign-in"))
    throw new Error(`signing in failed: ${await page.locator("main").innerText()}`);
}

/** The main region's text, whitespace collapsed: what the page says. */
export async function mainText(page: Page): Promise<string> {
  return (await page.locator("main").innerText()).replace(/\s+/g, " ").trim();
}

/** Each row of the table captioned `caption`, cells joined by " | ". */
export async function tableRows(page: Page, caption: string): Promise<string[]> {
  const table = page.locator("table", { has: page.locator("caption", { hasText: caption }) });
  const rows: string[] = [];
  for (const row of await table.locator("tr").all()) {
    rows.push(
      (await row.locator("th, td").allTextContents()).map((cell) => cell.replace(/\s+/g, " ").trim()).join(" | "),
    );
  }
  return rows;
}
