/**
 * The dashboard's one stylesheet, served at /dashboard.css. Colours keep at least 4.5:1 contrast
 * against their background; badges always carry a word, colour only repeats it.
 */
import { RUNS_STYLESHEET } from "./runs/styles.js";

export const STYLESHEET_PATH = "/dashboard.css";

export const STYLESHEET =
  `
:root {
  --ink: #1b1f24; --muted: #4a5360; --line: #c9ced6; --paper: #ffffff; --wash: #f4f6f8;
  --accent: #0b5cad; --focus: #b35c00;
  --pass-ink: #0f5a25; --pass-bg: #e3f4e8; --fail-ink: #8f1414; --fail-bg: #fbe4e4;
  --warn-ink: #6b4200; --warn-bg: #fdf0d5; --info-ink: #1e3a8a; --info-bg: #e6ecfb;
  font-family: "Liberation Sans", Arial, Helvetica, sans-serif; color: var(--ink); background: var(--paper);
}
* { box-sizing: border-box; }
body { margin: 0; line-height: 1.5; font-size: 1rem; }
a { color: var(--accent); }
a:hover { text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip-link { position: absolute; left: -999px; top: 0; background: var(--paper); padding: .5rem 1rem; }
.skip-link:focus { left: .5rem; z-index: 10; }
header.site { background: #12263f; color: #fff; }
header.site .bar { max-width: 72rem; margin: 0 auto; padding: .5rem 1rem; display: flex; flex-wrap: wrap; align-items: center; gap: .5rem 1.5rem; }
header.site .brand { color: #fff; font-weight: 700; text-decoration: none; font-size: 1.1rem; }
nav.main ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
nav.main a { color: #fff; text-decoration: none; padding: .25rem .125rem; border-bottom: 3px solid transparent; }
nav.main a:hover, nav.main a[aria-current="page"] { border-bottom-color: #9cc7f5; }
nav.main form { margin: 0; }
nav.main button { background: none; border: 1px solid #9cc7f5; color: #fff; border-radius: 4px; padding: .125rem .5rem; font: inherit; cursor: pointer; }
.tenant { color: #d6e2f0; font-size: .9rem; margin-left: auto; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.6rem; margin: .5rem 0 1rem; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 .5rem; }
p.lede { color: var(--muted); margin-top: -.5rem; }
.breadcrumbs { font-size: .9rem; color: var(--muted); }
.table-wrap { overflow-x: auto; margin: .5rem 0 1rem; }
table.data { border-collapse: collapse; width: 100%; font-size: .95rem; }
table.data.confusion { width: auto; min-width: 18rem; }
table.data caption { text-align: left; font-weight: 700; padding: .25rem 0; }
table.data th, table.data td { border-bottom: 1px solid var(--line); padding: .4rem .6rem; text-align: left; vertical-align: top; }
table.data th { background: var(--wash); font-weight: 700; }
table.data td.num, table.data th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .mono { font-family: "Liberation Mono", Menlo, Consolas, monospace; font-size: .9rem; }
pre.json { background: var(--wash); border: 1px solid var(--line); padding: .75rem; overflow-x: auto; white-space: pre; }
.badge { display: inline-block; border-radius: 999px; padding: 0 .6rem; font-size: .85rem; font-weight: 700; border: 1px solid currentColor; white-space: nowrap; }
.badge-pass { color: var(--pass-ink); background: var(--pass-bg); }
.badge-fail { color: var(--fail-ink); background: var(--fail-bg); }
.badge-warn { color: var(--warn-ink); background: var(--warn-bg); }
.badge-info { color: var(--info-ink); background: var(--info-bg); }
.badge-neutral { color: var(--muted); background: var(--wash); }
.notice { border-left: 4px solid var(--accent); background: var(--info-bg); padding: .75rem 1rem; margin: 1rem 0; }
.notice-error { border-left-color: var(--fail-ink); background: var(--fail-bg); }
form.stack { display: grid; gap: .75rem; max-width: 32rem; }
form.inline { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
label { font-weight: 700; display: block; }
input[type=text], input[type=password], select { font: inherit; padding: .4rem .5rem; border: 1px solid var(--muted); border-radius: 4px; min-width: 6rem; max-width: 100%; }
button.primary { font: inherit; font-weight: 700; background: var(--accent); color: #fff; border: 0; border-radius: 4px; padding: .5rem 1rem; cursor: pointer; }
.hint { color: var(--muted); font-size: .9rem; }
.diff { border: 1px solid var(--line); overflow-x: auto; }
.diff pre { margin: 0; padding: .5rem 0; white-space: pre; }
.diff .line { display: block; padding: 0 .75rem; }
.diff .added { background: var(--pass-bg); color: var(--pass-ink); }
.diff .removed { background: var(--fail-bg); color: var(--fail-ink); text-decoration: line-through; text-decoration-thickness: 1px; }
.diff .same { color: var(--ink); }
.diff .folded { color: var(--muted); background: var(--wash); font-style: italic; }
.diff-summary { font-weight: 700; }
figure.chart { margin: 1rem 0; max-width: 40rem; }
figure.chart svg { width: 100%; height: auto; display: block; }
figure.chart figcaption { color: var(--muted); font-size: .9rem; }
.chart .bar { fill: var(--accent); }
.chart .axis { stroke: var(--muted); stroke-width: 1; }
.chart .gate { stroke: var(--fail-ink); stroke-width: 2; stroke-dasharray: 6 4; }
.chart text { font-size: 12px; fill: var(--ink); font-family: "Liberation Sans", Arial, sans-serif; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
dl.facts dt { font-weight: 700; }
dl.facts dd { margin: 0; }
@media (max-width: 40rem) {
  main { padding: .75rem; }
  h1 { font-size: 1.3rem; }
  .tenant { margin-left: 0; width: 100%; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .5rem; }
}
` +
  // The Runs, Run and Attempt pages (dash-b).
  RUNS_STYLESHEET;
