/**
 * `toolproof eval run` and `toolproof eval show`: the CI gate. `run` starts a run of a stored suite
 * (POST /api/suites/:name/runs) and, with --wait, polls it (GET /api/runs/:id) until it ends or
 * --timeout passes; `show` reads a run that exists. Both print the per-scenario table and the
 * verdict, write JUnit and a step summary on request, and exit 0 pass, 1 fail, 2 anything else.
 */
import { MAX_RUNS_PER_SCENARIO } from "../core/evals/run-limits.js";
import { isRecord } from "../core/policy/fields.js";
import { durationFlag, parseFlags, parseFlagsAndArguments, requireFlag, wholeNumberFlag } from "./flags.js";
import { EVAL_RUN_HELP, EVAL_SHOW_HELP } from "./help.js";
import { EXIT_OK, UnusableInput, type CliIo } from "./io.js";
import { junitReport } from "./junit.js";
import { progress } from "./progress.js";
import { conclusionOf, exitCodeOf, renderRun, type Conclusion } from "./run-report.js";
import { ended, fetchRepetitions, fetchRun, type RepetitionDetail, type RunView } from "./run-view.js";
import { request, SERVICE_FLAGS, serviceOf, ServiceError, type Service } from "./service.js";
import { stepSummary } from "./step-summary.js";
import { messageOf } from "../core/message-of.js";

const REPORT_FLAGS = {
  junit: { type: "string" },
  summary: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const DEFAULT_TIMEOUT = "30m";
/** The first polls come quickly (a small run ends in seconds); later ones back off to this. */
const POLL_FIRST_MS = 250;
const POLL_MAX_MS = 2000;

export async function evalRunCommand(args: string[], io: CliIo): Promise<number> {
  const command = "eval run";
  const flags = parseFlags(
    args,
    {
      ...SERVICE_FLAGS,
      ...REPORT_FLAGS,
      suite: { type: "string" },
      runs: { type: "string" },
      label: { type: "string" },
      wait: { type: "boolean" },
      timeout: { type: "string" },
    },
    command,
  );
  if (flags.help) {
    io.out(EVAL_RUN_HELP);
    return EXIT_OK;
  }
  const suite = requireFlag(flags.suite, "--suite <name>", "the stored suite to run", command);
  const runs = wholeNumberFlag(flags.runs, "--runs", 1, MAX_RUNS_PER_SCENARIO);
  const timeoutText = flags.timeout ?? DEFAULT_TIMEOUT;
  const timeoutMs = durationFlag(timeoutText, "--timeout");
  if (!flags.wait) {
    const needsWait = ["junit", "summary", "timeout"].filter(
      (name) => flags[name as "junit" | "summary" | "timeout"] !== undefined,
    );
    if (needsWait.length > 0)
      throw new UnusableInput(
        "command line",
        `${needsWait.map((name) => `--${name}`).join(" and ")} need${needsWait.length === 1 ? "s" : ""} --wait (or report a finished run later with "toolproof eval show RUN")`,
      );
  }
  const service = serviceOf(flags, io.env, command);

  const body = {
    ...(runs === undefined ? {} : { runs_per_scenario: runs }),
    ...(flags.label === undefined ? {} : { label: flags.label }),
  };
  const started = await request(service, `/api/suites/${encodeURIComponent(suite)}/runs`, { method: "POST", body });
  if (!isRecord(started) || typeof started.id !== "string")
    throw new ServiceError(
      `POST /api/suites/${suite}/runs`,
      202,
      "the service did not answer a run id; is --url toolproof's address?",
    );
  const id = started.id;
  if (!flags.wait) {
    io.out(
      flags.json
        ? `${JSON.stringify(started, null, 2)}\n`
        : `run ${id} started: ${String(started.total_repetitions)} repetitions of suite ${suite} v${String(started.suite_version)}\n  ${service.url}/api/runs/${id}\n  wait for it: toolproof eval show ${id}\n`,
    );
    return EXIT_OK;
  }

  io.err(
    `toolproof eval: run ${id} started (${String(started.total_repetitions)} repetitions of suite ${suite} v${String(started.suite_version)}); waiting up to ${timeoutText}\n`,
  );
  const { run, timedOut } = await waitForRun(service, id, timeoutMs ?? 0, io);
  return report(service, run, conclusionOf(run, timedOut), flags, io, { timeout: timeoutText });
}

export async function evalShowCommand(args: string[], io: CliIo): Promise<number> {
  const command = "eval show";
  const { values: flags, positionals } = parseFlagsAndArguments(args, { ...SERVICE_FLAGS, ...REPORT_FLAGS }, command);
  if (flags.help) {
    io.out(EVAL_SHOW_HELP);
    return EXIT_OK;
  }
  if (positionals.length !== 1)
    throw new UnusableInput(
      "command line",
      `${positionals.length === 0 ? "missing the run id" : `expected one run id, got ${positionals.length}`}: toolproof eval show RUN; run "toolproof ${command} --help" for the options`,
    );
  const service = serviceOf(flags, io.env, command);
  const run = await fetchRun(service, positionals[0] ?? "");
  return report(service, run, conclusionOf(run, false), flags, io, {});
}

async function waitForRun(
  service: Service,
  id: string,
  timeoutMs: number,
  io: CliIo,
): Promise<{ run: RunView; timedOut: boolean }> {
  const startedAt = Date.now();
  const deadline = startedAt + timeoutMs;
  const shown = progress(io, startedAt);
  let interval = POLL_FIRST_MS;
  try {
    for (;;) {
      const run = await fetchRun(service, id);
      shown.update(run);
      if (ended(run)) return { run, timedOut: false };
      const left = deadline - Date.now();
      if (left <= 0) return { run, timedOut: true };
      await new Promise((resolve) => setTimeout(resolve, Math.min(interval, left)));
      interval = Math.min(POLL_MAX_MS, Math.round(interval * 1.5));
    }
  } finally {
    shown.finish();
  }
}

async function report(
  service: Service,
  run: RunView,
  conclusion: Conclusion,
  flags: { junit?: string | undefined; summary?: string | undefined; json?: boolean | undefined },
  io: CliIo,
  context: { timeout?: string },
): Promise<number> {
  // Repetitions are read only when something needs them: a report file, or failures to name.
  const needsRepetitions = flags.junit !== undefined || run.failed > 0;
  const repetitions: RepetitionDetail[] = needsRepetitions ? await fetchRepetitions(service, run.id) : [];
  if (flags.junit !== undefined)
    await writeReport(flags.junit, "--junit", () =>
      io.writeFile(flags.junit ?? "", junitReport(run, repetitions, new URL(service.url).hostname)),
    );
  if (flags.summary !== undefined)
    await writeReport(flags.summary, "--summary", () =>
      io.appendFile(flags.summary ?? "", stepSummary(run, repetitions, conclusion, context)),
    );
  io.out(
    flags.json
      ? `${JSON.stringify({ conclusion, exit_code: exitCodeOf(conclusion), run }, null, 2)}\n`
      : renderRun(run, repetitions, conclusion, context),
  );
  return exitCodeOf(conclusion);
}

async function writeReport(path: string, flag: string, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (error) {
    throw new UnusableInput(flag, `${flag}: cannot write ${path}: ${messageOf(error)}`);
  }
}
