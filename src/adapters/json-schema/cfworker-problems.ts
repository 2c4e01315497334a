/**
 * Turns @cfworker/json-schema's flat error list into toolproof Problems.
 *
 * cfworker reports a failed subschema as an umbrella unit ("Property "a" does not match schema.",
 * "A subschema had errors.") followed by the subschema's own units. Those umbrellas say nothing an
 * agent can act on, so the list is first parsed back into the tree it came from, then rendered:
 * wrappers vanish behind their specific errors, "anyOf"/"oneOf" become one summarising problem,
 * and leaf messages come from the shared vocabulary in messages.ts.
 */
import type { OutputUnit, Schema } from "@cfworker/json-schema";
import { isJsonObject, type Problem } from "../../core/json.js";
import {
  alternativesMessage,
  containsMessage,
  describeKeyword,
  falseSchemaMessage,
  finishProblems,
  pointerTokens,
  quote,
  valueAt,
} from "./messages.js";

interface ErrorNode {
  unit: OutputUnit;
  children: ErrorNode[];
}

/** Umbrella keywords that wrap exactly one subschema's errors. */
const SINGLE_WRAPPERS: ReadonlySet<string> = new Set([
  "$ref",
  "$recursiveRef",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "if",
  "dependentSchemas",
  "propertyNames",
]);

/** Umbrella keywords whose subschemas' errors follow them, addressed by branch index. */
const MULTI_WRAPPERS: ReadonlySet<string> = new Set(["anyOf", "allOf", "oneOf"]);

function isWrapper(unit: OutputUnit): boolean {
  if (unit.keyword === "dependencies") return unit.error.includes("does not match dependant schema");
  return SINGLE_WRAPPERS.has(unit.keyword) || MULTI_WRAPPERS.has(unit.keyword);
}

/** Where a single wrapper's subschema errors live in keywordLocation terms. */
function childPrefix(unit: OutputUnit): string {
  if (unit.keyword === "if") {
    // The umbrella is located at ".../if" but the errors come from ".../then" or ".../else".
    const branch = unit.error.includes('"else"') ? "else" : "then";
    return `${unit.keywordLocation.slice(0, -"if".length)}${branch}/`;
  }
  return `${unit.keywordLocation}/`;
}

function parseBlock(
  units: readonly OutputUnit[],
  start: number,
  accepts: (unit: OutputUnit) => boolean,
): [ErrorNode[], number] {
  const nodes: ErrorNode[] = [];
  let index = start;
  while (index < units.length) {
    const unit = units[index];
    if (unit === undefined || !accepts(unit)) break;
    const [node, next] = parseNode(units, index);
    nodes.push(node);
    index = next;
  }
  return [nodes, index];
}

function parseNode(units: readonly OutputUnit[], index: number): [ErrorNode, number] {
  const unit = units[index];
  if (unit === undefined) throw new RangeError("error list ended early");
  const next = index + 1;
  if (!isWrapper(unit)) return [{ unit, children: [] }, next];
  if (MULTI_WRAPPERS.has(unit.keyword)) {
    const prefix = `${unit.keywordLocation}/`;
    // A branch that is the schema `false` reports its unit at the instance location (cfworker sets
    // keywordLocation to the instance location there), hence the second test.
    const [children, end] = parseBlock(
      units,
      next,
      (u) =>
        u.keywordLocation.startsWith(prefix) || (u.keyword === "false" && u.instanceLocation === unit.instanceLocation),
    );
    return [{ unit, children }, end];
  }
  // A subschema that is `false` yields exactly one unit, with no usable keywordLocation.
  const first = units[next];
  if (first !== undefined && first.keyword === "false") {
    return [{ unit, children: [{ unit: first, children: [] }] }, next + 1];
  }
  const prefix = childPrefix(unit);
  const [children, end] = parseBlock(units, next, (u) => u.keywordLocation.startsWith(prefix));
  return [{ unit, children }, end];
}

/**
 * cfworker leaves the errors of items that failed "contains" in the list when "minContains" is
 * not met; they describe items that were never required to match, so they are removed.
 */
function withoutContainsNoise(units: readonly OutputUnit[]): OutputUnit[] {
  const out: OutputUnit[] = [];
  for (const unit of units) {
    if (unit.keyword === "minContains") {
      const prefix = `${unit.keywordLocation.slice(0, -"minContains".length)}contains`;
      while (out.length > 0) {
        const last = out[out.length - 1];
        if (last === undefined) break;
        const inContains =
          last.keywordLocation === prefix ||
          last.keywordLocation.startsWith(`${prefix}/`) ||
          (last.keyword === "false" && last.instanceLocation.startsWith(`${unit.instanceLocation}/`));
        if (!inContains) break;
        out.pop();
      }
    }
    out.push(unit);
  }
  return out;
}

/** "#/a/0" (a URI fragment, percent-encoded) to the JSON Pointer "/a/0". */
function fragmentToPointer(location: string): string {
  const fragment = location.startsWith("#") ? location.slice(1) : location;
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

/**
 * The value of the keyword at a cfworker keywordLocation. Such a location is the dynamic path
 * taken during validation, so it crosses "$ref" hops; each hop is followed through cfworker's
 * lookup table of resolved URIs.
 */
function keywordValueAt(root: Schema | boolean, lookup: Record<string, Schema | boolean>, location: string): unknown {
  const tokens = pointerTokens(fragmentToPointer(location));
  let current: unknown = root;
  for (let i = 0; i < tokens.length; i++) {
    let token = tokens[i] ?? "";
    if (i === tokens.length - 1 && token === "dependantRequired") token = "dependentRequired"; // cfworker's spelling
    // A "$ref" keyword (a string), not a property that happens to be named "$ref".
    if (token === "$ref" && i < tokens.length - 1 && isJsonObject(current) && typeof current.$ref === "string") {
      const target: unknown = Reflect.get(current, "__absolute_ref__") ?? current.$ref;
      current = typeof target === "string" ? lookup[target] : undefined;
      continue;
    }
    if (Array.isArray(current)) current = current[Number(token)];
    else if (isJsonObject(current)) current = Object.hasOwn(current, token) ? current[token] : undefined;
    else return undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

interface CfworkerErrorContext {
  root: Schema | boolean;
  lookup: Record<string, Schema | boolean>;
  value: unknown;
  /** Inside "propertyNames" the instance is a property name, not the value at the path. */
  propertyName?: string;
}

function render(node: ErrorNode, parentKeyword: string | undefined, context: CfworkerErrorContext): Problem[] {
  const { unit } = node;
  const path = fragmentToPointer(unit.instanceLocation);
  if (unit.keyword === "false") return [{ path, message: falseSchemaMessage(parentKeyword, path) }];
  if (unit.keyword === "anyOf" || unit.keyword === "oneOf") {
    const branchProblems = node.children.flatMap((child) => render(child, unit.keyword, context));
    const matches = Number(/\((\d+) matches\)/.exec(unit.error)?.[1] ?? "0");
    return [{ path, message: alternativesMessage(unit.keyword, path, branchProblems, matches) }];
  }
  if (unit.keyword === "propertyNames") {
    const name = /^Property name "(.*)" does not match schema\.$/s.exec(unit.error)?.[1] ?? "";
    const nameContext = { ...context, propertyName: name };
    const reasons = node.children.flatMap((child) => render(child, unit.keyword, nameContext)).map((p) => p.message);
    const because = reasons.length > 0 ? `: ${[...new Set(reasons)].join("; ")}` : "";
    return [{ path, message: `property name ${quote(name)} is invalid${because}` }];
  }
  if (isWrapper(unit)) {
    const problems = node.children.flatMap((child) => render(child, unit.keyword, context));
    // A wrapper always has children (cfworker only wraps failed subschemas); this is a guard.
    return problems.length > 0 ? problems : [{ path, message: unit.error }];
  }
  if (unit.keyword === "contains" || unit.keyword === "minContains" || unit.keyword === "maxContains") {
    const parentLocation = unit.keywordLocation.slice(0, -unit.keyword.length - 1);
    return [{ path, message: containsMessage(keywordValueAt(context.root, context.lookup, parentLocation)) }];
  }
  const keywordValue = keywordValueAt(context.root, context.lookup, unit.keywordLocation);
  const data = context.propertyName ?? valueAt(context.value, path);
  const messages = describeKeyword(unit.keyword, keywordValue, data);
  return messages.length > 0 ? messages.map((message) => ({ path, message })) : [{ path, message: unit.error }];
}

/** Problems for a failed cfworker validation, specific errors only, in canonical order. */
export function cfworkerProblems(units: readonly OutputUnit[], context: CfworkerErrorContext): Problem[] {
  const [nodes] = parseBlock(withoutContainsNoise(units), 0, () => true);
  return finishProblems(nodes.flatMap((node) => render(node, undefined, context)));
}
