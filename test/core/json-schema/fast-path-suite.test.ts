/**
 * The fast path against cfworker on the official JSON-Schema-Test-Suite: for every case whose
 * schema the fast path compiles, its verdict equals cfworker's through the slow path (right or
 * wrong by the suite: the fast path copies cfworker, known failures included). And the runtime
 * validator gives the very same Problem arrays with the fast path on and off, on every case.
 */
import { afterAll, describe, expect, it } from "vitest";
import { caseName, loadCases, loadRemotes, SUITE_DRAFTS } from "../../conformance/suite.js";
import { createRuntimeValidator } from "../../../src/adapters/json-schema/runtime-validator.js";
import { asSchema, fastPathFor, lookupFor, slowValidator, validateWarm } from "./fast-path-harness.js";

const remotes = loadRemotes();
const base = lookupFor(remotes);

/**
 * Floors for how much of the suite the fast path covers (cases whose schema compiles), so a
 * change that quietly sends everything to cfworker fails here. Raise them as coverage grows.
 */
const MIN_COVERED: Readonly<Record<string, number>> = { "draft2020-12": 1000, draft7: 800 };

const summary: string[] = [];
afterAll(() => console.log(`fast path coverage of the JSON-Schema-Test-Suite:\n${summary.join("\n")}`));

describe.each(SUITE_DRAFTS)("fast path on $name", ({ name, draft }) => {
  const cases = loadCases(name);

  it("agrees with cfworker on every case whose schema it compiles", () => {
    const slow = slowValidator({ knownSchemas: remotes, defaultDraft: draft });
    // Cases of one group share their schema object: compile each once.
    const compiled = new Map<unknown, ReturnType<typeof fastPathFor>>();
    const disagreements: string[] = [];
    let covered = 0;
    let coveredValid = 0;
    for (const c of cases) {
      if (!compiled.has(c.schema)) compiled.set(c.schema, fastPathFor(c.schema, draft, base));
      const fast = compiled.get(c.schema);
      if (fast === undefined) continue;
      covered++;
      const fastValid = fast(c.data);
      const slowValid = slow.validate(asSchema(c.schema), c.data).length === 0;
      if (fastValid) coveredValid++;
      if (fastValid !== slowValid)
        disagreements.push(
          `${caseName(c)}: fast path ${fastValid ? "valid" : "invalid"}, cfworker ${slowValid ? "valid" : "invalid"}`,
        );
    }
    const schemas = compiled.size;
    const compiledSchemas = [...compiled.values()].filter((f) => f !== undefined).length;
    summary.push(
      `${name}: ${compiledSchemas}/${schemas} schemas compiled, ${covered}/${cases.length} cases covered (${coveredValid} decided valid without cfworker)`,
    );
    expect(disagreements).toEqual([]);
    expect(covered).toBeGreaterThanOrEqual(MIN_COVERED[name] ?? 0);
  }, 120_000);

  it("leaves every Problem array of the runtime validator unchanged", () => {
    const slow = slowValidator({ knownSchemas: remotes, defaultDraft: draft });
    const fast = createRuntimeValidator({ knownSchemas: remotes, defaultDraft: draft });
    const different = cases
      .map((c) => ({
        c,
        slow: slow.validate(asSchema(c.schema), c.data),
        fast: validateWarm(fast, asSchema(c.schema), c.data),
      }))
      .filter((r) => JSON.stringify(r.slow) !== JSON.stringify(r.fast))
      .map((r) => `${caseName(r.c)}\n  without ${JSON.stringify(r.slow)}\n  with    ${JSON.stringify(r.fast)}`);
    expect(different).toEqual([]);
  }, 120_000);
});
