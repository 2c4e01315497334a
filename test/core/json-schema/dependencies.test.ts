/**
 * Dependencies match use: ajv and ajv-formats serve the tests and benchmarks only (the
 * independent validator in test/support/ajv), so nothing the Worker or the CLI ships imports them,
 * and package.json lists them as dev dependencies.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const REPO = path.resolve(import.meta.dirname, "../../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

describe("ajv is a dev dependency", () => {
  it("is imported by nothing under src/ or bin/", () => {
    const importers = [...sourceFiles(path.join(REPO, "src")), ...sourceFiles(path.join(REPO, "bin"))]
      .filter((file) => /from\s+["']ajv(-formats)?(\/[^"']*)?["']|import\(\s*["']ajv/.test(readFileSync(file, "utf8")))
      .map((file) => path.relative(REPO, file));
    expect(importers).toEqual([]);
  });

  it("is listed under devDependencies, not dependencies", () => {
    const manifest: { dependencies: Record<string, string>; devDependencies: Record<string, string> } = JSON.parse(
      readFileSync(path.join(REPO, "package.json"), "utf8"),
    );
    expect({
      dependencies: ["ajv", "ajv-formats"].filter((name) => name in manifest.dependencies),
      devDependencies: ["ajv", "ajv-formats"].filter((name) => name in manifest.devDependencies),
    }).toEqual({ dependencies: [], devDependencies: ["ajv", "ajv-formats"] });
  });
});
