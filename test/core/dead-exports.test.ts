/**
 * No dead exports in src/: every name a source file exports is imported by some other file (in
 * src/, test/, scripts/, bin/ or examples/). An export that nothing else imports is either dead
 * code or a helper of its own file that claims to be shared; both mislead whoever reads it.
 *
 * Read from each file's syntax tree, as the layering test reads imports: named imports and
 * re-exports count for the names they take; a namespace import, `export *` or `import()` counts
 * for every name of its target (bin/toolproof.mjs loads the CLI that way). Not checked:
 * src/worker/index.ts (its exports are the Worker's entry points, which the runtime finds by name
 * from wrangler.toml), src/adapters/d1/schema.ts (drizzle-kit reads every table it exports),
 * declaration files, and the few names in KEPT, which a README points readers at.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const IMPORTERS = ["src", "test", "scripts", "bin", "examples"];
const NOT_CHECKED = new Set(["src/worker/index.ts", "src/adapters/d1/schema.ts"]);
/** Exports nothing imports but that stay exported on purpose, as "file name". */
const KEPT = new Set([
  // src/worker/dashboard/README.md names these as the places to look.
  "src/worker/dashboard/charts.tsx barGeometry",
  "src/worker/dashboard/page.tsx errorPage",
  "src/worker/dashboard/sign-in.tsx HOME_PATH",
  "src/worker/dashboard/sign-in.tsx readForm",
]);

/** Every file's text, by its path from the root (posix separators). */
type Tree = ReadonlyMap<string, string>;

function readTree(): Tree {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && !entry.name.startsWith(".")) walk(rel);
      } else if (/\.(ts|tsx|mts|js|mjs)$/.test(entry.name)) {
        files.set(rel, readFileSync(path.join(ROOT, rel), "utf8"));
      }
    }
  };
  for (const dir of IMPORTERS) if (statSync(path.join(ROOT, dir), { throwIfNoEntry: false })?.isDirectory()) walk(dir);
  return files;
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the source), when it is one of the tree's. */
function resolve(tree: Tree, from: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = path.posix.join(path.posix.dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|mjs)$/, "");
  return [base, `${stem}.ts`, `${stem}.tsx`, `${stem}.mts`, `${base}/index.ts`].find((candidate) =>
    tree.has(candidate),
  );
}

interface Exported {
  name: string;
  line: number;
}

function scriptKind(file: string): ts.ScriptKind {
  if (file.endsWith(".tsx")) return ts.ScriptKind.TSX;
  return /\.m?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
}

function modifiers(node: ts.Node): readonly ts.ModifierLike[] {
  return (ts.canHaveModifiers(node) && ts.getModifiers(node)) || [];
}

/** What one file takes from others (by specifier; "*" for every name) and what it exports. */
interface FileFacts {
  uses: { specifier: string; name: string }[];
  exports: Exported[];
}

/** Facts by file and text: parsing is most of the cost, and the planted case re-reads the same files. */
const parsed = new Map<string, { text: string; facts: FileFacts }>();

function factsOf(file: string, text: string): FileFacts {
  const known = parsed.get(file);
  if (known?.text === text) return known.facts;
  // No parent pointers (a third of the parse time): nothing below walks upwards.
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, scriptKind(file));
  const lineOf = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const facts: FileFacts = { uses: [], exports: [] };
  const use = (specifier: string, name: string) => facts.uses.push({ specifier, name });
  const add = (name: string, node: ts.Node) => facts.exports.push({ name, line: lineOf(node) });

  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      const specifier = statement.moduleSpecifier.text;
      const clause = statement.importClause;
      if (clause?.name) use(specifier, "default");
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) use(specifier, "*");
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) use(specifier, (element.propertyName ?? element.name).text);
    } else if (ts.isExportDeclaration(statement)) {
      const specifier =
        statement.moduleSpecifier && ts.isStringLiteral(statement.moduleSpecifier)
          ? statement.moduleSpecifier.text
          : undefined;
      const clause = statement.exportClause;
      if (!clause || ts.isNamespaceExport(clause)) {
        if (specifier) use(specifier, "*");
      } else
        for (const element of clause.elements) {
          if (specifier) use(specifier, (element.propertyName ?? element.name).text);
          else add(element.name.text, element);
        }
    } else if (ts.isExportAssignment(statement)) {
      add("default", statement);
    } else if (modifiers(statement).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      const isDefault = modifiers(statement).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);
      if (isDefault) add("default", statement);
      else if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations)
          if (ts.isIdentifier(declaration.name)) add(declaration.name.text, declaration);
      } else if (
        (ts.isFunctionDeclaration(statement) ||
          ts.isClassDeclaration(statement) ||
          ts.isInterfaceDeclaration(statement) ||
          ts.isTypeAliasDeclaration(statement) ||
          ts.isEnumDeclaration(statement)) &&
        statement.name
      ) {
        add(statement.name.text, statement);
      }
    }
  }
  // import("./x.js") and import("./x.js").T anywhere in the file.
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) use(argument.text, "*");
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      const qualifier = node.qualifier;
      use(node.argument.literal.text, qualifier && ts.isIdentifier(qualifier) ? qualifier.text : "*");
    }
    ts.forEachChild(node, visit);
  };
  // Only a file that mentions import( can hold one; walking every node of the others is wasted.
  if (text.includes("import(")) visit(source);
  parsed.set(file, { text, facts });
  return facts;
}

/** The dead exports of the tree, as "file:line name". */
function deadExports(tree: Tree): string[] {
  const used = new Map<string, Set<string>>();
  for (const [file, text] of tree)
    for (const { specifier, name } of factsOf(file, text).uses) {
      const target = resolve(tree, file, specifier);
      if (!target) continue;
      const names = used.get(target) ?? new Set<string>();
      names.add(name);
      used.set(target, names);
    }

  const dead: string[] = [];
  for (const [file, text] of tree) {
    if (!file.startsWith("src/") || file.endsWith(".d.ts") || NOT_CHECKED.has(file)) continue;
    const taken = used.get(file) ?? new Set<string>();
    if (taken.has("*")) continue;
    for (const { name, line } of factsOf(file, text).exports)
      if (!taken.has(name) && !KEPT.has(`${file} ${name}`)) dead.push(`${file}:${line} ${name}`);
  }
  return dead.sort();
}

describe("exports", () => {
  const tree = readTree();

  it("every export of src/ is imported by another file", () => {
    expect(deadExports(tree)).toEqual([]);
  });

  it("an export planted in the real tree, and one its importer stops taking, are both listed", () => {
    const planted = new Map(tree);
    planted.set("src/core/planted.ts", "/** A helper. */\nexport const planted = 1;\nexport function alsoDead() {}");
    planted.set("test/core/planted.test.ts", 'import { planted } from "../../src/core/planted.js";');
    expect(deadExports(planted)).toEqual(["src/core/planted.ts:3 alsoDead"]);
    planted.set("test/core/planted.test.ts", 'import type { Other } from "../../src/core/planted.js";');
    expect(deadExports(planted)).toEqual(["src/core/planted.ts:2 planted", "src/core/planted.ts:3 alsoDead"]);
  });

  it("the check finds an export nothing imports, and counts every form of import", () => {
    const tree = new Map([
      [
        "src/a.ts",
        "export function used() {}\nexport const dead = 1;\nexport interface Shape {}\nexport type Alias = string;",
      ],
      ["src/b.ts", 'import { used } from "./a.js";\nexport { used as again };\nexport default 1;'],
      ["src/c.ts", 'import type { Shape } from "./a.js";\nexport type T = import("./a.js").Alias;'],
      ["src/d.ts", "export const whole = 1;"],
      ["test/d.test.ts", 'import * as d from "../src/d.js";\nimport b from "../src/b.js";'],
    ]);
    expect(deadExports(tree)).toEqual(["src/a.ts:2 dead", "src/b.ts:2 again", "src/c.ts:2 T"]);
  });
});
