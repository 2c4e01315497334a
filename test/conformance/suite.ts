/**
 * Loads the official JSON-Schema-Test-Suite from the shared data folder beside the repository
 * (../shared/data/json-schema-test-suite, an unchanged copy; see its SOURCE.txt and LICENSE),
 * and the list of cases each validator is known to fail.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import type { Draft } from "../../src/adapters/json-schema/drafts.js";
import { isJsonObject } from "../../src/core/json.js";

export const REPO_ROOT = path.resolve(import.meta.dirname, "../..");
// JSON_SCHEMA_TEST_SUITE points elsewhere, for a checkout that does not sit beside shared/ (a worktree).
export const SUITE_DIR =
  process.env.JSON_SCHEMA_TEST_SUITE ?? path.resolve(REPO_ROOT, "../shared/data/json-schema-test-suite");
export const KNOWN_FAILURES_FILE = path.join(import.meta.dirname, "known-failures.json");

export type SuiteDraftName = "draft2020-12" | "draft7";
export const SUITE_DRAFTS: ReadonlyArray<{ name: SuiteDraftName; draft: Draft }> = [
  { name: "draft2020-12", draft: "2020-12" },
  { name: "draft7", draft: "7" },
];

export type ValidatorName = "runtime" | "ajv";

/**
 * Suite files left out, with why. These test formats toolproof deliberately treats as
 * annotations (it asserts only the formats in src/adapters/json-schema/formats.ts), so their
 * "invalid" cases say nothing about either validator's correctness.
 */
export const NOT_APPLICABLE: Readonly<Record<string, string>> = {
  "optional/format/idn-email.json": "idn-email is not an asserted format",
  "optional/format/idn-hostname.json": "idn-hostname is not an asserted format",
  "optional/format/iri.json": "iri is not an asserted format",
  "optional/format/iri-reference.json": "iri-reference is not an asserted format",
};

export interface SuiteCase {
  draft: SuiteDraftName;
  /** Path under tests/<draft>/, e.g. "optional/format/email.json". */
  file: string;
  group: string;
  test: string;
  schema: unknown;
  data: unknown;
  valid: boolean;
}

function jsonFiles(dir: string, prefix = ""): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      const relative = prefix === "" ? name : `${prefix}/${name}`;
      if (statSync(full).isDirectory()) return jsonFiles(full, relative);
      return name.endsWith(".json") ? [relative] : [];
    });
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, "utf8"));
}

function text(value: unknown, what: string): string {
  if (typeof value !== "string") throw new TypeError(`suite ${what} is not a string`);
  return value;
}

function requireSuite(): void {
  if (!existsSync(path.join(SUITE_DIR, "tests"))) {
    throw new Error(
      `JSON-Schema-Test-Suite not found at ${SUITE_DIR}: the shared data folder must sit beside the repository (../shared)`,
    );
  }
}

/** Every case of one draft, in file order. Descriptions repeated within a file get a "#n" suffix. */
export function loadCases(draft: SuiteDraftName): SuiteCase[] {
  requireSuite();
  const root = path.join(SUITE_DIR, "tests", draft);
  const cases: SuiteCase[] = [];
  for (const file of jsonFiles(root)) {
    if (NOT_APPLICABLE[file] !== undefined) continue;
    const groups = readJson(path.join(root, file));
    if (!Array.isArray(groups)) throw new TypeError(`${file} is not a list of groups`);
    const groupNames = new Map<string, number>();
    for (const group of groups) {
      if (!isJsonObject(group) || !Array.isArray(group.tests)) throw new TypeError(`${file}: bad group`);
      let groupName = text(group.description, "group description");
      const seenGroup = (groupNames.get(groupName) ?? 0) + 1;
      groupNames.set(groupName, seenGroup);
      if (seenGroup > 1) groupName = `${groupName} #${seenGroup}`;
      const testNames = new Map<string, number>();
      for (const test of group.tests) {
        if (!isJsonObject(test) || typeof test.valid !== "boolean") throw new TypeError(`${file}: bad test`);
        let testName = text(test.description, "test description");
        const seenTest = (testNames.get(testName) ?? 0) + 1;
        testNames.set(testName, seenTest);
        if (seenTest > 1) testName = `${testName} #${seenTest}`;
        cases.push({
          draft,
          file,
          group: groupName,
          test: testName,
          schema: group.schema,
          data: test.data,
          valid: test.valid,
        });
      }
    }
  }
  return cases;
}

/**
 * The suite's remote documents, keyed by the URI the suite serves them at
 * (http://localhost:1234/...). All of them: the cross-draft tests reach into other drafts' folders.
 */
export function loadRemotes(): Record<string, unknown> {
  requireSuite();
  const root = path.join(SUITE_DIR, "remotes");
  const remotes: Record<string, unknown> = {};
  for (const file of jsonFiles(root)) remotes[`http://localhost:1234/${file}`] = readJson(path.join(root, file));
  return remotes;
}

/** validator → draft → file → group → test → reason code (explained under "reasons"). */
export type FailureTable = Record<string, Record<string, Record<string, Record<string, string>>>>;

export interface KnownFailures {
  reasons: Record<string, string>;
  runtime: FailureTable;
  ajv: FailureTable;
}

/** Reads a map of maps `depth` levels deep whose leaves are strings, or throws. */
function stringTree(value: unknown, depth: number, where: string): Record<string, unknown> {
  if (!isJsonObject(value)) throw new TypeError(`known-failures.json: ${where} is not an object`);
  for (const [key, child] of Object.entries(value)) {
    if (depth === 1) {
      if (typeof child !== "string") throw new TypeError(`known-failures.json: ${where}/${key} is not a string`);
    } else {
      stringTree(child, depth - 1, `${where}/${key}`);
    }
  }
  return value;
}

export function loadKnownFailures(): KnownFailures {
  const parsed = readJson(KNOWN_FAILURES_FILE);
  if (!isJsonObject(parsed)) throw new TypeError("known-failures.json is not an object");
  const reasons = stringTree(parsed.reasons, 1, "reasons");
  const runtime = stringTree(parsed.runtime, 4, "runtime");
  const ajv = stringTree(parsed.ajv, 4, "ajv");
  // SAFETY: stringTree checked every level: objects down to string leaves at the stated depth.
  return { reasons, runtime, ajv } as KnownFailures;
}

/** The reason code a case is listed with, if it is listed. */
export function knownReason(table: FailureTable, c: SuiteCase): string | undefined {
  return table[c.draft]?.[c.file]?.[c.group]?.[c.test];
}

export function caseName(c: SuiteCase): string {
  return `${c.draft}/${c.file} › ${c.group} › ${c.test}`;
}
