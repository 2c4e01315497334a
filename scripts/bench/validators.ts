/**
 * Validations per second of the SchemaValidator implementations on realistic tool schemas, warm
 * cache (the dispatch hot path: the same contract object validated again and again).
 *
 *   npm run bench:validators [-- --seconds 2 --json]
 *
 * Validators: the runtime one as deployed (compiled fast path, cfworker for the rest), the same
 * with its fast path turned off (cfworker alone, as before the fast path), ajv (compiled code,
 * tests and benchmarks only), and the bare fast-path closure (what the runtime validator's valid path costs
 * without the cache lookup around it).
 *
 * Workloads per validator: a valid call on each tool schema, an invalid call (problems
 * rendered), a valid call whose schema is a structurally equal copy (the canonical-JSON cache
 * path), the cold cost of preparing a schema once (cache miss), and, for the runtime validator,
 * a pattern that would backtrack exponentially over a long string (bounded by the linear-time
 * pattern engine). Numbers only: this is never a test (timings on shared machines are noise).
 */
import { createAjvValidator } from "../../test/support/ajv/ajv-validator.js";
import { compileFastPath } from "../../src/adapters/json-schema/fast-path.js";
import { createRuntimeValidator } from "../../src/adapters/json-schema/runtime-validator.js";
import type { JsonObject } from "../../src/core/json.js";
import type { SchemaValidator } from "../../src/core/ports.js";
import { positiveFlag } from "./flags.js";

const SECONDS = positiveFlag("seconds", 2);
const AS_JSON = process.argv.includes("--json");

/** A booking tool's input contract, of the size and shape agents' tools have. */
const BOOKING: JsonObject = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["guest", "room", "nights", "checkIn"],
  additionalProperties: false,
  properties: {
    guest: {
      type: "object",
      required: ["name", "email"],
      additionalProperties: false,
      properties: {
        name: { type: "string", minLength: 1, maxLength: 120 },
        email: { type: "string", format: "email" },
        phone: { type: "string", pattern: "^\\+?[0-9 ()-]{7,20}$" },
        loyaltyId: { anyOf: [{ type: "string", pattern: "^L[0-9]{8}$" }, { type: "null" }] },
      },
    },
    room: { enum: ["single", "double", "suite"] },
    nights: { type: "integer", minimum: 1, maximum: 30 },
    checkIn: { type: "string", format: "date" },
    extras: {
      type: "array",
      maxItems: 5,
      uniqueItems: true,
      items: { $ref: "#/$defs/extra" },
    },
    payment: {
      oneOf: [
        {
          type: "object",
          required: ["method", "token"],
          properties: { method: { const: "card" }, token: { type: "string", minLength: 16 } },
        },
        { type: "object", required: ["method"], properties: { method: { const: "on-arrival" } } },
      ],
    },
    notes: { type: "string", maxLength: 500 },
  },
  $defs: {
    extra: {
      type: "object",
      required: ["kind"],
      properties: {
        kind: { enum: ["breakfast", "parking", "late-checkout"] },
        quantity: { type: "integer", minimum: 1, default: 1 },
      },
    },
  },
};

const VALID = {
  guest: { name: "Ada Lovelace", email: "ada@example.com", phone: "+44 20 7946 0000", loyaltyId: null },
  room: "double",
  nights: 3,
  checkIn: "2025-06-01",
  extras: [{ kind: "breakfast", quantity: 2 }, { kind: "parking" }],
  payment: { method: "card", token: "tok_4242424242424242" },
  notes: "Late arrival, around 23:00.",
};

const INVALID = {
  guest: { name: "", email: "ada@", loyaltyId: 7 },
  room: "penthouse",
  nights: 0,
  checkIn: "June 1st",
  extras: [{ kind: "spa" }, { kind: "spa" }],
  payment: { method: "card" },
  coupon: "FREE",
};

/** An e-mail tool (the workerd test's): arrays of formats, a $ref to an enum. */
const SEND_EMAIL: JsonObject = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  required: ["to", "subject"],
  additionalProperties: false,
  properties: {
    to: { type: "array", minItems: 1, items: { type: "string", format: "email" } },
    cc: { type: "array", items: { type: "string", format: "email" } },
    subject: { type: "string", maxLength: 80 },
    body: { type: "string", maxLength: 10000 },
    sendAt: { type: "string", format: "date-time" },
    priority: { $ref: "#/$defs/priority" },
  },
  $defs: { priority: { enum: ["low", "normal", "high"] } },
};

const SEND_EMAIL_VALID = {
  to: ["ada@example.com", "grace@example.org"],
  subject: "Quarterly numbers",
  body: "Hi both, the figures are attached. Let me know what you think before Friday.",
  sendAt: "2025-06-01T09:30:00Z",
  priority: "normal",
};

/**
 * A search tool as strict function-calling schemas are written (every property required,
 * nullable ones as anyOf with null), draft-07 with "definitions" as generators emit them.
 */
const SEARCH_ORDERS: JsonObject = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  required: ["query", "status", "placedAfter", "limit", "sort"],
  additionalProperties: false,
  properties: {
    query: { type: "string", minLength: 1, maxLength: 200 },
    status: {
      anyOf: [{ type: "array", items: { $ref: "#/definitions/status" }, uniqueItems: true }, { type: "null" }],
    },
    placedAfter: { anyOf: [{ type: "string", format: "date" }, { type: "null" }] },
    customerId: { type: "string", pattern: "^cus_[A-Za-z0-9]{8,24}$" },
    total: {
      type: "object",
      additionalProperties: false,
      properties: {
        min: { type: "number", minimum: 0 },
        max: { type: "number", minimum: 0 },
        currency: { type: "string", pattern: "^[A-Z]{3}$" },
      },
    },
    limit: { type: "integer", minimum: 1, maximum: 100 },
    sort: { $ref: "#/definitions/sort" },
  },
  definitions: {
    status: { enum: ["pending", "paid", "shipped", "delivered", "refunded"] },
    sort: {
      type: "object",
      required: ["field", "direction"],
      additionalProperties: false,
      properties: { field: { enum: ["placedAt", "total"] }, direction: { enum: ["asc", "desc"] } },
    },
  },
};

const SEARCH_ORDERS_VALID = {
  query: "blue ceramic mug",
  status: ["paid", "shipped"],
  placedAfter: "2025-01-01",
  customerId: "cus_A1b2C3d4E5",
  total: { min: 10, max: 250.5, currency: "EUR" },
  limit: 20,
  sort: { field: "placedAt", direction: "desc" },
};

const TOOLS: ReadonlyArray<[name: string, schema: JsonObject, valid: unknown]> = [
  ["booking", BOOKING, VALID],
  ["send_email", SEND_EMAIL, SEND_EMAIL_VALID],
  ["search_orders (draft-07)", SEARCH_ORDERS, SEARCH_ORDERS_VALID],
];

interface Row {
  validator: string;
  workload: string;
  perSecond: number;
  problems: number;
}

/** Runs `work` for about SECONDS seconds and returns calls per second. */
function rate(work: () => unknown): number {
  for (let i = 0; i < 1000; i++) work(); // warm up (JIT, caches)
  let calls = 0;
  const started = performance.now();
  const until = started + SECONDS * 1000;
  let now = started;
  while (now < until) {
    for (let i = 0; i < 256; i++) work();
    calls += 256;
    now = performance.now();
  }
  return Math.round((calls * 1000) / (now - started));
}

/** Schemas prepared per second: each call sees a schema it has never seen (cache miss). */
function coldRate(create: () => SchemaValidator): number {
  const validator = create();
  let n = 0;
  const seconds = Math.min(SECONDS, 1);
  let calls = 0;
  const started = performance.now();
  let now = started;
  while (now - started < seconds * 1000) {
    const schema = { ...BOOKING, description: `variant ${n++}` };
    validator.validate(schema, VALID);
    calls++;
    now = performance.now();
  }
  return Math.round((calls * 1000) / (now - started));
}

const factories: Array<[string, () => SchemaValidator]> = [
  ["runtime (fast path + cfworker)", () => createRuntimeValidator()],
  ["runtime, fast path off (cfworker)", () => createRuntimeValidator({ fastPath: false })],
  ["ajv 8 (compiled)", () => createAjvValidator()],
];

const rows: Row[] = [];
for (const [name, create] of factories) {
  const validator = create();
  const copy = structuredClone(BOOKING);
  const problems = validator.validate(BOOKING, INVALID).length;
  for (const [tool, schema, valid] of TOOLS) {
    if (validator.validate(schema, valid).length !== 0) throw new Error(`${name} rejects the valid ${tool} call`);
    rows.push({
      validator: name,
      workload: `valid call: ${tool}`,
      perSecond: rate(() => validator.validate(schema, valid)),
      problems: 0,
    });
  }
  rows.push({
    validator: name,
    workload: "invalid call: booking",
    perSecond: rate(() => validator.validate(BOOKING, INVALID)),
    problems,
  });
  rows.push({
    validator: name,
    workload: "valid call, equal schema copy",
    perSecond: rate(() => validator.validate(structuredClone(copy), VALID)),
    problems: 0,
  });
  rows.push({ validator: name, workload: "cold: new schema each call", perSecond: coldRate(create), problems: 0 });
}

// A pattern checkSchema accepts (no nested repetition) for which a backtracking engine takes 2^n
// steps on n "a"s and a "b". The linear-time engine bounds it; ajv's RegExp would never return,
// so only the runtime validator is measured.
const AMBIGUOUS: JsonObject = { type: "object", properties: { s: { type: "string", pattern: "^(a|a)*$" } } };
const LONG_MISMATCH = { s: `${"a".repeat(10_000)}b` };
for (const [name, create] of factories.filter(([validator]) => validator.startsWith("runtime"))) {
  const validator = create();
  const problems = validator.validate(AMBIGUOUS, LONG_MISMATCH).length;
  rows.push({
    validator: name,
    workload: "hostile pattern, 10,000 chars",
    perSecond: rate(() => validator.validate(AMBIGUOUS, LONG_MISMATCH)),
    problems,
  });
}

// The bare closure tree, without the cache lookup and the port around it.
for (const [tool, schema, valid] of TOOLS) {
  const draft = schema.$schema === "http://json-schema.org/draft-07/schema#" ? "7" : "2020-12";
  const fast = compileFastPath(schema, draft);
  if (fast === undefined) throw new Error(`the fast path does not compile the ${tool} schema`);
  if (!fast(valid)) throw new Error(`the fast path rejects the valid ${tool} call`);
  rows.push({
    validator: "fast path closure alone",
    workload: `valid call: ${tool}`,
    perSecond: rate(() => fast(valid)),
    problems: 0,
  });
}

if (AS_JSON) {
  console.log(JSON.stringify({ seconds: SECONDS, node: process.version, rows }, null, 2));
} else {
  console.log(`validations per second, ${SECONDS}s per workload, Node ${process.version}`);
  const width = Math.max(...rows.map((r) => r.validator.length));
  for (const row of rows) {
    const note = row.problems > 0 ? ` (${row.problems} problems)` : "";
    console.log(
      `${row.validator.padEnd(width)}  ${row.workload.padEnd(36)} ${row.perSecond.toLocaleString("en-US").padStart(12)}/s${note}`,
    );
  }
  console.log("The 'equal schema copy' workload includes structuredClone of the schema on every call.");
}
