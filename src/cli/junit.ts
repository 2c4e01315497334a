/**
 * A run as JUnit XML, the report every CI reads: one <testsuite> per scenario, one <testcase>
 * per repetition. A failed repetition is a <failure> whose message is its verdict's reason (a
 * forbidden call with its function and arguments, "Judge 3/5 ...: why"), an errored or unfinished
 * one an <error>. The output is valid against both the Ant JUnit XSD and Jenkins' junit-4 XSD
 * (test/cli/eval-junit.test.ts checks it with xmllint), whose intersection is what is written:
 * properties with at least one property, system-out and system-err present, one child at most per
 * testcase, timestamps without a zone, no attributes on <testsuites> and no `skipped` count.
 */
import type { RepetitionCall } from "../core/scoring/calls.js";
import { attackProperties } from "./attack-report.js";
import { changeLines, mismatchLines } from "./end-state-report.js";
import type { RepetitionDetail, RunView } from "./run-view.js";

export function junitReport(run: RunView, repetitions: readonly RepetitionDetail[], hostname: string): string {
  const scenarios = run.scenarios.map((figures) => figures.id);
  // A scenario with no figures yet (a run cancelled early) still gets its suite from its repetitions.
  for (const repetition of repetitions)
    if (!scenarios.includes(repetition.scenario)) scenarios.push(repetition.scenario);
  const timestamp = (run.started_at ?? run.created_at).slice(0, 19);
  const suites = scenarios.map((scenario, index) =>
    testsuite(
      run,
      scenario,
      index,
      repetitions.filter((r) => r.scenario === scenario),
      { timestamp, hostname },
    ),
  );
  // The Ant schema allows no attributes on <testsuites>: readers sum the suites' counts themselves.
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    "<testsuites>",
    ...suites.map((suite) => suite.xml),
    "</testsuites>",
    "",
  ].join("\n");
}

interface Suite {
  xml: string;
}

function testsuite(
  run: RunView,
  scenario: string,
  id: number,
  repetitions: readonly RepetitionDetail[],
  where: { timestamp: string; hostname: string },
): Suite {
  const classname = `${run.suite}.${scenario}`;
  const cases = repetitions.map((repetition) => testcase(repetition, classname));
  const failures = cases.filter((c) => c.kind === "failure").length;
  const errors = cases.filter((c) => c.kind === "error").length;
  const total = cases.reduce((sum, c) => sum + c.seconds, 0);
  const figures = run.scenarios.find((s) => s.id === scenario);
  const properties: Array<[string, string]> = [
    ["run", run.id],
    ["suite", run.suite],
    ["suite_version", String(run.suite_version)],
    ...(run.label === null ? [] : ([["label", run.label]] as Array<[string, string]>)),
    ["verdict", run.verdict ?? run.status],
    ...(figures?.pass_rate === null || figures === undefined
      ? []
      : ([["pass_rate", String(figures.pass_rate)]] as Array<[string, string]>)),
    ...(figures?.interval
      ? ([["interval_95", `${round(figures.interval.low)} to ${round(figures.interval.high)}`]] as Array<
          [string, string]
        >)
      : []),
    ...attackProperties(run, scenario),
  ];
  const xml = [
    `  <testsuite${attributes({ name: classname, package: run.suite, id, tests: cases.length, failures, errors, time: time(total), timestamp: where.timestamp, hostname: where.hostname })}>`,
    "    <properties>",
    ...properties.map(([name, value]) => `      <property${attributes({ name, value })}/>`),
    "    </properties>",
    ...cases.map((c) => c.xml),
    "    <system-out></system-out>",
    "    <system-err></system-err>",
    "  </testsuite>",
  ].join("\n");
  return { xml };
}

interface Case {
  xml: string;
  kind: "pass" | "failure" | "error";
  seconds: number;
}

function testcase(repetition: RepetitionDetail, classname: string): Case {
  const seconds =
    repetition.started_at !== null && repetition.finished_at !== null
      ? Math.max(0, (Date.parse(repetition.finished_at) - Date.parse(repetition.started_at)) / 1000)
      : 0;
  const open = `    <testcase${attributes({ name: `${repetition.scenario} #${repetition.repetition}`, classname, time: time(seconds) })}`;
  const verdict = repetition.verdict;
  if (verdict === null) {
    const message = "no result: the run ended or the CLI stopped waiting before this repetition finished";
    return {
      kind: "error",
      seconds,
      xml: `${open}>\n      <error${attributes({ type: "not_finished", message })}>${text(`repetition ${repetition.n}, attempt ${repetition.attempt_id}`)}</error>\n    </testcase>`,
    };
  }
  if (verdict.outcome === "pass") return { kind: "pass", seconds, xml: `${open}/>` };
  const kind = verdict.outcome === "fail" ? "failure" : "error";
  return {
    kind,
    seconds,
    xml: `${open}>\n      <${kind}${attributes({ type: verdict.cause, message: verdict.reason })}>${text(body(repetition))}</${kind}>\n    </testcase>`,
  };
}

/** What a reviewer opening the failure wants: the reason, then every call and the final answer. */
function body(repetition: RepetitionDetail): string {
  const lines = [
    repetition.verdict?.reason ?? "",
    "",
    `attempt ${repetition.attempt_id} (stop: ${repetition.stop_reason ?? "none"})`,
  ];
  lines.push(
    repetition.calls.length === 0 ? "calls: none" : "calls:",
    ...repetition.calls.map((call) => `  ${describe(call)}`),
  );
  lines.push(`final answer: ${repetition.final_answer ?? "(none)"}`);
  const mismatches = mismatchLines(repetition);
  if (mismatches.length > 0) lines.push("end state and outputs:", ...mismatches.map((line) => `  ${line}`));
  lines.push(...changeLines(repetition));
  return lines.join("\n");
}

function describe(call: RepetitionCall): string {
  const id = call.call_id === null ? "" : `, call ${call.call_id}`;
  const head = `${call.function}(${JSON.stringify(call.arguments)})`;
  if (call.kind === "refused") return `${head} never run (${call.refusal})${id}: ${call.message}`;
  if (call.kind === "executed") return `${head} executed (${call.outcome})${id}`;
  const problems = call.problems ?? [];
  if (problems.length === 0) return `${head} proposed for approval${id}`;
  return `${head} proposed for approval${id}; its arguments break the input schema: ${problems.map((p) => `${p.path || "/"}: ${p.message}`).join("; ")}`;
}

function round(rate: number): string {
  return String(Math.round(rate * 10_000) / 10_000);
}

function time(seconds: number): string {
  return seconds.toFixed(3);
}

function attributes(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(
      ([name, value]) => ` ${name}="${xmlEscape(String(value)).replaceAll('"', "&quot;").replaceAll("\n", "&#10;")}"`,
    )
    .join("");
}

function text(value: string): string {
  return xmlEscape(value);
}

/**
 * &, < and > escaped; characters XML 1.0 cannot carry at all (most C0 controls, lone surrogates,
 * U+FFFE/U+FFFF) replaced, since a model's answer may contain anything.
 */
function xmlEscape(value: string): string {
  return value
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;");
}
