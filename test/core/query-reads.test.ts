/**
 * The API reads its query parameters only through src/worker/http/query.ts (queryParam, and
 * pageLimit and pageCursor over it), which refuses a value whose percent-escapes are not UTF-8;
 * Hono's own reader would hand such a value back verbatim. The dashboard's pages are left out:
 * they are HTML for people and fall back to their defaults on a parameter they cannot use.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const WORKER = "src/worker";
const LEFT_OUT = "src/worker/dashboard/";

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(rel);
    return /\.tsx?$/.test(entry.name) ? [rel] : [];
  });
}

describe("query parameters", () => {
  it("are read through queryParam everywhere in the API", () => {
    const direct = sources(WORKER)
      .filter((file) => !file.startsWith(LEFT_OUT))
      .flatMap((file) =>
        readFileSync(path.join(ROOT, file), "utf8")
          .split("\n")
          .flatMap((line, index) =>
            /\.req\.quer(y|ies)\(/.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
          ),
      );
    expect(direct).toEqual([]);
  });
});
