/** The benchmarks' client of a local toolproof: JSON over HTTP with the demo key, failing loudly. */
import type { RunningToolproof } from "../../local-server.js";
import { field } from "../../local/narrow.js";

export async function api(
  server: RunningToolproof,
  method: string,
  route: string,
  body?: string,
  type = "application/json",
): Promise<unknown> {
  const init: RequestInit = { method, headers: { authorization: `Bearer ${server.demoKey}`, "content-type": type } };
  if (body !== undefined) init.body = body;
  const response = await fetch(`${server.url}${route}`, init);
  const answer: unknown = await response.json();
  if (!response.ok)
    throw new Error(`${method} ${route} answered ${response.status}: ${JSON.stringify(answer).slice(0, 2000)}`);
  return answer;
}

/** Polls a run until it is neither queued nor running, calling `onPoll` between reads; the run's last view. */
export async function waitForRun(
  server: RunningToolproof,
  id: string,
  pollMs: number,
  onPoll?: (polls: number) => Promise<void>,
): Promise<unknown> {
  for (let polls = 0; ; polls++) {
    const view = await api(server, "GET", `/api/runs/${id}`);
    const status = field(view, "status");
    if (status !== "queued" && status !== "running") return view;
    await onPoll?.(polls);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** Runs a benchmark's main: its error printed whole and the exit code 1, so a failed benchmark never reads as numbers. */
export function runBenchmark(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  });
}
