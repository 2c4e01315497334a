/**
 * The official JSON-Schema-Test-Suite (draft 2020-12 and draft-07, optional tests included)
 * through both SchemaValidator implementations.
 *
 * A case fails the test when it fails and is not in known-failures.json, and ALSO when it is
 * listed there but now passes: the list can only shrink, so the pass count can only go up.
 * Counts go to stdout and to docs/json-schema-conformance.md (between the count markers).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  caseName,
  knownReason,
  loadCases,
  loadKnownFailures,
  loadRemotes,
  REPO_ROOT,
  SUITE_DRAFTS,
  type SuiteCase,
  type SuiteDraftName,
  type ValidatorName,
} from "./suite.js";
import { judge, VALIDATOR_FACTORIES, VALIDATOR_NAMES } from "./validators.js";

const DOC = path.join(REPO_ROOT, "docs/json-schema-conformance.md");
const START = "<!-- conformance-counts:start -->";
const END = "<!-- conformance-counts:end -->";

const known = loadKnownFailures();
const remotes = loadRemotes();

interface Count {
  passed: number;
  run: number;
  total: number;
}
const counts = new Map<string, Count>();
const countKey = (validator: ValidatorName, draft: SuiteDraftName) => `${validator} ${draft}`;

function byFile(cases: readonly SuiteCase[]): Map<string, SuiteCase[]> {
  const files = new Map<string, SuiteCase[]>();
  for (const c of cases) files.set(c.file, [...(files.get(c.file) ?? []), c]);
  return files;
}

for (const { name: draftName, draft } of SUITE_DRAFTS) {
  const cases = loadCases(draftName);
  for (const validatorName of VALIDATOR_NAMES) {
    const table = known[validatorName];
    const count: Count = { passed: 0, run: 0, total: cases.length };
    counts.set(countKey(validatorName, draftName), count);

    describe(`${validatorName} validator, ${draftName}`, () => {
      const validator = VALIDATOR_FACTORIES[validatorName]({ knownSchemas: remotes, defaultDraft: draft });

      for (const [file, fileCases] of byFile(cases)) {
        it(file, () => {
          const unexpectedFailures: string[] = [];
          const nowPassing: string[] = [];
          for (const c of fileCases) {
            const verdict = judge(validator, c);
            const passed = verdict.valid === c.valid;
            const listed = knownReason(table, c) !== undefined;
            count.run++;
            if (passed) count.passed++;
            if (!passed && !listed) {
              const expected = c.valid ? "valid" : "invalid";
              unexpectedFailures.push(`${caseName(c)}: expected ${expected}, got ${JSON.stringify(verdict.problems)}`);
            }
            if (passed && listed) nowPassing.push(`${caseName(c)} passes now: remove it from known-failures.json`);
          }
          expect({ unexpectedFailures, nowPassing }).toEqual({ unexpectedFailures: [], nowPassing: [] });
        }, 60_000);
      }

      it("lists only cases that exist, each with a known reason", () => {
        const names = new Set(cases.map(caseName));
        const stale: string[] = [];
        for (const [file, groups] of Object.entries(table[draftName] ?? {})) {
          for (const [group, tests] of Object.entries(groups)) {
            for (const [test, reason] of Object.entries(tests)) {
              const name = `${draftName}/${file} › ${group} › ${test}`;
              if (!names.has(name)) stale.push(`${name}: no such case`);
              if (known.reasons[reason] === undefined) stale.push(`${name}: unknown reason "${reason}"`);
            }
          }
        }
        expect(stale).toEqual([]);
      });
    });
  }
}

it("explains every failure with a reason that some listed case uses", () => {
  const used = new Set<string>();
  for (const validator of VALIDATOR_NAMES) {
    for (const files of Object.values(known[validator])) {
      for (const groups of Object.values(files)) {
        for (const tests of Object.values(groups)) for (const reason of Object.values(tests)) used.add(reason);
      }
    }
  }
  expect(Object.keys(known.reasons).filter((reason) => !used.has(reason))).toEqual([]);
});

function countsTable(): string {
  const rows = SUITE_DRAFTS.map(({ name }) => {
    const cells = VALIDATOR_NAMES.map((validator) => {
      const count = counts.get(countKey(validator, name));
      if (count === undefined) return "–";
      const percent = ((100 * count.passed) / count.total).toFixed(1);
      return `${count.passed}/${count.total} (${percent}%)`;
    });
    return `| ${name} | ${cells.join(" | ")} |`;
  });
  return ["| draft | runtime (@cfworker/json-schema) | ajv 8 + ajv-formats |", "|---|---|---|", ...rows].join("\n");
}

afterAll(() => {
  const complete = [...counts.values()].every((count) => count.run === count.total);
  const table = countsTable();
  console.log(`JSON-Schema-Test-Suite conformance (passed/total):\n${table}`);
  // Only a full run may rewrite the documented counts (a filtered run sees a part of the suite).
  if (!complete || !existsSync(DOC)) return;
  const doc = readFileSync(DOC, "utf8");
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) return;
  const updated = `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`;
  if (updated !== doc) writeFileSync(DOC, updated);
});
