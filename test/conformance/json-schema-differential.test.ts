/**
 * Differential test: the runtime validator (the Worker's) against ajv (the CLI's) on every
 * JSON-Schema-Test-Suite case. They must give the same valid/invalid verdict, except where one
 * of them is known to be wrong (known-failures.json names which one and why); every
 * disagreement is printed. Where both reject a value, their Problem arrays are compared too,
 * since an agent reads the same problems from the CLI and from the service.
 */
import { describe, expect, it } from "vitest";
import { caseName, knownReason, loadCases, loadKnownFailures, loadRemotes, SUITE_DRAFTS } from "./suite.js";
import { judge, VALIDATOR_FACTORIES } from "./validators.js";

const known = loadKnownFailures();
const remotes = loadRemotes();

/**
 * Cases both validators reject with different Problem arrays, per draft: a ceiling that may only
 * go down. What is left: schemas one of them cannot use (each says why in its own words: an
 * empty "enum" ajv refuses to compile, duplicate "$id"s, the known $dynamicRef and reference
 * failures), and "unevaluatedItems"/"unevaluatedProperties" where the two collect annotations
 * from failed or "oneOf" subschemas differently.
 */
const MAX_PROBLEM_DIFFERENCES: Readonly<Record<string, number>> = { "draft2020-12": 30, draft7: 3 };

describe.each(SUITE_DRAFTS)("runtime vs ajv on $name", ({ name, draft }) => {
  const cases = loadCases(name);
  const runtime = VALIDATOR_FACTORIES.runtime({ knownSchemas: remotes, defaultDraft: draft });
  const ajv = VALIDATOR_FACTORIES.ajv({ knownSchemas: remotes, defaultDraft: draft });
  const results = cases.map((c) => ({ c, runtime: judge(runtime, c), ajv: judge(ajv, c) }));

  it("gives the same verdict, or the one that is wrong is a listed known failure", () => {
    const disagreements = results.filter((r) => r.runtime.valid !== r.ajv.valid);
    const report = disagreements.map((r) => {
      const wrong = r.runtime.valid === r.c.valid ? "ajv" : "runtime";
      const reason = knownReason(known[wrong], r.c);
      return `${caseName(r.c)}: runtime ${r.runtime.valid ? "valid" : "invalid"}, ajv ${r.ajv.valid ? "valid" : "invalid"}, suite ${r.c.valid ? "valid" : "invalid"} → ${wrong} wrong (${reason ?? "NOT LISTED"})`;
    });
    console.log(
      `${name}: ${disagreements.length} verdict disagreements of ${cases.length} cases\n${report.join("\n")}`,
    );
    expect(report.filter((line) => line.endsWith("(NOT LISTED)"))).toEqual([]);
  }, 120_000);

  it("reports the same problems where both reject", () => {
    const bothReject = results.filter((r) => !r.runtime.valid && !r.ajv.valid);
    const different = bothReject.filter((r) => JSON.stringify(r.runtime.problems) !== JSON.stringify(r.ajv.problems));
    const report = different.map(
      (r) =>
        `${caseName(r.c)}\n  runtime ${JSON.stringify(r.runtime.problems)}\n  ajv     ${JSON.stringify(r.ajv.problems)}`,
    );
    console.log(
      `${name}: ${bothReject.length - different.length}/${bothReject.length} rejections with identical problems\n${report.join("\n")}`,
    );
    expect(different.length).toBeLessThanOrEqual(MAX_PROBLEM_DIFFERENCES[name] ?? 0);
  }, 120_000);
});
