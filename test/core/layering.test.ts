/**
 * The layering, as a test: src/core is pure (nothing outside src/core by path, no Workers, Hono,
 * drizzle or Node modules), and src/adapters never reaches into src/worker. Every module reference
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
const CORE = path.join(ROOT, "src/core");
const ADAPTERS = path.join(ROOT, "src/adapters");
const WORKER = path.join(ROOT, "src/worker");

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

  for (const reference of source.typeReferenceDirectives) add(reference.fileName, reference.pos, "/// <reference types>");
  for (const reference of source.referencedFiles) add(reference.fileName, reference.pos, "/// <reference path>");
  for (const reference of source.libReferenceDirectives) add(`lib:${reference.fileName}`, reference.pos, "/// <reference lib>");

  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node.getStart(), ts.isImportDeclaration(node) ? "import" : "export from");
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expression = node.moduleReference.expression;
      add(ts.isStringLiteral(expression) ? expression.text : expression.getText(), node.getStart(), "import = require()");
    } else if (ts.isCallExpression(node) && (node.expression.kind === ts.SyntaxKind.ImportKeyword || isRequire(node.expression))) {
      const [argument] = node.arguments;
      const form = node.expression.kind === ts.SyntaxKind.ImportKeyword ? "import()" : "require()";
      // A computed specifier cannot be checked, so it is reported as what it is.
      add(argument && ts.isStringLiteralLike(argument) ? argument.text : `<computed: ${argument?.getText() ?? ""}>`, node.getStart(), form);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
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

/** Why `specifier`, referred to from `file`, breaks core's purity; undefined when it does not. */
function coreViolation(file: string, specifier: string): string | undefined {
  if (specifier.startsWith("<computed")) return "a computed module specifier cannot be checked";
  if (specifier.startsWith("lib:")) return "a lib reference brings in runtime types";
  if (specifier.startsWith(".") || path.isAbsolute(specifier)) {
    const target = path.resolve(path.dirname(file), specifier);
    return isInside(target, CORE) ? undefined : `reaches outside src/core (${path.relative(ROOT, target)})`;
  }
  if (specifier.startsWith("node:") || NODE_BUILTINS.has(specifier.split("/")[0] ?? "")) return "a Node module";
  if (specifier.startsWith("cloudflare:") || specifier.startsWith("@cloudflare/")) return "a Workers module";
  if (specifier === "hono" || specifier.startsWith("hono/")) return "Hono belongs to the worker";
  if (/^drizzle-(orm|kit)(\/|$)/.test(specifier)) return "drizzle belongs to the D1 adapters";
  if (specifier === "@types/node" || specifier === "node") return "Node's types";
  return undefined;
}

/** Why `specifier`, referred to from an adapter `file`, breaks the layering; undefined when it does not. */
function adapterViolation(file: string, specifier: string): string | undefined {
  if (specifier.startsWith("<computed")) return "a computed module specifier cannot be checked";
  if (!specifier.startsWith(".") && !path.isAbsolute(specifier)) return undefined;
  const target = path.resolve(path.dirname(file), specifier);
  return isInside(target, WORKER) ? `adapters never import the worker (${path.relative(ROOT, target)})` : undefined;
}

function isInside(target: string, directory: string): boolean {
  const relative = path.relative(directory, target);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|mts|cts|tsx)$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** Every violation under `directory`, as "file:line: form "specifier": why". */
function violations(directory: string, rule: (file: string, specifier: string) => string | undefined): string[] {
  return sourceFiles(directory).flatMap((file) =>
    moduleReferences(file, readFileSync(file, "utf8")).flatMap((reference) => {
      const why = rule(file, reference.specifier);
      return why === undefined ? [] : [`${path.relative(ROOT, file)}:${reference.line}: ${reference.form} "${reference.specifier}": ${why}`];
    }),
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
    expect(moduleReferences(path.join(CORE, "x.ts"), text)).toEqual([
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

  it("tells core's allowed references from forbidden ones", () => {
    const file = path.join(CORE, "contract/x.ts");
    const verdicts = Object.fromEntries(
      ["./y.js", "../json.js", "../../adapters/crypto.js", "../../worker/app.js", "../../cli/main.js", "node:crypto", "crypto", "fs/promises",
        "cloudflare:workers", "@cloudflare/workers-types", "hono", "hono/http-exception", "drizzle-orm/d1", "node", "yaml", "<computed: x>", "lib:dom"]
        .map((specifier) => [specifier, coreViolation(file, specifier) ?? "ok"]),
    );
    expect(verdicts).toEqual({
      "./y.js": "ok",
      "../json.js": "ok",
      "../../adapters/crypto.js": "reaches outside src/core (src/adapters/crypto.js)",
      "../../worker/app.js": "reaches outside src/core (src/worker/app.js)",
      "../../cli/main.js": "reaches outside src/core (src/cli/main.js)",
      "node:crypto": "a Node module",
      crypto: "a Node module",
      "fs/promises": "a Node module",
      "cloudflare:workers": "a Workers module",
      "@cloudflare/workers-types": "a Workers module",
      hono: "Hono belongs to the worker",
      "hono/http-exception": "Hono belongs to the worker",
      "drizzle-orm/d1": "drizzle belongs to the D1 adapters",
      node: "Node's types",
      yaml: "ok",
      "<computed: x>": "a computed module specifier cannot be checked",
      "lib:dom": "a lib reference brings in runtime types",
    });
    const adapter = path.join(ADAPTERS, "d1/x.ts");
    expect([adapterViolation(adapter, "../../worker/env.js"), adapterViolation(adapter, "../../core/json.js"), adapterViolation(adapter, "hono")])
      .toEqual(["adapters never import the worker (src/worker/env.js)", undefined, undefined]);
  });
});

describe("the layering", () => {
  it("keeps src/core pure: nothing outside src/core by path, no Workers, Hono, drizzle or Node modules", () => {
    expect(sourceFiles(CORE).length).toBeGreaterThan(0);
    expect(violations(CORE, coreViolation)).toEqual([]);
  });

  it("keeps src/adapters off src/worker", () => {
    expect(sourceFiles(ADAPTERS).length).toBeGreaterThan(0);
    expect(violations(ADAPTERS, adapterViolation)).toEqual([]);
  });
});
