/**
 * The Runs, Run and Attempt pages' part of the stylesheet (appended to styles.ts's). Every state
 * a colour marks (worse, better, hard fail) is also said in words and with an arrow or border.
 */
export const RUNS_STYLESHEET = `
/* Long names and JSON arguments wrap on a phone instead of widening the page. */
.runs-page :is(p, li, dd, summary, h1, h2, h3, code) { overflow-wrap: anywhere; }
.runs-page form.inline > div { min-width: 0; max-width: 100%; }
.runs-page select { width: 100%; }
/* A function name wraps nowhere (its table scrolls instead): invoices__place_invoice_o|n_hold reads as two words. */
.runs-page td code.function-name { overflow-wrap: normal; white-space: nowrap; }
/* The "Calls" heading names the table already; its caption stays for screen readers only. */
details.repetition table.data > caption { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.chart .whisker { stroke: var(--ink); stroke-width: 2; }
.chart .point circle, .chart .point rect { stroke: var(--paper); stroke-width: 1.5; }
.chart .tone-pass circle, .chart .tone-pass rect { fill: var(--pass-ink); }
.chart .tone-fail circle, .chart .tone-fail rect { fill: var(--fail-ink); }
.chart .tone-warn circle, .chart .tone-warn rect, .chart .tone-neutral circle, .chart .tone-neutral rect { fill: var(--warn-ink); }
.chart .mark-uncalibrated .diamond { fill: var(--paper); stroke: var(--warn-ink); stroke-width: 2; }
.chart .mark-pending .ring { fill: var(--paper); stroke: var(--muted); stroke-width: 2; }
.chart .mark-unmeasured .cross { fill: none; stroke: var(--warn-ink); stroke-width: 2.5; }
.chart .date { fill: var(--muted); font-size: 11px; }
.chart .gate-label { fill: var(--fail-ink); font-weight: 700; }
ul.chart-legend { list-style: none; padding: 0; margin: .25rem 0 1rem; display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; font-size: .9rem; }
ul.chart-legend svg.legend-mark, .rate-legend svg { display: inline-block; vertical-align: middle; overflow: visible; }
ul.chart-legend svg.legend-mark .gate { stroke-dasharray: 4 2; }
.rate-legend { font-size: .9rem; color: var(--muted); }
.run-progress svg.progress-bar { width: 100%; height: 1.25rem; display: block; }
.run-progress .track { fill: var(--wash); stroke: var(--line); }
.run-progress .segment-passed, .swatch-passed { fill: var(--pass-ink); background: var(--pass-ink); }
.run-progress .segment-failed, .swatch-failed { fill: var(--fail-ink); background: var(--fail-ink); }
.run-progress .segment-errors, .swatch-errors { fill: var(--warn-ink); background: var(--warn-ink); }
.swatch-pending { background: var(--wash); border: 1px solid var(--line); }
ul.progress-legend { list-style: none; padding: 0; margin: .5rem 0; display: flex; flex-wrap: wrap; gap: .25rem 1.25rem; }
ul.progress-legend .swatch { display: inline-block; width: .9rem; height: .9rem; margin-right: .35rem; vertical-align: -.1rem; border-radius: 2px; }
.no-chart { flex: 1 1 18rem; color: var(--muted); border: 1px dashed var(--line); border-radius: 4px; padding: .75rem; margin: 1rem 0; }
.chart .line { fill: none; stroke: var(--accent); stroke-width: 2; }
.chart .pass-hat-k .point circle, .pass-hat-k .point circle { fill: var(--accent); }
.chart .gate { fill: none; }
.chart .grid line { stroke: var(--line); stroke-width: 1; }
.chart .axis-line { stroke: var(--muted); stroke-width: 1; }
.chart .histogram rect, .histogram .bar rect { fill: var(--accent); }
.chart .axis-label { fill: var(--muted); }
.chart a:focus-visible { outline: 3px solid var(--focus); }
svg.rate-bar { vertical-align: middle; }
svg.rate-bar .track { fill: var(--wash); stroke: var(--line); }
svg.rate-bar .fill { fill: var(--accent); }
svg.rate-bar .whisker { stroke: var(--ink); stroke-width: 2; }
svg.rate-bar .gate { stroke: var(--fail-ink); stroke-width: 1.5; stroke-dasharray: 2 2; }
.charts { display: flex; flex-wrap: wrap; gap: 1rem 2rem; }
.charts figure.chart { flex: 1 1 18rem; max-width: 26rem; }
figure.chart.wide { max-width: none; overflow-x: auto; }
figure.chart.wide svg.trend { min-width: 36rem; }
figure.chart.wide:focus-visible { outline: 3px solid var(--focus); }
.hard-fail-banner { border: 3px solid var(--fail-ink); }
.hard-fail-banner h2 { margin-top: 0; color: var(--fail-ink); }
tr.hard-fail td { background: var(--fail-bg); }
tr.hard-fail td:first-child { border-left: 6px solid var(--fail-ink); }
tr.change-worse td { background: var(--fail-bg); }
tr.change-worse td:first-child { border-left: 6px solid var(--fail-ink); }
tr.change-better td { background: var(--pass-bg); }
tr.change-better td:first-child { border-left: 6px double var(--pass-ink); }
.change { font-weight: 700; white-space: nowrap; }
.change-worse .change { color: var(--fail-ink); }
.change-better .change { color: var(--pass-ink); }
details.repetition { border: 1px solid var(--line); border-radius: 4px; margin: .5rem 0; padding: .25rem .75rem; }
details.repetition > summary { cursor: pointer; padding: .25rem 0; }
details.repetition[open] > summary { border-bottom: 1px solid var(--line); margin-bottom: .5rem; }
ol.timeline { list-style: none; padding: 0; margin: 0; }
ol.timeline > li { border-left: 4px solid var(--accent); padding: .25rem 0 .75rem 1rem; margin-left: .5rem; position: relative; }
ol.timeline > li.outcome-tool_input_error { border-left-color: var(--warn-ink); }
ol.timeline > li.outcome-harness_error { border-left-color: var(--fail-ink); border-left-style: double; border-left-width: 6px; }
ol.timeline > li.proposal { border-left-style: dashed; border-left-color: var(--info-ink); }
ol.timeline h3 { font-size: 1.05rem; margin: 0 0 .25rem; }
.state-pair { display: grid; grid-template-columns: repeat(auto-fit, minmax(14rem, 1fr)); gap: .5rem 1rem; }
.state-pair pre.json, .state-seen pre.json { margin: .25rem 0; }
ol.transcript { padding-left: 1.5rem; }
ol.transcript > li { margin: .5rem 0; }
ol.transcript .role { font-weight: 700; text-transform: capitalize; }
ol.transcript pre { white-space: pre-wrap; overflow-wrap: anywhere; }
`;
