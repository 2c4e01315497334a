/**
 * Generators for the fuzz suite: request bodies that are near a valid one (a valid body with a few
 * mutations: fields dropped or added, values of the wrong type, odd and huge strings, lone
 * surrogates, numbers JSON can write but not hold, nesting thousands of levels deep, __proto__
 * keys), arbitrary JSON, raw texts that are barely JSON or not at all, and the content types a
 * client gets wrong. Every case prints as a short description (fast-check shows it when a run
 * fails), and `bodyText` turns it into the exact bytes sent.
 */
import fc from "fast-check";

/** JSON text spliced in as is: what JSON.stringify cannot write (1e400, nesting 5,000 deep) or should not be printed in full. */
export class Raw {
  constructor(
    readonly text: string,
    readonly label: string = text,
  ) {}

  [fc.toStringMethod](): string {
    return `raw(${this.label})`;
  }
}

/** A JSON-like value whose leaves may be Raw text. Objects may hold an own "__proto__" key. */
export type Doc = null | boolean | number | string | Raw | Doc[] | { [key: string]: Doc };

/** The JSON text of a Doc: like JSON.stringify, with Raw leaves copied verbatim and own __proto__ keys kept. */
export function docText(doc: Doc): string {
  if (doc instanceof Raw) return doc.text;
  if (Array.isArray(doc)) return `[${doc.map(docText).join(",")}]`;
  if (doc !== null && typeof doc === "object") {
    return `{${Object.keys(doc)
      .map((key) => `${JSON.stringify(key)}:${docText(doc[key] ?? null)}`)
      .join(",")}}`;
  }
  return JSON.stringify(doc);
}

/** Sets a key as an own data property, so "__proto__" is a key like any other (as JSON.parse makes it). */
export function setKey(object: { [key: string]: Doc }, key: string, value: Doc): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A deep copy of a plain JSON value as a Doc (own __proto__ keys survive). */
export function toDoc(value: unknown): Doc {
  if (Array.isArray(value)) return value.map(toDoc);
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: Doc } = {};
    for (const key of Object.keys(value)) setKey(out, key, toDoc((value as Record<string, unknown>)[key]));
    return out;
  }
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean" || value === null)
    return value;
  throw new Error(`not JSON: ${typeof value}`);
}

// -- odd values ---------------------------------------------------------------------------------

/** Nesting `depth` levels deep, as compact text: arrays `[[[…]]]` or objects `{"a":{"a":…}}`. */
export function deep(depth: number, container: "array" | "object", leaf = "1"): Raw {
  const text =
    container === "array"
      ? `${"[".repeat(depth)}${leaf}${"]".repeat(depth)}`
      : `${'{"a":'.repeat(depth)}${leaf}${"}".repeat(depth)}`;
  return new Raw(text, `${container} nested ${depth} deep`);
}

/** A string of `length` copies of `unit`, printed short. */
export function long(unit: string, length: number): Raw {
  return new Raw(JSON.stringify(unit.repeat(length)), `${JSON.stringify(unit)} x ${length}`);
}

export const DEPTHS = [63, 64, 65, 200, 1000, 2000, 3000, 5000, 8000] as const;

export const deepArb: fc.Arbitrary<Raw> = fc
  .record({ depth: fc.constantFrom(...DEPTHS), container: fc.constantFrom("array" as const, "object" as const) })
  .map(({ depth, container }) => deep(depth, container));

/** Numbers JSON text can spell but a double cannot hold, or holds only approximately. */
export const numberTextArb: fc.Arbitrary<Raw> = fc
  .constantFrom(
    "1e400",
    "-1e400",
    "1e-400",
    "123456789012345678901234567890",
    "9007199254740993",
    "-0",
    "0.1e1",
    "1E+2",
    "5e-324",
    "1.7976931348623157e308",
  )
  .map((text) => new Raw(text));

/** Strings that are not well-formed Unicode, or are awkward in keys, headers, URLs, SQL and logs. */
export const oddStrings = [
  "\ud800",
  "\udbff",
  "\udfff",
  "a\ud800b",
  "\udc00\ud800",
  "\u0000",
  "nul\u0000inside",
  "\u2028\u2029",
  "\ufeff",
  "\u202eevil",
  "🧨",
  "e\u0301",
  " ",
  "",
  "\t\n\r",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "$input",
  "../../etc/passwd",
  "%00",
  "%ED%A0%80",
  "'; DROP TABLE tools; --",
  'a"b\\c',
  "^(a+)+$",
] as const;

export const oddStringArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...oddStrings),
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
);

/** Lengths just past the usual limits (64-character names, 128, 200, 256, 4,000-character descriptions, 8,000) and far past them. */
export const longStringArb: fc.Arbitrary<Raw> = fc
  .record({
    unit: fc.constantFrom("x", "é", "🧨", "\ud800", "a_"),
    length: fc.constantFrom(65, 129, 201, 257, 4001, 8001, 70_000),
  })
  .map(({ unit, length }) => long(unit, length));

const prototypeKeyObjectArb: fc.Arbitrary<Raw> = fc
  .constantFrom(
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"__proto__":null}',
    '{"__proto__":[]}',
    '{"a":1,"a":2}',
  )
  .map((text) => new Raw(text));

/**
 * JSON Schemas that are valid but hostile: self-references, values too large to build, bounds no
 * number meets, a backtracking pattern. Put where a schema belongs, they reach the validator, the
 * draft deriver and the checker.
 */
export const hostileSchemas: Doc[] = [
  { $ref: "#" },
  { type: "object", properties: { a: { $ref: "#" } }, required: ["a"] },
  { allOf: [{ $ref: "#" }] },
  { type: "string", minLength: 1e9 },
  { type: "array", minItems: 1e9 },
  { type: "array", minItems: 1000, items: { type: "array", minItems: 1000 } },
  { type: "object", required: ["s"], properties: { s: { type: "string", minLength: 1e9 } } },
  { type: "object", required: ["l"], properties: { l: { type: "array", minItems: 1e9, items: { type: "integer" } } } },
  { type: "number", minimum: 1e308, multipleOf: 1e-308 },
  { type: "integer", exclusiveMinimum: 9007199254740991 },
  { type: "string", pattern: "^(a+)+$" },
  { type: "string", format: "no-such-format" },
  toDoc(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}')),
  { type: ["object", "null"], additionalProperties: { $ref: "#" } },
  { anyOf: [] },
  { enum: [] },
];

/** A value put where a valid one was: wrong types, odd strings, big numbers, deep nesting, hostile schemas, arbitrary JSON. */
export const oddValueArb: fc.Arbitrary<Doc> = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...hostileSchemas).map((schema) => toDoc(schema)) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<Doc>(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 31), "", "x", [], {}, [null], {
      "": null,
    }),
  },
  { weight: 3, arbitrary: oddStringArb },
  { weight: 2, arbitrary: numberTextArb },
  { weight: 2, arbitrary: deepArb },
  { weight: 2, arbitrary: longStringArb },
  { weight: 1, arbitrary: prototypeKeyObjectArb },
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }).map(toDoc) },
);

export const oddKeyArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    "__proto__",
    "constructor",
    "prototype",
    "toString",
    "",
    " ",
    "\ud800",
    "$input",
    "$state",
    "a/b",
    "~0",
    "id",
    "extra",
  ),
  fc.string({ maxLength: 12 }),
);

// -- mutations of a valid body ------------------------------------------------------------------

/**
 * One change to a document. `at` picks the place (modulo the places there are) among those at
 * most `depth` levels down, so a body's own fields are hit about as often as a schema's leaves.
 */
export type Mutation =
  | { op: "drop"; depth: number; at: number }
  | { op: "set"; depth: number; at: number; value: Doc }
  | { op: "add"; depth: number; at: number; key: string; value: Doc }
  | { op: "wrap"; depth: number; at: number; container: "array" | "object" };

const depthArb = fc.constantFrom(1, 2, 3, 99);

export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("drop" as const), depth: depthArb, at: fc.nat() }),
  {
    weight: 3,
    arbitrary: fc.record({ op: fc.constant("set" as const), depth: depthArb, at: fc.nat(), value: oddValueArb }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("add" as const),
      depth: depthArb,
      at: fc.nat(),
      key: oddKeyArb,
      value: oddValueArb,
    }),
  },
  fc.record({
    op: fc.constant("wrap" as const),
    depth: depthArb,
    at: fc.nat(),
    container: fc.constantFrom("array" as const, "object" as const),
  }),
);

type Location = { parent: Doc[] | { [key: string]: Doc }; key: string | number } | { parent: null };

/** Every place in a document down to `maxDepth` levels: the root first, then each member, depth first. */
function locations(root: Doc, maxDepth: number): Location[] {
  const out: Location[] = [{ parent: null }];
  const visit = (value: Doc, depth: number): void => {
    if (depth > maxDepth || value instanceof Raw || value === null || typeof value !== "object") return;
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        out.push({ parent: value, key: index });
        visit(item, depth + 1);
      });
      return;
    }
    for (const key of Object.keys(value)) {
      out.push({ parent: value, key });
      visit(value[key] ?? null, depth + 1);
    }
  };
  visit(root, 1);
  return out;
}

/** Applies the mutations to a copy of `valid`; each picks its place by index modulo the places there are. */
export function mutate(valid: unknown, mutations: readonly Mutation[]): Doc {
  let root = toDoc(valid);
  for (const mutation of mutations) {
    const places = locations(root, mutation.depth);
    const place = places[mutation.at % places.length] ?? { parent: null };
    const current: Doc =
      place.parent === null ? root : ((place.parent as Record<string | number, Doc>)[place.key] ?? null);
    let next: Doc | undefined;
    switch (mutation.op) {
      case "drop":
        if (place.parent === null) next = {};
        else if (Array.isArray(place.parent) && typeof place.key === "number") {
          place.parent.splice(place.key, 1);
          continue;
        } else {
          delete (place.parent as Record<string, Doc>)[place.key];
          continue;
        }
        break;
      case "set":
        next = mutation.value;
        break;
      case "add":
        if (current !== null && typeof current === "object" && !(current instanceof Raw) && !Array.isArray(current)) {
          setKey(current, mutation.key, mutation.value);
          continue;
        }
        if (Array.isArray(current)) {
          current.push(mutation.value);
          continue;
        }
        next = {};
        setKey(next, mutation.key, mutation.value);
        break;
      case "wrap":
        next = mutation.container === "array" ? [current] : { value: current };
        break;
    }
    if (place.parent === null) root = next ?? null;
    else if (Array.isArray(place.parent) && typeof place.key === "number") place.parent[place.key] = next ?? null;
    else setKey(place.parent as { [key: string]: Doc }, String(place.key), next ?? null);
  }
  return root;
}

// -- whole bodies -------------------------------------------------------------------------------

/** What goes on the wire: a JSON document, raw text, or bytes that are not UTF-8. */
export type BodyCase =
  | { kind: "valid" }
  | { kind: "mutated"; mutations: Mutation[] }
  | { kind: "json"; value: Doc }
  | { kind: "text"; text: Raw }
  | { kind: "bytes"; bytes: number[] }
  | { kind: "none" };

/** Raw texts every JSON reader must refuse (or read) cleanly. */
export const rawTexts = [
  "",
  " ",
  "\n\t\r ",
  "{",
  "[",
  "}",
  "null",
  "true",
  "0",
  '"a string"',
  "[]",
  "{}",
  "\ufeff{}",
  "{} trailing",
  '{"a":1,}',
  '{"a":1}{"b":2}',
  "NaN",
  "Infinity",
  "{'single': 'quotes'}",
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"a":"\\uZZZZ"}',
  "1e400",
  "[1e400]",
  '{"__proto__":{"x":1}}',
] as const;

export const rawTextArb: fc.Arbitrary<Raw> = fc.oneof(
  fc.constantFrom(...rawTexts).map((text) => new Raw(text, JSON.stringify(text))),
  deepArb,
  fc.string({ unit: "binary", maxLength: 40 }).map((text) => new Raw(text, JSON.stringify(text))),
  fc
    .constantFrom(" ".repeat(300_000), "[".repeat(100_000))
    .map((text) => new Raw(text, `${JSON.stringify(text[0])} x ${text.length}`)),
);

/** Byte sequences that are not UTF-8 (a stray 0xFF, an overlong slash, a lone surrogate encoded, a cut-off sequence). */
export const badUtf8Arb: fc.Arbitrary<number[]> = fc.constantFrom(
  [0x7b, 0xff, 0x7d],
  [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d],
  [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d],
  [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x82],
  [0xfe, 0xff, 0x00, 0x7b, 0x00, 0x7d],
);

export function bodyArb(extraValid: fc.Arbitrary<Doc>[] = []): fc.Arbitrary<BodyCase> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<BodyCase>({ kind: "valid" }) },
    {
      weight: 8,
      arbitrary: fc
        .array(mutationArb, { minLength: 1, maxLength: 3 })
        .map((mutations): BodyCase => ({ kind: "mutated", mutations })),
    },
    { weight: 2, arbitrary: fc.jsonValue().map((value): BodyCase => ({ kind: "json", value: toDoc(value) })) },
    ...extraValid.map((arbitrary) => ({
      weight: 1,
      arbitrary: arbitrary.map((value): BodyCase => ({ kind: "json", value })),
    })),
    { weight: 2, arbitrary: rawTextArb.map((text): BodyCase => ({ kind: "text", text })) },
    { weight: 1, arbitrary: badUtf8Arb.map((bytes): BodyCase => ({ kind: "bytes", bytes })) },
    { weight: 1, arbitrary: fc.constant<BodyCase>({ kind: "none" }) },
  );
}

/** The bytes of a body case, given the route's valid body. */
export function bodyPayload(body: BodyCase, valid: unknown): string | Uint8Array | undefined {
  switch (body.kind) {
    case "valid":
      return docText(toDoc(valid));
    case "mutated":
      return docText(mutate(valid, body.mutations));
    case "json":
      return docText(body.value);
    case "text":
      return body.text.text;
    case "bytes":
      return new Uint8Array(body.bytes);
    case "none":
      return undefined;
  }
}

/** Content types: mostly the right one, sometimes one a client gets wrong. `null` sends none. */
export function contentTypeArb(right: string): fc.Arbitrary<string | null> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(right) },
    {
      weight: 3,
      arbitrary: fc.constantFrom<string | null>(
        null,
        "",
        "text/plain",
        "application/json; charset=latin1",
        "application/json; charset=utf-16",
        "APPLICATION/JSON",
        "application/vnd.api+json",
        "application/jsonp",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/yaml",
        "text/yaml",
        "application/json, text/plain",
        "*/*",
      ),
    },
  );
}

/** Path parameters: mostly the fixture's own, sometimes one a client or an attacker would send. */
export function pathParamArb(valid: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 10, arbitrary: fc.constant(valid) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "%ED%A0%80",
        "%FF",
        "%",
        "%E0%A4%A",
        "a%2Fb",
        "..",
        "%2E%2E",
        "__proto__",
        "constructor",
        "x".repeat(300),
        "%00",
        "tool_AAAAAAAAAAAAAAAAAAAAAA",
        "att_AAAAAAAAAAAAAAAAAAAAAA",
        `${valid}%20`,
        encodeURIComponent("é"),
      ),
    },
  );
}

// -- YAML ---------------------------------------------------------------------------------------

/** YAML a policy author (or an attacker) could send: aliases, recursion, bombs, tags, odd scalars. */
export const yamlTexts = [
  "&a [*a]",
  "&a {x: *a}",
  "a: &a [1, 2]\nb: *a\n",
  "a: &x [1]\nb: &y [*x, *x, *x, *x, *x, *x, *x, *x, *x, *x]\nc: &z [*y, *y, *y, *y, *y, *y, *y, *y, *y, *y]\nd: [*z, *z, *z, *z, *z, *z, *z, *z, *z, *z]\n",
  "base: &b {allowed_tools: [a]}\npolicy:\n  <<: *b\n",
  "<<: {tools: {}}\n",
  "tools: !!js/function 'function () {}'\n",
  "tools: !!binary aGVsbG8=\n",
  "tools: !!set {a, b}\n",
  "tools: !!omap [a: 1]\n",
  "tools: !custom x\n",
  "min_description_length: .inf\n",
  "min_description_length: .nan\n",
  "min_description_length: 1e400\n",
  "min_description_length: 123456789012345678901234567890\n",
  "min_description_length: 0x10\n",
  'tools: {"\\ud800": never_require}\n',
  'allowed_tools: ["\\ud800"]\n',
  "tools:\n  a: never_require\n  a: always_require\n",
  "? [a, b]\n: 1\n",
  "? {a: 1}\n: 1\n",
  "---\ntools: {}\n---\ntools: {}\n",
  "%YAML 1.1\n---\ntools: {}\n",
  "%TAG ! tag:example.com,2000:\n---\ntools: !x {}\n",
  "tools: {}\n...\n",
  "tools: [",
  "\t- a",
  "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - - x",
  "~",
  "",
  " ",
  "# only a comment\n",
  "__proto__: {polluted: true}\n",
  "tools: {__proto__: never_require}\n",
  "tools:\n  get_invoice: yes\n",
  "date: 2001-12-14t21:59:43.10-05:00\n",
] as const;

export const yamlArb: fc.Arbitrary<Raw> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...yamlTexts).map((text) => new Raw(text, JSON.stringify(text))) },
  {
    weight: 2,
    arbitrary: fc
      .record({
        depth: fc.constantFrom(100, 1000, 2000, 5000),
        style: fc.constantFrom("flow-seq", "flow-map", "block-seq"),
      })
      .map(({ depth, style }) => {
        if (style === "flow-seq")
          return new Raw(`${"[".repeat(depth)}1${"]".repeat(depth)}`, `yaml flow sequence ${depth} deep`);
        if (style === "flow-map")
          return new Raw(`${"{a: ".repeat(depth)}1${"}".repeat(depth)}`, `yaml flow map ${depth} deep`);
        return new Raw(`${"- ".repeat(depth)}x\n`, `yaml block sequence ${depth} deep`);
      }),
  },
  {
    weight: 1,
    arbitrary: fc.string({ unit: "binary", maxLength: 60 }).map((text) => new Raw(text, JSON.stringify(text))),
  },
  {
    weight: 2,
    arbitrary: fc
      .jsonValue({ maxDepth: 4 })
      .map((value) => new Raw(JSON.stringify(value), `json as yaml ${JSON.stringify(value).slice(0, 80)}`)),
  },
);
