/**
 * The fast path of the runtime validator: a schema turned ONCE into a tree of plain closures
 * that answers only "valid or not", at a fraction of @cfworker/json-schema's cost per call. No
 * code generation (no eval, no `new Function`), so it runs inside a Workers request.
 *
 * Exactness is against cfworker, not against the spec: the runtime validator's verdicts come
 * from cfworker, so the fast path decides exactly what cfworker decides, quirks included
 * ("dependencies" in 2020-12, array-form "items" in any draft, Infinity as an integer), reading
 * the very document and $ref table cfworker validates against (see cfworker-prepare.ts: a
 * draft-07 copy is already normalized there). Where it cannot be exact it does not guess:
 * - compiling returns undefined for a schema using anything it does not implement (the caller
 *   then uses cfworker alone), and
 * - it may answer "invalid" for a value cfworker would accept, never the reverse. The caller
 *   runs cfworker on every "invalid" anyway (for the problems), so such an answer costs time,
 *   not correctness. That is how it handles what cfworker does not answer at all but throws on:
 *   undefined, functions, symbols and bigints inside a value, and recursion deeper than its
 *   stack. The fast path stops early where cfworker evaluates everything, so it answers "invalid"
 *   unless it can rule those out, even in the parts it skipped (see State and vouch).
 *
 * Every keyword cfworker reads is either implemented (IMPLEMENTED_KEYWORDS) or makes the schema
 * fall back (FALLBACK_KEYWORDS); cfworker ignores every other keyword, and so does this.
 */
import { ucs2length } from "@cfworker/json-schema";
import { isJsonObject, jsonEqual, type JsonObject, type JsonValue } from "../../core/json.js";
import {
  baseLookup,
  copyJson,
  prepareDocument,
  sharedMetaLookup,
  type CfworkerDocument,
  type Lookup,
} from "./cfworker-prepare.js";
import type { Draft } from "./drafts.js";
import { formatRule } from "./fast-path-formats.js";
import { multipleOfTest } from "./fast-path-numbers.js";
import {
  hasAll,
  hasDuplicates,
  hasOwn,
  isIntegerValue,
  isJsonTree,
  kindOf,
  KIND_ARRAY,
  KIND_BOOLEAN,
  KIND_NOT_JSON,
  KIND_NULL,
  KIND_NUMBER,
  KIND_OBJECT,
  KIND_STRING,
  matchesAny,
  member,
} from "./fast-path-values.js";
import { compilePattern, type PatternMatcher } from "./pattern-engine.js";

/** Valid (true) or "ask cfworker" (false) for one value. */
export type FastPath = (value: unknown) => boolean;

/** Keywords cfworker reads that the fast path implements exactly. */
export const IMPLEMENTED_KEYWORDS = [
  "$ref",
  "type",
  "const",
  "enum",
  "required",
  "not",
  "anyOf",
  "allOf",
  "oneOf",
  "if",
  "then",
  "else",
  "format",
  "properties",
  "patternProperties",
  "additionalProperties",
  "minProperties",
  "maxProperties",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "prefixItems",
  "items",
  "additionalItems",
  "contains",
  "minContains",
  "maxContains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
] as const;

/**
 * Keywords that make a schema fall back to cfworker: the dynamic-scope ones ($recursiveRef
 * resolves against where evaluation came from, not against the document) and the "unevaluated"
 * ones (they depend on what cfworker's other keywords marked as evaluated, its own bookkeeping).
 * $dynamicRef/$dynamicAnchor are listed although cfworker ignores them: their meaning is
 * dynamic scope, and the known-failures list is where cfworker's treatment of them belongs.
 */
export const FALLBACK_KEYWORDS = [
  "$recursiveRef",
  "$recursiveAnchor",
  "$dynamicRef",
  "$dynamicAnchor",
  "unevaluatedProperties",
  "unevaluatedItems",
] as const;

/**
 * The deepest nesting of cfworker `validate` calls the fast path vouches for. cfworker recurses
 * once per subschema on a large stack frame (in Node it overflows, and throws, at a few hundred
 * levels), so a value whose validation would nest deeper is left to cfworker: the fast path must
 * never say "valid" where cfworker would run out of stack. Realistic tool values nest far less.
 */
const FRAME_BUDGET = 128;

/**
 * The longest chain of subschemas applied to one same value (allOf, anyOf, oneOf, not, if,
 * then, else, $ref, dependentSchemas) the fast path accepts: it bounds how deep cfworker nests
 * in the parts the fast path skips (see vouch).
 */
const MAX_CHAIN = 32;

type Check = (value: unknown) => boolean;
type ObjectCheck = (value: object) => boolean;
type ArrayCheck = (value: readonly unknown[]) => boolean;
type StringCheck = (value: string) => boolean;
type NumberCheck = (value: number) => boolean;

/** One compiled (sub)schema. */
interface Node {
  check: Check;
  /**
   * False for a boolean schema: cfworker answers it without looking at the instance, so it never
   * throws on one that is not JSON.
   */
  typed: boolean;
  /**
   * Whether evaluating this schema can reach a value INSIDE the instance with an object schema
   * (where cfworker would throw on one that is not JSON). True while the node is being compiled
   * (a recursive reference to it is assumed to).
   */
  descends: boolean;
}

/**
 * Runtime state shared by one compiled schema's closures. "false" from a closure means
 * "invalid" to cfworker too, except when the fast path could not decide (a value cfworker throws
 * on, nesting beyond FRAME_BUDGET): then it sets `gaveUp`, which voids the whole verdict, since a
 * "not" or a failed "anyOf" branch must not turn an undecided "false" into "valid".
 */
interface State {
  /** cfworker frames nested on the current path, as far as the fast path follows it. */
  frames: number;
  gaveUp: boolean;
  /** The longest same-value chain of subschemas in this schema (see MAX_CHAIN). */
  chain: number;
}

interface Compiler {
  draft: Draft;
  lookup: Lookup;
  /** By schema object: each subschema compiles once, and a recursive "$ref" finds its node. */
  nodes: Map<object, Node>;
  /** Subschemas applied to the same value as the schema holding them (or referring to them). */
  sameValueEdges: Map<object, object[]>;
  state: State;
}

/** A schema the fast path does not implement exactly. */
class Unsupported extends Error {}

const acceptAll: Check = () => true;
const rejectAll: Check = () => false;
const ACCEPT: Node = { check: acceptAll, typed: false, descends: false };
const REJECT: Node = { check: rejectAll, typed: false, descends: false };

/** Told why a schema falls back to cfworker (for tests and diagnostics). */
export type FallbackListener = (reason: string) => void;

/**
 * Compiles the document cfworker validates against (the runtime validator's prepared copy and
 * its lookup table), or returns undefined when the fast path cannot decide it exactly.
 */
export function compilePreparedFastPath(
  document: Pick<CfworkerDocument, "root" | "lookup">,
  draft: Draft,
  onFallback?: FallbackListener,
): FastPath | undefined {
  const state: State = { frames: 0, gaveUp: false, chain: 1 };
  const compiler: Compiler = { draft, lookup: document.lookup, nodes: new Map(), sameValueEdges: new Map(), state };
  let root: Node;
  try {
    root = compile(document.root, compiler);
    state.chain = longestChain(compiler.sameValueEdges);
  } catch (error) {
    // Unsupported, or anything unexpected (a stack overflow on an absurdly deep schema): the
    // fast path is an optimization, and cfworker validates every schema without it.
    onFallback?.(error instanceof Unsupported ? error.message : `compiling failed: ${String(error)}`);
    return undefined;
  }
  const check = root.check;
  return (value) => {
    // The runtime validator refuses a top-level value that is not JSON before cfworker runs, even
    // for the schema `true`; refusing it here lets that check move off the valid path.
    if (kindOf(value) === KIND_NOT_JSON) return false;
    // Reset, not trusted: a closure that threw (a getter on an odd value) left them unbalanced.
    state.frames = 0;
    state.gaveUp = false;
    const valid = check(value);
    return valid && !state.gaveUp;
  };
}

/**
 * Compiles a schema document as the runtime validator would prepare it (a private copy, a
 * draft-07 copy normalized, "$ref"s resolved through the meta-schemas and `knownSchemas`), or
 * returns undefined when the fast path cannot decide it exactly or the schema is unusable.
 * `draft` is the document's draft (from its "$schema" or the default).
 */
export function compileFastPath(
  schema: unknown,
  draft: Draft,
  knownSchemas?: Readonly<Record<string, unknown>>,
  onFallback?: FallbackListener,
): FastPath | undefined {
  let document: CfworkerDocument;
  try {
    const base = knownSchemas === undefined ? sharedMetaLookup() : baseLookup(knownSchemas);
    document = prepareDocument(copyJson(schema), base, draft);
  } catch (error) {
    onFallback?.(`unusable schema: ${String(error)}`);
    return undefined;
  }
  return compilePreparedFastPath(document, draft, onFallback);
}

/**
 * The longest chain of same-value edges, in schemas. A cycle (`{"anyOf": [{"$ref": "#"}]}`)
 * makes cfworker recurse until its stack overflows, on every value that reaches it: such a
 * schema is left to cfworker.
 */
function longestChain(edges: ReadonlyMap<object, readonly object[]>): number {
  const done = new Map<object, number>();
  const active = new Set<object>();
  const visit = (schema: object): number => {
    const known = done.get(schema);
    if (known !== undefined) return known;
    if (active.has(schema))
      throw new Unsupported("subschemas that apply themselves to the same value (endless recursion)");
    active.add(schema);
    let longest = 0;
    for (const next of edges.get(schema) ?? []) longest = Math.max(longest, visit(next));
    active.delete(schema);
    done.set(schema, longest + 1);
    return longest + 1;
  };
  let chain = 1;
  for (const schema of edges.keys()) chain = Math.max(chain, visit(schema));
  if (chain > MAX_CHAIN) throw new Unsupported(`a chain of ${chain} subschemas applied to the same value`);
  return chain;
}

/**
 * For an applicator whose subschemas may fail without failing the schema (not, anyOf, oneOf,
 * if, contains): cfworker evaluates all of them in full, the fast path stops early. Before it
 * accepts a value although such a subschema failed or was skipped, the parts it did not look at
 * must not hide a value cfworker throws on, nor nest deeper than cfworker's stack allows.
 */
function vouch(value: unknown, state: State): boolean {
  // Per level of the value cfworker nests at most `chain` schemas' frames, plus a boolean
  // subschema's; the value itself is one level more than the `levels` below it.
  const levels = Math.floor((FRAME_BUDGET - state.frames) / (state.chain + 1)) - 1;
  if (levels >= 0 && isJsonTree(value, levels)) return true;
  state.gaveUp = true;
  return false;
}

function compile(schema: unknown, compiler: Compiler): Node {
  if (schema === true) return ACCEPT;
  if (schema === false) return REJECT;
  if (!isJsonObject(schema)) throw new Unsupported("a schema that is neither an object nor a boolean");
  const known = compiler.nodes.get(schema);
  if (known !== undefined) return known;
  // Registered before its subschemas compile, so a recursive "$ref" finds it; refs read
  // `node.check` at call time, by when it is the real one.
  const node: Node = { check: rejectAll, typed: true, descends: true };
  compiler.nodes.set(schema, node);
  const built = compileSchemaObject(schema, compiler);
  node.check = built.check;
  node.descends = built.descends;
  return node;
}

/** What one schema object compiles to, before it becomes its Node. */
interface Built {
  check: Check;
  descends: boolean;
}

/** The checks of one schema object, grouped by the instance types they apply to. */
interface Parts {
  /** The schema object these are the checks of. */
  owner: JsonObject;
  compiler: Compiler;
  /** Bit per Kind the "type" keyword allows; -1 when there is no "type". */
  typeMask: number;
  /** Whether "type" allows "integer" (checked by value, not by Kind). */
  integer: boolean;
  any: Check[];
  object: ObjectCheck[];
  array: ArrayCheck[];
  string: StringCheck[];
  number: NumberCheck[];
  descends: boolean;
  /** Whether any subschema is evaluated (in a nested cfworker frame). */
  nests: boolean;
}

/** Keyword groups, as bits: which compile steps a schema object needs. */
const REF = 1;
const TYPE = 2;
const VALUES = 4;
const APPLICATORS = 8;
const OBJECTS = 16;
const ARRAYS = 32;
const NUMBERS = 64;
const STRINGS = 128;
const FALLBACK = 256;

const GROUP_OF: ReadonlyMap<string, number> = new Map<string, number>([
  ["$ref", REF],
  ["type", TYPE],
  ["const", VALUES],
  ["enum", VALUES],
  ...(["allOf", "anyOf", "oneOf", "not", "if", "then", "else"] as const).map((k) => [k, APPLICATORS] as const),
  ...(
    [
      "required",
      "minProperties",
      "maxProperties",
      "propertyNames",
      "dependentRequired",
      "dependentSchemas",
      "dependencies",
      "properties",
      "patternProperties",
      "additionalProperties",
    ] as const
  ).map((k) => [k, OBJECTS] as const),
  ...(
    [
      "minItems",
      "maxItems",
      "prefixItems",
      "items",
      "additionalItems",
      "contains",
      "minContains",
      "maxContains",
      "uniqueItems",
    ] as const
  ).map((k) => [k, ARRAYS] as const),
  ...(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"] as const).map(
    (k) => [k, NUMBERS] as const,
  ),
  ...(["minLength", "maxLength", "pattern", "format"] as const).map((k) => [k, STRINGS] as const),
  ...FALLBACK_KEYWORDS.map((k) => [k, FALLBACK] as const),
]);

/** The keyword groups a schema object uses: one pass over its (few) keys, not ~45 lookups. */
function groupsOf(schema: JsonObject): number {
  let groups = 0;
  for (const key of Object.keys(schema)) {
    const group = GROUP_OF.get(key);
    if (group === FALLBACK) throw new Unsupported(key);
    if (group !== undefined && schema[key] !== undefined) groups |= group;
  }
  return groups;
}

function compileSchemaObject(schema: JsonObject, compiler: Compiler): Built {
  const groups = groupsOf(schema);
  const parts: Parts = {
    owner: schema,
    compiler,
    typeMask: -1,
    integer: false,
    any: [],
    object: [],
    array: [],
    string: [],
    number: [],
    descends: false,
    nests: false,
  };
  if ((groups & REF) !== 0) {
    parts.any.push(refCheck(parts));
    // cfworker returns right after "$ref" in draft-07: every sibling is ignored.
    if (compiler.draft === "7") return assemble(parts);
  }
  if ((groups & TYPE) !== 0) compileType(schema.type, parts);
  if ((groups & VALUES) !== 0) compileValueKeywords(schema, parts);
  if ((groups & APPLICATORS) !== 0) compileApplicators(schema, parts);
  if ((groups & OBJECTS) !== 0) compileObjectKeywords(schema, parts);
  if ((groups & ARRAYS) !== 0) compileArrayKeywords(schema, parts);
  if ((groups & NUMBERS) !== 0) compileNumberKeywords(schema, parts);
  if ((groups & STRINGS) !== 0) compileStringKeywords(schema, parts);
  return assemble(parts);
}

/** A subschema applied to the same value as the schema holding it. */
function sameValue(schema: unknown, parts: Parts): Node {
  const node = compile(schema, parts.compiler);
  if (typeof schema === "object" && schema !== null) {
    const edges = parts.compiler.sameValueEdges;
    const list = edges.get(parts.owner);
    if (list === undefined) edges.set(parts.owner, [schema]);
    else list.push(schema);
  }
  parts.descends ||= node.descends;
  parts.nests = true;
  return node;
}

/** A subschema applied to a value inside the instance (a property, an item). */
function inside(schema: unknown, parts: Parts): Node {
  const node = compile(schema, parts.compiler);
  parts.descends ||= node.typed;
  parts.nests = true;
  return node;
}

// ---------------------------------------------------------------------------------------------
// Keyword values. A value of the wrong JSON type is a schema checkSchema rejects; cfworker still
// validates with it (coercing, or throwing), so the fast path leaves such schemas to cfworker.

function numberValue(schema: JsonObject, keyword: string): number | undefined {
  const value = schema[keyword];
  if (value === undefined) return undefined;
  if (typeof value !== "number") throw new Unsupported(`"${keyword}" is not a number`);
  return value;
}

function schemaArray(schema: JsonObject, keyword: string): JsonValue[] | undefined {
  const value = schema[keyword];
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw new Unsupported(`"${keyword}" is not an array`);
  return value;
}

function stringArray(value: JsonValue, what: string): string[] {
  if (!Array.isArray(value)) throw new Unsupported(`${what} is not an array`);
  return value.map((item) => {
    if (typeof item !== "string") throw new Unsupported(`${what} holds a non-string`);
    return item;
  });
}

function schemaMap(schema: JsonObject, keyword: string): JsonObject | undefined {
  const value = schema[keyword];
  if (value === undefined) return undefined;
  if (!isJsonObject(value)) throw new Unsupported(`"${keyword}" is not an object`);
  return value;
}

/** A "pattern" as cfworker's copy runs it (pattern-engine.ts), compiled once instead of per call. */
function patternMatcher(pattern: unknown): PatternMatcher {
  if (typeof pattern !== "string") throw new Unsupported("a pattern that is not a string");
  try {
    return compilePattern(pattern);
  } catch {
    throw new Unsupported("a pattern cfworker cannot compile, or one pattern-engine.ts will not run");
  }
}

// ---------------------------------------------------------------------------------------------
// "$ref"

function refCheck(parts: Parts): Check {
  const schema = parts.owner;
  const ref = schema.$ref;
  if (typeof ref !== "string") throw new Unsupported('"$ref" is not a string');
  // As cfworker resolves it: the absolute URI dereference() recorded, looked up in the same table.
  const absolute: unknown = Reflect.get(schema, "__absolute_ref__");
  const uri = typeof absolute === "string" && absolute !== "" ? absolute : ref;
  const target: unknown = parts.compiler.lookup[uri];
  if (target === undefined) throw new Unsupported(`unresolved "$ref" ${ref}`);
  const node = sameValue(target, parts);
  // Through the node, at call time: the target may be unfinished when this closure is made.
  return (value) => node.check(value);
}

// ---------------------------------------------------------------------------------------------
// Keywords for every instance type

const TYPE_BITS: Readonly<Record<string, number>> = {
  null: 1 << KIND_NULL,
  boolean: 1 << KIND_BOOLEAN,
  number: 1 << KIND_NUMBER,
  string: 1 << KIND_STRING,
  array: 1 << KIND_ARRAY,
  object: 1 << KIND_OBJECT,
};

function compileType(type: JsonValue | undefined, parts: Parts): void {
  if (type === undefined) return;
  // cfworker compares the instance's type name with each entry; a name it does not know (or a
  // non-string entry, or a "type" that is neither a string nor an array) matches nothing.
  const names = Array.isArray(type) ? type : [type];
  let mask = 0;
  for (const name of names) {
    if (typeof name !== "string") continue;
    if (name === "integer") parts.integer = true;
    else if (Object.hasOwn(TYPE_BITS, name)) mask |= TYPE_BITS[name] ?? 0;
  }
  parts.typeMask = mask;
}

function compileValueKeywords(schema: JsonObject, parts: Parts): void {
  const constant = schema.const;
  if (constant !== undefined) {
    // cfworker: `===` for a primitive instance, deepCompareStrict for an object or array one;
    // jsonEqual is that same relation (and `===` already fails an object against a primitive).
    if (typeof constant === "object" && constant !== null) parts.any.push((value) => jsonEqual(value, constant));
    else parts.any.push((value) => value === constant);
  }
  const members = schemaArray(schema, "enum");
  if (members !== undefined) {
    // A Set finds primitives as `===` does (they differ only on NaN, which JSON cannot hold).
    const primitives = new Set<unknown>(members.filter((m) => typeof m !== "object" || m === null));
    const structured = members.filter((m) => typeof m === "object" && m !== null);
    parts.any.push((value) => {
      if (typeof value !== "object" || value === null) return primitives.has(value);
      for (const m of structured) if (jsonEqual(value, m)) return true;
      return false;
    });
  }
}

/** For each alternative, whether some OTHER alternative can reach inside the instance. */
function othersDescend(nodes: readonly Node[]): boolean[] {
  return nodes.map((_, i) => nodes.some((other, j) => j !== i && other.descends));
}

/**
 * allOf, and the applicators whose subschemas may fail without failing the schema (not, anyOf,
 * oneOf, if). When a value is accepted although such a subschema failed or was skipped, what the
 * fast path did not look at is vouched for (see vouch), unless that subschema cannot reach
 * inside the value: then it sees only the value itself, whose type this schema already checked,
 * within MAX_CHAIN frames.
 */
function compileApplicators(schema: JsonObject, parts: Parts): void {
  const state = parts.compiler.state;
  const allOf = schemaArray(schema, "allOf")?.map((s) => sameValue(s, parts).check);
  if (allOf !== undefined) {
    parts.any.push((value) => {
      for (const check of allOf) if (!check(value)) return false;
      return true;
    });
  }

  const anyOf = schemaArray(schema, "anyOf")?.map((s) => sameValue(s, parts));
  if (anyOf !== undefined) {
    const others = othersDescend(anyOf);
    parts.any.push((value) => {
      for (let i = 0; i < anyOf.length; i++) {
        if (anyOf[i]?.check(value) === true) return others[i] !== true || vouch(value, state);
      }
      return false;
    });
  }

  const oneOf = schemaArray(schema, "oneOf")?.map((s) => sameValue(s, parts));
  if (oneOf !== undefined) {
    const others = othersDescend(oneOf);
    parts.any.push((value) => {
      let matched = -1;
      for (let i = 0; i < oneOf.length; i++) {
        if (oneOf[i]?.check(value) !== true) continue;
        if (matched >= 0) return false;
        matched = i;
      }
      return matched >= 0 && (others[matched] !== true || vouch(value, state));
    });
  }

  if (schema.not !== undefined) {
    const not = sameValue(schema.not, parts);
    parts.any.push((value) => !not.check(value) && (!not.descends || vouch(value, state)));
  }

  // cfworker reads "then" and "else" only beside an "if".
  if (schema.if !== undefined) {
    const condition = sameValue(schema.if, parts);
    const then = schema.then === undefined ? undefined : sameValue(schema.then, parts).check;
    const otherwise = schema.else === undefined ? undefined : sameValue(schema.else, parts).check;
    parts.any.push((value) => {
      if (condition.check(value)) return then === undefined || then(value);
      if (condition.descends && !vouch(value, state)) return false;
      return otherwise === undefined || otherwise(value);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Objects

function compileObjectKeywords(schema: JsonObject, parts: Parts): void {
  const required = schema.required === undefined ? undefined : stringArray(schema.required, '"required"');
  if (required !== undefined && required.length > 0) {
    parts.object.push((object) => hasAll(object, required));
  }

  const minProperties = numberValue(schema, "minProperties");
  const maxProperties = numberValue(schema, "maxProperties");
  if (minProperties !== undefined || maxProperties !== undefined) {
    parts.object.push((object) => {
      const count = Object.keys(object).length;
      return (
        !(minProperties !== undefined && count < minProperties) &&
        !(maxProperties !== undefined && count > maxProperties)
      );
    });
  }

  if (schema.propertyNames !== undefined) {
    // Names are strings: nothing inside them for cfworker to throw on.
    const check = compile(schema.propertyNames, parts.compiler).check;
    parts.nests = true;
    parts.object.push((object) => {
      for (const key in object) if (!check(key)) return false;
      return true;
    });
  }

  const dependentRequired = schemaMap(schema, "dependentRequired");
  if (dependentRequired !== undefined) {
    const rules = Object.entries(dependentRequired).map(
      ([name, needs]) => [name, stringArray(needs, '"dependentRequired"')] as const,
    );
    parts.object.push((object) => {
      for (const [name, needs] of rules) if (hasOwn(object, name) && !hasAll(object, needs)) return false;
      return true;
    });
  }

  const dependentSchemas = schemaMap(schema, "dependentSchemas");
  if (dependentSchemas !== undefined) {
    const rules = Object.entries(dependentSchemas).map(([name, s]) => [name, sameValue(s, parts).check] as const);
    parts.object.push((object) => {
      for (const [name, check] of rules) if (hasOwn(object, name) && !check(object)) return false;
      return true;
    });
  }

  // Draft-07's keyword, which cfworker also applies in 2020-12: a list of names or a schema.
  const dependencies = schemaMap(schema, "dependencies");
  if (dependencies !== undefined) {
    const rules = Object.entries(dependencies).map(([name, rule]): readonly [string, ObjectCheck] => {
      if (Array.isArray(rule)) {
        const needs = stringArray(rule, '"dependencies"');
        return [name, (object) => hasAll(object, needs)];
      }
      if (typeof rule !== "boolean" && !isJsonObject(rule))
        throw new Unsupported('a "dependencies" entry that is neither a list nor a schema');
      const check = sameValue(rule, parts).check;
      return [name, (object) => check(object)];
    });
    parts.object.push((object) => {
      for (const [name, check] of rules) if (hasOwn(object, name) && !check(object)) return false;
      return true;
    });
  }

  compilePropertySchemas(schema, parts);
}

/** "properties", "patternProperties" and "additionalProperties", which depend on each other. */
function compilePropertySchemas(schema: JsonObject, parts: Parts): void {
  const properties = schemaMap(schema, "properties");
  // Parallel arrays and index loops: the hot path destructures no tuples.
  const names = Object.keys(properties ?? {});
  const nameChecks = names.map((name) => inside(properties?.[name], parts).check);
  if (names.length > 0) {
    parts.object.push((object) => {
      for (let i = 0; i < names.length; i++) {
        const name = names[i] ?? "";
        if (hasOwn(object, name) && nameChecks[i]?.(member(object, name)) !== true) return false;
      }
      return true;
    });
  }

  const patternProperties = schemaMap(schema, "patternProperties");
  const regexes = Object.keys(patternProperties ?? {}).map(patternMatcher);
  const patternChecks = Object.keys(patternProperties ?? {}).map(
    (pattern) => inside(patternProperties?.[pattern], parts).check,
  );
  if (regexes.length > 0) {
    parts.object.push((object) => {
      // for…in, as cfworker: inherited enumerable names count too.
      for (const key in object) {
        for (let i = 0; i < regexes.length; i++) {
          if (regexes[i]?.test(key) === true && patternChecks[i]?.(member(object, key)) !== true) return false;
        }
      }
      return true;
    });
  }

  if (schema.additionalProperties !== undefined) {
    const additional = inside(schema.additionalProperties, parts).check;
    // cfworker skips the names "properties" evaluated (the instance's own ones it lists) and the
    // names any pattern matches.
    const named = new Set(names);
    parts.object.push((object) => {
      for (const key in object) {
        if (named.has(key) && hasOwn(object, key)) continue;
        if (regexes.length > 0 && matchesAny(regexes, key)) continue;
        if (!additional(member(object, key))) return false;
      }
      return true;
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Arrays

function compileArrayKeywords(schema: JsonObject, parts: Parts): void {
  const state = parts.compiler.state;
  const minItems = numberValue(schema, "minItems");
  const maxItems = numberValue(schema, "maxItems");
  if (minItems !== undefined || maxItems !== undefined) {
    parts.array.push(
      (array) =>
        !(maxItems !== undefined && array.length > maxItems) && !(minItems !== undefined && array.length < minItems),
    );
  }

  compileItemSchemas(schema, parts);

  if (schema.contains !== undefined) {
    const contains = inside(schema.contains, parts);
    const minContains = numberValue(schema, "minContains");
    const maxContains = numberValue(schema, "maxContains");
    parts.array.push((array) => {
      const length = array.length;
      // cfworker's order of tests, as written there.
      if (length === 0 && minContains === undefined) return false;
      if (minContains !== undefined && length < minContains) return false;
      let contained = 0;
      for (let i = 0; i < length; i++) {
        const item = array[i];
        if (contains.check(item)) contained++;
        // A failing item is tolerated: what the fast path skipped in it must be vouched for.
        else if (contains.typed && !vouch(item, state)) return false;
      }
      if (minContains === undefined ? contained === 0 : contained < minContains) return false;
      return !(maxContains !== undefined && contained > maxContains);
    });
  }

  const unique = schema.uniqueItems;
  if (unique !== undefined) {
    if (typeof unique !== "boolean") throw new Unsupported('"uniqueItems" is not a boolean');
    if (unique) parts.array.push((array) => !hasDuplicates(array));
  }
}

/**
 * "prefixItems", "items" (a schema, or draft-07's array form) and "additionalItems", walking the
 * array with one index exactly as cfworker does, whatever the draft: it applies array-form
 * "items" and "additionalItems" in 2020-12 too, and "additionalItems" only beside "items".
 */
function compileItemSchemas(schema: JsonObject, parts: Parts): void {
  const prefix = schemaArray(schema, "prefixItems")?.map((s) => inside(s, parts).check) ?? [];
  const items = schema.items;
  const tuple = Array.isArray(items) ? items.map((s) => inside(s, parts).check) : undefined;
  const rest = items === undefined || Array.isArray(items) ? undefined : inside(items, parts).check;
  const additional =
    items !== undefined && schema.additionalItems !== undefined
      ? inside(schema.additionalItems, parts).check
      : undefined;
  if (prefix.length === 0 && tuple === undefined && rest === undefined) return;
  parts.array.push((array) => {
    const length = array.length;
    let i = 0;
    for (const end = Math.min(prefix.length, length); i < end; i++) if (prefix[i]?.(array[i]) !== true) return false;
    if (tuple !== undefined) {
      for (const end = Math.min(tuple.length, length); i < end; i++) if (tuple[i]?.(array[i]) !== true) return false;
    } else if (rest !== undefined) {
      for (; i < length; i++) if (!rest(array[i])) return false;
    }
    if (additional !== undefined) for (; i < length; i++) if (!additional(array[i])) return false;
    return true;
  });
}

// ---------------------------------------------------------------------------------------------
// Numbers and strings

function compileNumberKeywords(schema: JsonObject, parts: Parts): void {
  // Draft-07 and 2020-12 read the numeric forms only; draft-04's boolean exclusive bounds are
  // refused by numberValue (cfworker would compare against true as 1).
  const minimum = numberValue(schema, "minimum");
  const maximum = numberValue(schema, "maximum");
  const exclusiveMinimum = numberValue(schema, "exclusiveMinimum");
  const exclusiveMaximum = numberValue(schema, "exclusiveMaximum");
  if (
    minimum !== undefined ||
    maximum !== undefined ||
    exclusiveMinimum !== undefined ||
    exclusiveMaximum !== undefined
  ) {
    parts.number.push(
      (n) =>
        !(minimum !== undefined && n < minimum) &&
        !(maximum !== undefined && n > maximum) &&
        !(exclusiveMinimum !== undefined && n <= exclusiveMinimum) &&
        !(exclusiveMaximum !== undefined && n >= exclusiveMaximum),
    );
  }
  const divisor = numberValue(schema, "multipleOf");
  if (divisor !== undefined) {
    const test = multipleOfTest(divisor);
    if (test === undefined) throw new Unsupported('"multipleOf" is not a positive number');
    parts.number.push(test);
  }
}

function compileStringKeywords(schema: JsonObject, parts: Parts): void {
  const minLength = numberValue(schema, "minLength");
  const maxLength = numberValue(schema, "maxLength");
  if (minLength !== undefined || maxLength !== undefined) {
    parts.string.push((s) => {
      // Lengths count code points (cfworker's ucs2length). A string has at most as many code
      // points as UTF-16 units and at least half as many, which settles most strings uncounted.
      const units = s.length;
      if (minLength !== undefined && units < minLength) return false;
      if ((maxLength === undefined || units <= maxLength) && (minLength === undefined || units >= 2 * minLength))
        return true;
      const length = ucs2length(s);
      return !(minLength !== undefined && length < minLength) && !(maxLength !== undefined && length > maxLength);
    });
  }
  if (schema.pattern !== undefined) {
    const regex = patternMatcher(schema.pattern);
    parts.string.push((s) => regex.test(s));
  }
  if (schema.format !== undefined) {
    const rule = formatRule(schema.format);
    if (rule.kind === "unsupported") throw new Unsupported('a "format" the fast path does not decide');
    if (rule.kind === "assert") parts.string.push(rule.check);
  }
}

// ---------------------------------------------------------------------------------------------
// Assembly

/** The checks of one schema object, ready to run. */
interface Plan {
  typeMask: number;
  integer: boolean;
  any: readonly Check[];
  object: readonly ObjectCheck[];
  array: readonly ArrayCheck[];
  string: readonly StringCheck[];
  number: readonly NumberCheck[];
}

/** One schema object's verdict on a value of JSON type `kind`. */
function decide(plan: Plan, value: unknown, kind: number): boolean {
  if (plan.typeMask !== -1 && (plan.typeMask & (1 << kind)) === 0 && !(plan.integer && isIntegerValue(value)))
    return false;
  for (const test of plan.any) if (!test(value)) return false;
  switch (typeof value) {
    case "string":
      for (const test of plan.string) if (!test(value)) return false;
      return true;
    case "number":
      for (const test of plan.number) if (!test(value)) return false;
      return true;
    case "object":
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (const test of plan.array) if (!test(value)) return false;
        return true;
      }
      for (const test of plan.object) if (!test(value)) return false;
      return true;
    default:
      return true;
  }
}

/** The check of a schema object with subschemas: it counts the cfworker frame it stands for. */
function nestingCheck(plan: Plan, state: State): Check {
  return (value) => {
    const kind = kindOf(value);
    // cfworker throws on these before reading any keyword; and stops on a deep stack.
    if (kind === KIND_NOT_JSON || state.frames >= FRAME_BUDGET) {
      state.gaveUp = true;
      return false;
    }
    state.frames++;
    const valid = decide(plan, value, kind);
    state.frames--;
    return valid;
  };
}

/** The check of a schema object without subschemas: it nests nothing, no frames to count. */
function leafCheck(plan: Plan, state: State): Check {
  return (value) => {
    const kind = kindOf(value);
    if (kind === KIND_NOT_JSON) {
      state.gaveUp = true;
      return false;
    }
    return decide(plan, value, kind);
  };
}

function assemble(parts: Parts): Built {
  // Closures are returned from functions rather than assigned to names: bundlers that keep
  // function names (wrangler does) would otherwise rename every closure made here, per schema.
  const { typeMask, integer, any, object, array, string, number } = parts;
  const plan: Plan = { typeMask, integer, any, object, array, string, number };
  const state = parts.compiler.state;
  return { check: parts.nests ? nestingCheck(plan, state) : leafCheck(plan, state), descends: parts.descends };
}
