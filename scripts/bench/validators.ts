/**
 * Validations per second of the two SchemaValidator implementations on a realistic tool input
 * schema, warm cache (the dispatch hot path: the same contract object validated again and again).
 *
 *   npm run bench:validators [-- --seconds 2 --json]
 *
 * Four workloads per validator: a valid call, an invalid call (problems rendered), a valid call
 * whose schema is a structurally equal copy (the canonical-JSON cache path), and the cold cost
 * of preparing a schema once (cache miss). Numbers only: this is never a test (timings on shared
 * machines are noise).
 */
import { createAjvValidator } from "../../src/adapters/json-schema/ajv-validator.js";
import { createRuntimeValidator } from "../../src/adapters/json-schema/runtime-validator.js";
import type { JsonObject } from "../../src/core/json.js";
import type { SchemaValidator } from "../../src/core/ports.js";

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index >= 0 ? Number(process.argv[index + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
}

const SECONDS = flag("seconds", 2);
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
        { type: "object", required: ["method", "token"], properties: { method: { const: "card" }, token: { type: "string", minLength: 16 } } },
        { type: "object", required: ["method"], properties: { method: { const: "on-arrival" } } },
      ],
    },
    notes: { type: "string", maxLength: 500 },
  },
  $defs: {
    extra: {
      type: "object",
      required: ["kind"],
      properties: { kind: { enum: ["breakfast", "parking", "late-checkout"] }, quantity: { type: "integer", minimum: 1, default: 1 } },
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
  ["runtime (@cfworker/json-schema)", () => createRuntimeValidator()],
  ["ajv 8 (compiled)", () => createAjvValidator()],
];

const rows: Row[] = [];
for (const [name, create] of factories) {
  const validator = create();
  const copy = structuredClone(BOOKING);
  const problems = validator.validate(BOOKING, INVALID).length;
  if (validator.validate(BOOKING, VALID).length !== 0) throw new Error(`${name} rejects the valid call`);
  rows.push({ validator: name, workload: "valid call", perSecond: rate(() => validator.validate(BOOKING, VALID)), problems: 0 });
  rows.push({ validator: name, workload: "invalid call", perSecond: rate(() => validator.validate(BOOKING, INVALID)), problems });
  rows.push({
    validator: name,
    workload: "valid call, equal schema copy",
    perSecond: rate(() => validator.validate(structuredClone(copy), VALID)),
    problems: 0,
  });
  rows.push({ validator: name, workload: "cold: new schema each call", perSecond: coldRate(create), problems: 0 });
}

if (AS_JSON) {
  console.log(JSON.stringify({ seconds: SECONDS, node: process.version, rows }, null, 2));
} else {
  console.log(`validations per second, ${SECONDS}s per workload, Node ${process.version}`);
  const width = Math.max(...rows.map((r) => r.validator.length));
  for (const row of rows) {
    const note = row.problems > 0 ? ` (${row.problems} problems)` : "";
    console.log(`${row.validator.padEnd(width)}  ${row.workload.padEnd(30)} ${row.perSecond.toLocaleString("en-US").padStart(12)}/s${note}`);
  }
  console.log("The 'equal schema copy' workload includes structuredClone of the schema on every call.");
}
