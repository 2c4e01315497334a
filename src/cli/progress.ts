/**
 * What `eval run --wait` shows while it waits, on stderr (stdout stays the report, or the JSON):
 * on a terminal one line redrawn in place (a bar of repetitions done of total, passes and failures
 * so far, elapsed); in CI, where a redrawn line would be a log of hundreds, one line per scenario
 * as it finishes.
 */
import type { CliIo } from "./io.js";
import { percent, seconds } from "./run-report.js";
import type { RunView } from "./run-view.js";

interface Progress {
  update(run: RunView): void;
  /** Ends the redrawn line, so what follows starts on its own. */
  finish(): void;
}

const BAR_WIDTH = 24;

function progressLine(run: RunView, elapsedMs: number): string {
  const done =
    run.total_repetitions === 0 ? 0 : Math.round((run.finished_repetitions / run.total_repetitions) * BAR_WIDTH);
  const bar = `${"#".repeat(done)}${"-".repeat(BAR_WIDTH - done)}`;
  return `[${bar}] ${run.finished_repetitions}/${run.total_repetitions} repetitions  ${run.passed} passed  ${run.failed} failed  ${run.errors} errors  ${seconds(elapsedMs)}`;
}

export function progress(io: CliIo, startedAt: number, now: () => number = Date.now): Progress {
  if (io.interactive) {
    let drawn = false;
    return {
      update(run) {
        io.err(`\r\u001b[K${progressLine(run, now() - startedAt)}`);
        drawn = true;
      },
      finish() {
        if (drawn) io.err("\n");
        drawn = false;
      },
    };
  }
  const reported = new Set<string>();
  return {
    update(run) {
      for (const scenario of run.scenarios) {
        if (reported.has(scenario.id) || scenario.runs < run.runs_per_scenario) continue;
        reported.add(scenario.id);
        const forbidden =
          scenario.forbidden_calls === 0
            ? ""
            : `, ${scenario.forbidden_calls} forbidden call${scenario.forbidden_calls === 1 ? "" : "s"}`;
        const errors = scenario.errors === 0 ? "" : `, ${scenario.errors} error${scenario.errors === 1 ? "" : "s"}`;
        io.err(
          `scenario ${scenario.id}: ${scenario.passed} of ${scenario.runs} passed (${percent(scenario.pass_rate)})${errors}${forbidden}  [${run.finished_repetitions}/${run.total_repetitions}, ${seconds(now() - startedAt)}]\n`,
        );
      }
    },
    finish() {},
  };
}
