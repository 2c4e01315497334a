/**
 * src/adapters/json-schema/vendor/cfworker-validate.js is @cfworker/json-schema's validate with
 * exactly three edits (its header says which). This re-applies them to the installed package and
 * compares, so upgrading the package without re-vendoring fails here instead of drifting.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const REPO = path.resolve(import.meta.dirname, "../../..");
const read = (file: string): string => readFileSync(path.join(REPO, file), "utf8");

const EDITS: ReadonlyArray<[upstream: string, vendored: string]> = [
  [
    [
      "import { deepCompareStrict } from './deep-compare-strict.js';",
      "import { dereference } from './dereference.js';",
      "import { format } from './format.js';",
      "import { encodePointer } from './pointer.js';",
      "import { ucs2length } from './ucs2-length.js';",
      "",
    ].join("\n"),
    [
      "import { deepCompareStrict, dereference, encodePointer, format, ucs2length } from '@cfworker/json-schema';",
      "// The .ts name: a .js module gets no .js-to-.ts mapping from tsx or Vite.",
      "import { compilePattern } from '../pattern-engine.ts';",
      "",
    ].join("\n"),
  ],
  ["const regex = new RegExp(pattern, 'u');", "const regex = compilePattern(pattern);"],
  ["!new RegExp($pattern, 'u').test(instance)", "!compilePattern($pattern).test(instance)"],
];

describe("the vendored copy of cfworker's validate", () => {
  it("is the installed package's file with the documented edits and nothing else", () => {
    const version: unknown = JSON.parse(read("node_modules/@cfworker/json-schema/package.json")).version;
    let expected = read("node_modules/@cfworker/json-schema/dist/esm/validate.js").replace(
      /\n\/\/# sourceMappingURL=.*$/,
      "\n",
    );
    for (const [upstream, vendored] of EDITS) {
      expect(expected.split(upstream).length - 1).toBe(1);
      expected = expected.replace(upstream, vendored);
    }
    const vendoredFile = read("src/adapters/json-schema/vendor/cfworker-validate.js");
    const header = vendoredFile.slice(0, vendoredFile.indexOf("import "));
    expect(header.startsWith(`// @cfworker/json-schema ${String(version)}, dist/esm/validate.js`)).toBe(true);
    expect(vendoredFile.slice(header.length)).toBe(expected);
  });
});
