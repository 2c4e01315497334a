import { validate as cfworkerValidate } from "@cfworker/json-schema";
import { compilePreparedFastPath } from "../../src/adapters/json-schema/fast-path.js";
import { copyJson, prepareDocument, sharedMetaLookup } from "../../src/adapters/json-schema/cfworker-prepare.js";
const BOOKING = {
  type: "object", required: ["guest", "room", "nights", "checkIn"], additionalProperties: false,
  properties: {
    guest: { type: "object", required: ["name", "email"], additionalProperties: false, properties: { name: { type: "string", minLength: 1, maxLength: 120 }, email: { type: "string", format: "email" }, phone: { type: "string", pattern: "^\\+?[0-9 ()-]{7,20}$" }, loyaltyId: { anyOf: [{ type: "string", pattern: "^L[0-9]{8}$" }, { type: "null" }] } } },
    room: { enum: ["single", "double", "suite"] }, nights: { type: "integer", minimum: 1, maximum: 30 }, checkIn: { type: "string", format: "date" },
    extras: { type: "array", maxItems: 5, uniqueItems: true, items: { $ref: "#/$defs/extra" } },
    payment: { oneOf: [{ type: "object", required: ["method", "token"], properties: { method: { const: "card" }, token: { type: "string", minLength: 16 } } }, { type: "object", required: ["method"], properties: { method: { const: "on-arrival" } } }] },
    notes: { type: "string", maxLength: 500 },
  },
  $defs: { extra: { type: "object", required: ["kind"], properties: { kind: { enum: ["breakfast", "parking", "late-checkout"] }, quantity: { type: "integer", minimum: 1, default: 1 } } } },
};
const VALID = { guest: { name: "Ada Lovelace", email: "ada@example.com", phone: "+44 20 7946 0000", loyaltyId: null }, room: "double", nights: 3, checkIn: "2025-06-01", extras: [{ kind: "breakfast", quantity: 2 }, { kind: "parking" }], payment: { method: "card", token: "tok_4242424242424242" }, notes: "Late arrival, around 23:00." };
const base = sharedMetaLookup();
const N = 5000;
for (let r = 0; r < 3; r++) {
  let t = performance.now();
  const docs = Array.from({ length: N }, (_, i) => prepareDocument(copyJson({ ...BOOKING, description: String(i) }), base, "2020-12"));
  const prep = (performance.now() - t) / N;
  t = performance.now();
  const fps = docs.map((d) => compilePreparedFastPath(d, "2020-12"));
  const comp = (performance.now() - t) / N;
  t = performance.now();
  for (const d of docs) cfworkerValidate(VALID, d.root, "2020-12", d.lookup, false);
  const cf = (performance.now() - t) / N;
  t = performance.now();
  for (const f of fps) f?.(VALID);
  const fp = (performance.now() - t) / N;
  console.log(`prepare ${(prep * 1000).toFixed(1)}µs, compile ${(comp * 1000).toFixed(1)}µs, cfworker valid ${(cf * 1000).toFixed(1)}µs, fast valid (cold closures) ${(fp * 1000).toFixed(1)}µs`);
}
