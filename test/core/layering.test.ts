/**
 * The layering, as an allowlist: each layer names the npm packages and the src folders it may
 * import (a new package in src/core fails until it is named here), the Worker's folders keep their
 * arrows pointing down (route files are the top: nothing but app.ts imports one, and no route file
 * imports another; http/ and platform/ sit under every feature), src/cli never imports the worker,
 * and src/ has no file cycle and no cycle between folders. Every module reference
 * a file makes is read from its syntax tree (static and dynamic imports, `import type`,
 * `export ... from`, `import x = require()`, `require()`, `import("x").T` in types and triple-slash
 * references), so a violation is listed with file:line whatever form it takes.
 *
 * The other half of core's purity (no ambient runtime types) is `tsc -p tsconfig.core.json`, run
 * by `npm run typecheck`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const SRC = path.join(ROOT, "src");

interface ModuleReference {
  specifier: string;
  line: number;
  /** How the file refers to it, for the message. */
  form: string;
}

/** Every module a TypeScript source refers to, in order of appearance. */
function moduleReferences(fileName: string, text: string): ModuleReference[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: ModuleReference[] = [];
  const add = (specifier: string, pos: number, form: string) =>
    found.push({ specifier, line: source.getLineAndCharacterOfPosition(pos).line + 1, form });

  for (const reference of source.typeReferenceDirectives)
    add(reference.fileName, reference.pos, "/// <reference types>");
  for (const reference of source.referencedFiles) add(reference.fileName, reference.pos, "/// <reference path>");
  for (const reference of source.libReferenceDirectives)
    add(`lib:${reference.fileName}`, reference.pos, "/// <reference lib>");

  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.getStart(), ts.isImportDeclaration(node) ? "import" : "export from");
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expression = node.moduleReference.expression;
      add(
        ts.isStringLiteral(expression) ? expression.text : expression.getText(),
        node.getStart(),
        "import = require()",
      );
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword || isRequire(node.expression))
    ) {
      const [argument] = node.arguments;
      const form = node.expression.kind === ts.SyntaxKind.ImportKeyword ? "import()" : "require()";
      // A computed specifier cannot be checked, so it is reported as what it is.
      add(
        argument && ts.isStringLiteralLike(argument) ? argument.text : `<computed: ${argument?.getText() ?? ""}>`,
        node.getStart(),
        form,
      );
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node.argument.literal.text, node.getStart(), 'import("...") type');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isRequire(expression: ts.Expression): boolean {
  return ts.isIdentifier(expression) && expression.text === "require";
}

const NODE_BUILTINS = new Set(builtinModules);

type Layer = "core" | "adapters" | "worker" | "cli";

/** Which packages and which layers each layer may import. A package is named by its npm name. */
const ALLOWED: Record<
  Layer,
  { layers: readonly Layer[]; packages: readonly string[]; node: boolean; workers: boolean }
> = {
  // Each core package is pure computation with no platform I/O: yaml (suite documents),
  // @marcbachmann/cel-js (version-2 definition expressions, docs/mock-definition.md) and
  // ipaddr.js (upstream address ranges, docs/real-tools.md).
  core: { layers: ["core"], packages: ["yaml", "@marcbachmann/cel-js", "ipaddr.js"], node: false, workers: false },
  adapters: {
    layers: ["core", "adapters"],
    packages: ["@cfworker/json-schema", "@eslint-community/regexpp", "drizzle-orm", "openai", "re2js", "safe-regex2"],
    node: true,
    workers: true,
  },
  worker: {
    layers: ["core", "adapters", "worker"],
    packages: ["@modelcontextprotocol/sdk", "diff", "hono", "zod"],
    node: false,
    workers: true,
  },
  cli: { layers: ["core", "adapters", "cli"], packages: [], node: true, workers: false },
};

/** Worker folders every feature may import, and that import no feature themselves. */
const WORKER_FOUNDATION = new Set(["http", "platform"]);

/** One source file of the set the rules judge: its path under src/ ("worker/runs/routes.ts") and its text. */
type SourceSet = ReadonlyMap<string, string>;

function layerOf(file: string): Layer | undefined {
  const top = file.split("/")[0];
  return top === "core" || top === "adapters" || top === "worker" || top === "cli" ? top : undefined;
}

/** The npm package a bare specifier names ("@scope/name" or "name"). */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/** A route file mounts endpoints: `routes.ts` or `<what>-routes.ts` in a feature folder of the worker. */
function isRouteFile(file: string): boolean {
  return file.startsWith("worker/") && /(^|\/|-)routes\.tsx?$/.test(file);
}

/** An endpoint's OpenAPI description sits beside its routes and reads their schemas. */
function isDescription(file: string): boolean {
  return file.startsWith("worker/") && /(^|\/|-)openapi\.ts$/.test(file);
}

/** The worker's entry points (app.ts, index.ts, globals.d.ts) sit at its root, above every folder. */
function isWorkerRoot(file: string): boolean {
  return file.startsWith("worker/") && file.split("/").length === 2;
}

/** The folder a file belongs to for the folder-cycle rule: the first folder under its layer. */
function unitOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? parts.slice(0, 2).join("/") : (parts[0] ?? file);
}

/** The file a relative specifier names inside the set, or undefined. */
function resolveIn(files: SourceSet, from: string, specifier: string): string | undefined {
  const bare = path.posix.join(path.posix.dirname(from), specifier.split("?")[0] ?? specifier);
  const stem = bare.replace(/\.(m?js|tsx?)$/, "");
  return [`${stem}.ts`, `${stem}.tsx`, `${stem}.d.ts`, `${stem}/index.ts`, bare].find((candidate) =>
    files.has(candidate),
  );
}

/** Why `specifier`, referred to from `file`, breaks the allowlist; undefined when it does not. */
function referenceViolation(files: SourceSet, file: string, specifier: string): string | undefined {
  const layer = layerOf(file);
  if (!layer) return undefined;
  const allowed = ALLOWED[layer];
  if (specifier.startsWith("<computed")) return "a computed module specifier cannot be checked";
  if (specifier.startsWith("lib:")) return layer === "core" ? "a lib reference brings in runtime types" : undefined;
  if (specifier.startsWith(".")) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
    if (target.startsWith("..")) return `reaches outside src (${target})`;
    const targetLayer = layerOf(target);
    if (!targetLayer || !allowed.layers.includes(targetLayer))
      return `src/${layer} may not import src/${target.split("/")[0]} (${target})`;
    const resolved = resolveIn(files, file, specifier) ?? target;
    if (layer === "worker") return workerViolation(file, resolved);
    return undefined;
  }
  if (path.isAbsolute(specifier)) return "an absolute path";
  if (
    specifier.startsWith("node:") ||
    NODE_BUILTINS.has(specifier.split("/")[0] ?? "") ||
    specifier === "node" ||
    specifier === "@types/node"
  ) {
    return allowed.node ? undefined : "a Node module";
  }
  if (specifier.startsWith("cloudflare:") || specifier.startsWith("@cloudflare/"))
    return allowed.workers ? undefined : "a Workers module";
  const name = packageOf(specifier);
  return allowed.packages.includes(name)
    ? undefined
    : `package "${name}" is not on src/${layer}'s list in test/core/layering.test.ts`;
}

/** The rules inside the worker, for a reference from `file` to the worker file `target`. */
function workerViolation(file: string, target: string): string | undefined {
  if (isWorkerRoot(target) && !isWorkerRoot(file)) return `only the entry points import ${target}`;
  if (isRouteFile(target)) {
    if (isRouteFile(file)) return `a route file never imports another route file (${target})`;
    if (!isDescription(file) && !isWorkerRoot(file)) return `a domain module never imports a route file (${target})`;
  }
  const from = unitOf(file).split("/")[1];
  const to = unitOf(target).split("/")[1];
  if (
    from &&
    target.startsWith("worker/") &&
    WORKER_FOUNDATION.has(from) &&
    to !== undefined &&
    !WORKER_FOUNDATION.has(to) &&
    !isWorkerRoot(target)
  ) {
    return `worker/${from}/ sits under every feature and never imports one (${target})`;
  }
  return undefined;
}

/** Every reference in the set that breaks a rule, as "file:line: form "specifier": why". */
function referenceViolations(files: SourceSet): string[] {
  return [...files].flatMap(([file, text]) =>
    moduleReferences(file, text).flatMap((reference) => {
      const why = referenceViolation(files, file, reference.specifier);
      return why === undefined ? [] : [`${file}:${reference.line}: ${reference.form} "${reference.specifier}": ${why}`];
    }),
  );
}

/** Strongly connected components of more than one node (Tarjan), each sorted, the list sorted. */
function cycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(to) ?? 0));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) ?? 0, index.get(to) ?? 0));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/** File cycles and folder cycles (folders as unitOf draws them) of the set, by their members. */
function importCycles(files: SourceSet): { files: string[][]; folders: string[][] } {
  const fileEdges = new Map<string, Set<string>>();
  const folderEdges = new Map<string, Set<string>>();
  for (const [file, text] of files) {
    const out = new Set<string>();
    for (const reference of moduleReferences(file, text)) {
      if (!reference.specifier.startsWith(".")) continue;
      const target = resolveIn(files, file, reference.specifier);
      if (target) out.add(target);
    }
    fileEdges.set(file, out);
    for (const target of out) {
      const [from, to] = [unitOf(file), unitOf(target)];
      if (from === to) continue;
      folderEdges.set(from, (folderEdges.get(from) ?? new Set()).add(to));
      if (!folderEdges.has(to)) folderEdges.set(to, new Set());
    }
  }
  return { files: cycles(fileEdges), folders: cycles(folderEdges) };
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|cts|tsx)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

function theTree(): SourceSet {
  return new Map(
    sourceFiles(SRC).map((file) => [path.relative(SRC, file).split(path.sep).join("/"), readFileSync(file, "utf8")]),
  );
}

/** A small set of files from "path: import lines", for planting one violation at a time. */
function planted(entries: Record<string, string[]>): SourceSet {
  return new Map(
    Object.entries(entries).map(([file, specifiers]) => [
      file,
      specifiers.map((s, i) => `import { x${i} } from "${s}";`).join("\n"),
    ]),
  );
}

describe("the reference scanner", () => {
  it("finds every form a module reference can take, with its line", () => {
    const text = [
      '/// <reference types="node" />',
      'import { a } from "./a.js";',
      'import type { B } from "hono";',
      'import * as c from "node:fs";',
      'import "side-effect";',
      'export { d } from "../worker/d.js";',
      'export * from "drizzle-orm";',
      'import e = require("cloudflare:workers");',
      'const f = await import("./f.js");',
      'const g = require("crypto");',
      'type H = import("@cloudflare/workers-types").D1Database;',
      "const i = await import(name);",
      'const notAnImport = "import x from \\"hono\\"";',
    ].join("\n");
    expect(moduleReferences("core/x.ts", text)).toEqual([
      { specifier: "node", line: 1, form: "/// <reference types>" },
      { specifier: "./a.js", line: 2, form: "import" },
      { specifier: "hono", line: 3, form: "import" },
      { specifier: "node:fs", line: 4, form: "import" },
      { specifier: "side-effect", line: 5, form: "import" },
      { specifier: "../worker/d.js", line: 6, form: "export from" },
      { specifier: "drizzle-orm", line: 7, form: "export from" },
      { specifier: "cloudflare:workers", line: 8, form: "import = require()" },
      { specifier: "./f.js", line: 9, form: "import()" },
      { specifier: "crypto", line: 10, form: "require()" },
      { specifier: "@cloudflare/workers-types", line: 11, form: 'import("...") type' },
      { specifier: "<computed: name>", line: 12, form: "import()" },
    ]);
  });
});

describe("each rule, on a planted violation", () => {
  it("core imports only the packages named for it, and nothing of Node, Workers or another layer", () => {
    const files = planted({
      "core/contract/x.ts": [
        "./y.js",
        "../json.js",
        "yaml",
        "zod",
        "node:crypto",
        "crypto",
        "cloudflare:workers",
        "hono",
        "../../worker/app.js",
        "../../adapters/crypto.js",
      ],
    });
    expect(referenceViolations(files)).toEqual([
      'core/contract/x.ts:4: import "zod": package "zod" is not on src/core\'s list in test/core/layering.test.ts',
      'core/contract/x.ts:5: import "node:crypto": a Node module',
      'core/contract/x.ts:6: import "crypto": a Node module',
      'core/contract/x.ts:7: import "cloudflare:workers": a Workers module',
      'core/contract/x.ts:8: import "hono": package "hono" is not on src/core\'s list in test/core/layering.test.ts',
      'core/contract/x.ts:9: import "../../worker/app.js": src/core may not import src/worker (worker/app.js)',
      'core/contract/x.ts:10: import "../../adapters/crypto.js": src/core may not import src/adapters (adapters/crypto.js)',
    ]);
  });

  it("adapters and the cli never import the worker", () => {
    expect(
      referenceViolations(
        planted({
          "adapters/d1/x.ts": ["../../worker/platform/env.js", "../../core/json.js", "drizzle-orm/d1"],
          "cli/main.ts": ["../worker/runs/view.js", "../core/json.js", "node:fs"],
        }),
      ),
    ).toEqual([
      'adapters/d1/x.ts:1: import "../../worker/platform/env.js": src/adapters may not import src/worker (worker/platform/env.js)',
      'cli/main.ts:1: import "../worker/runs/view.js": src/cli may not import src/worker (worker/runs/view.js)',
    ]);
  });

  it("a route file never imports another route file; a domain module never imports a route file", () => {
    const files = planted({
      "worker/runs/routes.ts": ["../suites/routes.js", "./view.js", "../suites/stored-suite.js"],
      "worker/runs/view.ts": ["../suites/routes.js"],
      "worker/runs/openapi.ts": ["./routes.js"],
      "worker/app.ts": ["./runs/routes.js"],
      "worker/suites/routes.ts": [],
      "worker/suites/stored-suite.ts": [],
    });
    expect(referenceViolations(files)).toEqual([
      'worker/runs/routes.ts:1: import "../suites/routes.js": a route file never imports another route file (worker/suites/routes.ts)',
      'worker/runs/view.ts:1: import "../suites/routes.js": a domain module never imports a route file (worker/suites/routes.ts)',
    ]);
  });

  it("http/ and platform/ import no feature, and nothing imports the entry points", () => {
    const files = planted({
      "worker/http/auth.ts": ["../attempts/access.js", "../platform/env.js"],
      "worker/runs/view.ts": ["../app.js"],
      "worker/attempts/access.ts": [],
      "worker/platform/env.ts": [],
      "worker/app.ts": [],
    });
    expect(referenceViolations(files)).toEqual([
      'worker/http/auth.ts:1: import "../attempts/access.js": worker/http/ sits under every feature and never imports one (worker/attempts/access.ts)',
      'worker/runs/view.ts:1: import "../app.js": only the entry points import worker/app.ts',
    ]);
  });

  it("finds file cycles and folder cycles", () => {
    const files = planted({
      "cli/a.ts": ["./b.js"],
      "cli/b.ts": ["./a.js"],
      "worker/runs/x.ts": ["../attempts/y.js"],
      "worker/attempts/y.ts": ["../runs/z.js"],
      "worker/runs/z.ts": [],
    });
    expect(importCycles(files)).toEqual({
      files: [["cli/a.ts", "cli/b.ts"]],
      folders: [["worker/attempts", "worker/runs"]],
    });
  });
});

describe("the tree", () => {
  const tree = theTree();

  it("keeps every layer to its allowlist and the worker's arrows pointing down", () => {
    expect(tree.size).toBeGreaterThan(100);
    expect(referenceViolations(tree)).toEqual([]);
  });

  it("has no file cycle and no folder cycle", () => {
    expect(importCycles(tree)).toEqual({ files: [], folders: [] });
  });
});
