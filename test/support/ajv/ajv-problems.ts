/**
 * Turns ajv's error list (allErrors + verbose) into toolproof Problems with the same wording as
 * the runtime validator (messages.ts), so the CLI and the Worker tell an agent the same thing.
 *
 * ajv lists leaf errors flat, and an "anyOf"/"oneOf"/"propertyNames"/"contains" error comes
 * right after the errors of its subschemas. Those are gathered back under it: an error belongs
 * to the umbrella when it directly precedes it, lies at or below its instance location, and was
 * raised by a subschema reachable from the umbrella's keyword value (following "$ref"s).
 */
import type { ErrorObject } from "ajv";
import { isJsonObject, pointer, type Problem } from "../../../src/core/json.js";
import {
  alternativesMessage,
  containsMessage,
  describeKeyword,
  falseSchemaMessage,
  finishProblems,
  pointerTokens,
  quote,
  valueAt,
} from "../../../src/adapters/json-schema/messages.js";

interface ErrorNode {
  error: ErrorObject;
  children: ErrorNode[];
}

/** Resolves a "$ref" value to the schema it names, when it can (for reachability only). */
export type RefResolver = (ref: string) => unknown;

const UMBRELLAS: ReadonlySet<string> = new Set(["anyOf", "oneOf", "propertyNames", "contains"]);

function isUnder(path: string, ancestor: string): boolean {
  return path === ancestor || path.startsWith(`${ancestor}/`);
}

interface Reachable {
  /** Schema objects inside the umbrella's value or behind its "$ref"s. */
  schemas: Set<unknown>;
  /** ajv schemaPath prefixes of errors raised inside them (fragment "$ref"s keep their resource). */
  prefixes: string[];
}

/** What an umbrella keyword's subschemas can reach, following "$ref"s as far as they resolve. */
function reachableFrom(umbrella: ErrorObject, resolve: RefResolver): Reachable {
  const schemas = new Set<unknown>();
  const prefixes = [`${umbrella.schemaPath}/`];
  const pending: unknown[] = [umbrella.schema];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== "object" || current === null || schemas.has(current)) continue;
    schemas.add(current);
    if (Array.isArray(current)) {
      pending.push(...current);
      continue;
    }
    if (!isJsonObject(current)) continue;
    const ref = current.$ref;
    if (typeof ref === "string") {
      if (ref.startsWith("#")) prefixes.push(`${ref}/`);
      pending.push(resolve(ref));
    }
    pending.push(...Object.values(current));
  }
  return { schemas, prefixes };
}

function propertyNameOf(error: ErrorObject): string | undefined {
  const name: unknown = Reflect.get(error, "propertyName");
  return typeof name === "string" ? name : undefined;
}

function buildTree(errors: readonly ErrorObject[], resolve: RefResolver): ErrorNode[] {
  const stack: ErrorNode[] = [];
  for (const error of errors) {
    const node: ErrorNode = { error, children: [] };
    if (UMBRELLAS.has(error.keyword)) {
      const isChild =
        error.keyword === "propertyNames"
          ? (candidate: ErrorObject) =>
              candidate.instancePath === error.instancePath && propertyNameOf(candidate) === error.params.propertyName
          : (() => {
              const reachable = reachableFrom(error, resolve);
              return (candidate: ErrorObject) =>
                isUnder(candidate.instancePath, error.instancePath) &&
                (reachable.schemas.has(candidate.parentSchema) ||
                  reachable.prefixes.some((prefix) => candidate.schemaPath.startsWith(prefix))) &&
                // A sibling keyword of the same schema at the same place is not a child.
                !(candidate.parentSchema === error.parentSchema && candidate.instancePath === error.instancePath);
            })();
      while (stack.length > 0) {
        const last = stack[stack.length - 1];
        if (last === undefined || !isChild(last.error)) break;
        node.children.unshift(last);
        stack.pop();
      }
    }
    stack.push(node);
  }
  return stack;
}

/** The keyword that led to a `false` subschema, read from ajv's schemaPath. */
function parentKeywordOf(schemaPath: string): string | undefined {
  const tokens = pointerTokens(schemaPath.startsWith("#") ? schemaPath.slice(1) : schemaPath);
  tokens.pop(); // "false schema"
  const last = tokens[tokens.length - 1];
  const beforeLast = tokens[tokens.length - 2];
  if (beforeLast === "properties" || beforeLast === "patternProperties") return beforeLast;
  if (beforeLast === "prefixItems" || (beforeLast === "items" && /^\d+$/.test(last ?? ""))) return beforeLast;
  return last;
}

/** Each array item past `limit` is reported on its own, as the runtime validator does. */
function extraItems(error: ErrorObject, keyword: string): Problem[] {
  const data: unknown = error.data;
  const limit = Number(error.params.limit);
  if (!Array.isArray(data) || !Number.isInteger(limit)) return [];
  const problems: Problem[] = [];
  for (let i = limit; i < data.length; i++) {
    const path = `${error.instancePath}/${i}`;
    problems.push({ path, message: falseSchemaMessage(keyword, path) });
  }
  return problems;
}

function render(node: ErrorNode, value: unknown): Problem[] {
  const { error } = node;
  const path = error.instancePath;
  switch (error.keyword) {
    case "anyOf":
    case "oneOf": {
      const branchProblems = node.children.flatMap((child) => render(child, value));
      const passing: unknown = error.params.passingSchemas;
      const matches = Array.isArray(passing) ? passing.length : 0;
      return [{ path, message: alternativesMessage(error.keyword, path, branchProblems, matches) }];
    }
    case "propertyNames": {
      const name = String(error.params.propertyName);
      const reasons = node.children.flatMap((child) => render(child, value)).map((p) => p.message);
      const because = reasons.length > 0 ? `: ${[...new Set(reasons)].join("; ")}` : "";
      return [{ path, message: `property name ${quote(name)} is invalid${because}` }];
    }
    case "contains":
      return [{ path, message: containsMessage(error.parentSchema) }];
    case "if":
      // "must match "then" schema": the then/else errors themselves are already listed.
      return [];
    case "false schema":
      return [{ path, message: falseSchemaMessage(parentKeywordOf(error.schemaPath), path) }];
    case "additionalProperties":
    case "unevaluatedProperties": {
      const name: unknown = error.params.additionalProperty ?? error.params.unevaluatedProperty;
      if (typeof name !== "string") break;
      const at = `${path}${pointer(name)}`;
      return [{ path: at, message: falseSchemaMessage(error.keyword, at) }];
    }
    case "items":
    case "additionalItems":
    case "unevaluatedItems":
      return extraItems(error, error.keyword);
    default:
      break;
  }
  const data = error.data === undefined ? valueAt(value, path) : error.data;
  const messages = describeKeyword(error.keyword, error.schema, data);
  return messages.length > 0
    ? messages.map((message) => ({ path, message }))
    : [{ path, message: error.message ?? error.keyword }];
}

/** Problems for a failed ajv validation, in the same canonical order as the runtime validator's. */
export function ajvProblems(errors: readonly ErrorObject[], value: unknown, resolve: RefResolver): Problem[] {
  return finishProblems(buildTree(errors, resolve).flatMap((node) => render(node, value)));
}
