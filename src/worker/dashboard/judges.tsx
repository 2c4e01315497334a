/** @jsxImportSource hono/jsx */
/**
 * Judges pages: for every suite with a judge, how far its judge agrees with the hand labels
 * (kappa, pass/fail agreement, the confusion matrix, agreement per score). The figures come from
 * suiteCalibration, the function behind GET /api/suites/:name/calibration and the run gate, so
 * this page shows what the gate used (RunEvals, like that route).
 */
import { Hono } from "hono";
import { encodeCursor } from "../../adapters/d1/json-column.js";
import { getSuiteVersion, listSuites } from "../../adapters/d1/suites.js";
import type { CalibrationRequirement } from "../../core/scoring/calibration.js";
import type { JudgeCalibration } from "../../core/scoring/judge-groups.js";
import type { CalibrationGate } from "../../core/scoring/run-verdict.js";
import { calibrationRequirement } from "../../core/scoring/calibration.js";
import { documentName } from "../http/document-body.js";
import type { AppEnv } from "../platform/env.js";
import { type SuiteCalibrationView, suiteCalibration } from "../runs/judge-calibration.js";
import { pageCursor, NAME_CURSOR } from "../http/pagination.js";
import { storedSuite } from "../suites/stored-suite.js";
import { Badge, TableWrap } from "./components.js";
import { BarChart } from "./charts.js";
import { fixed2, percent, seg } from "./format.js";
import { type PageResult, notFoundPage, page, pathParam } from "./page.js";

const SUITES_PER_PAGE = 50;
const judges = { section: "judges", permission: "AIManager:RunEvals" } as const;

interface SuiteJudge {
  suite: string;
  suiteVersion: number;
  /** Null when the suite has no judge. */
  calibration: SuiteCalibrationView | null;
  requirement: CalibrationRequirement | null;
}

export const judgePages = new Hono<AppEnv>();

judgePages.get(
  "/",
  page(judges, async (c, viewer) => {
    const tenantId = viewer.principal.tenantId;
    const after = pageCursor(c, NAME_CURSOR);
    const listed = await listSuites(c.var.db, tenantId, { limit: SUITES_PER_PAGE, after });
    const rows = await Promise.all(listed.items.map((s) => suiteJudge(c.var.db, tenantId, s.name)));
    return judgesListPage(
      rows.filter((r): r is SuiteJudge => r !== undefined),
      listed.next === undefined ? undefined : `/judges?cursor=${seg(encodeCursor([listed.next]))}`,
    );
  }),
);

judgePages.get(
  "/:suite",
  page(judges, async (c, viewer) => {
    const name = documentName(pathParam(c, "suite"));
    const found = await suiteJudge(c.var.db, viewer.principal.tenantId, name);
    if (!found) return notFoundPage("suite", { href: "/judges", label: "Back to the judges" });
    return suiteJudgePage(found);
  }),
);

async function suiteJudge(
  db: AppEnv["Variables"]["db"],
  tenantId: string,
  name: string,
): Promise<SuiteJudge | undefined> {
  const stored = await getSuiteVersion(db, tenantId, name);
  if (!stored) return undefined;
  const suite = storedSuite(stored);
  const calibration = suite.judge ? await suiteCalibration(db, tenantId, name, suite.judge) : null;
  return {
    suite: name,
    suiteVersion: stored.version,
    calibration,
    requirement: suite.judge?.require_calibration ?? null,
  };
}

// ---- views (pure: data in, markup out) ----

const suiteHref = (name: string) => `/judges/${seg(name)}`;

function currentGroup(view: SuiteCalibrationView): JudgeCalibration | undefined {
  return view.judges.find((group) => group.current);
}

function judgeName(group: Pick<JudgeCalibration, "judge">): string {
  const { connection, model, prompt_version } = group.judge;
  return `${connection ?? "unknown connection"} · ${model ?? "unknown model"} · prompt ${prompt_version}`;
}

/** Whether the current judge meets the suite's requirement, in words; null when nothing is required. */
function gateOf(row: SuiteJudge): CalibrationGate | null {
  const current = row.calibration ? currentGroup(row.calibration) : undefined;
  return row.requirement && current ? calibrationRequirement(current, row.requirement) : null;
}

function GateBadge(props: { gate: CalibrationGate | null }) {
  if (props.gate === null) return <Badge tone="neutral">Not required</Badge>;
  return props.gate.met ? <Badge tone="pass">Calibrated</Badge> : <Badge tone="warn">Not calibrated</Badge>;
}

function judgesListPage(rows: SuiteJudge[], next: string | undefined): PageResult {
  return {
    title: "Judges",
    body: (
      <>
        <h1>Judges</h1>
        <p class="lede">
          How far each suite's judge agrees with the people who labelled its repetitions. Kappa is agreement beyond
          chance: 1 is perfect, 0 is chance.
        </p>
        {rows.length === 0 ? (
          <p>No suites yet. Store one with PUT /api/suites/:name.</p>
        ) : (
          <TableWrap>
            <table class="data">
              <caption>Current judge of each suite</caption>
              <thead>
                <tr>
                  <th scope="col">Suite</th>
                  <th scope="col">Judge</th>
                  <th scope="col" class="num">
                    Labels
                  </th>
                  <th scope="col" class="num">
                    Kappa
                  </th>
                  <th scope="col" class="num">
                    Pass/fail agreement
                  </th>
                  <th scope="col">Calibration</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => {
                  const current = row.calibration ? currentGroup(row.calibration) : undefined;
                  return (
                    <tr>
                      <td>
                        <a href={suiteHref(row.suite)}>{row.suite}</a>
                      </td>
                      <td>{current ? judgeName(current) : "No judge"}</td>
                      <td class="num">{current ? current.labels : "—"}</td>
                      <td class="num">{current ? fixed2(current.kappa) : "—"}</td>
                      <td class="num">{current ? percent(current.pass_fail_agreement) : "—"}</td>
                      <td>
                        <GateBadge gate={gateOf(row)} />
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableWrap>
        )}
        {next ? <a href={next}>More suites</a> : null}
      </>
    ),
  };
}

function suiteJudgePage(row: SuiteJudge): PageResult {
  const view = row.calibration;
  const gate = gateOf(row);
  return {
    title: `Judge of ${row.suite}`,
    body: (
      <>
        <p class="breadcrumbs">
          <a href="/judges">Judges</a> / {row.suite}
        </p>
        <h1>{`Judge of ${row.suite}`}</h1>
        {view === null ? (
          <p>{`Suite version ${row.suiteVersion} has no judge: its scenarios are decided by their checks alone.`}</p>
        ) : (
          <>
            <dl class="facts">
              <dt>Suite version</dt>
              <dd>{row.suiteVersion}</dd>
              <dt>Pass threshold</dt>
              <dd>{`score ${view.threshold} or more`}</dd>
              <dt>Hand labels</dt>
              <dd>{`${view.labels} (${view.labels_without_judge} on repetitions no judge scored)`}</dd>
              <dt>Required</dt>
              <dd>
                {row.requirement
                  ? `at least ${row.requirement.min_labels} labels and kappa ${row.requirement.min_kappa}`
                  : "nothing: the judge gates unchecked"}{" "}
                <GateBadge gate={gate} />
              </dd>
              {gate && !gate.met ? (
                <>
                  <dt>Missing</dt>
                  <dd>{gate.sentence}</dd>
                </>
              ) : null}
            </dl>
            {view.judges.map((group, i) => (
              <JudgeReport group={group} id={`judge-${i}`} />
            ))}
          </>
        )}
      </>
    ),
  };
}

function JudgeReport(props: { group: JudgeCalibration; id: string }) {
  const g = props.group;
  const m = g.confusion;
  return (
    <section aria-labelledby={`${props.id}-h`}>
      <h2 id={`${props.id}-h`}>
        {judgeName(g)}{" "}
        {g.current ? <Badge tone="info">Current judge</Badge> : <Badge tone="neutral">Earlier judge</Badge>}
      </h2>
      <dl class="facts">
        <dt>Kappa</dt>
        <dd>{fixed2(g.kappa)}</dd>
        <dt>Pass/fail agreement</dt>
        <dd>{percent(g.pass_fail_agreement)}</dd>
        <dt>Exact agreement</dt>
        <dd>{percent(g.exact_agreement)}</dd>
        <dt>Labels scored by this judge</dt>
        <dd>{`${g.labels}${g.unjudged_labels > 0 ? ` (and ${g.unjudged_labels} it never scored)` : ""}`}</dd>
        <dt>Best threshold</dt>
        <dd>
          {g.best_threshold
            ? `score ${g.best_threshold.threshold} (agreement ${percent(g.best_threshold.agreement)})`
            : "—"}
        </dd>
      </dl>
      <TableWrap>
        <table class="data confusion">
          <caption>{`Confusion matrix at threshold ${g.threshold}`}</caption>
          <thead>
            <tr>
              <td></td>
              <th scope="col">Human: pass</th>
              <th scope="col">Human: fail</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">Judge: pass</th>
              <td class="num">{m.both_pass}</td>
              <td class="num">{m.judge_pass_human_fail}</td>
            </tr>
            <tr>
              <th scope="row">Judge: fail</th>
              <td class="num">{m.judge_fail_human_pass}</td>
              <td class="num">{m.both_fail}</td>
            </tr>
          </tbody>
        </table>
      </TableWrap>
      <BarChart
        id={`${props.id}-scores`}
        title={`Agreement per judge score, ${judgeName(g)}`}
        description="For each score the judge gave, the share of those repetitions where judge and human agree on pass or fail."
        max={1}
        yAxis={{ label: "agreement", format: (value) => `${Math.round(value * 100)}%` }}
        bars={g.per_score.map((s) => ({
          label: `score ${s.score}`,
          value: s.agreement,
          text: s.labels === 0 ? "no labels" : `${percent(s.agreement)} of ${s.labels}`,
        }))}
      />
    </section>
  );
}
