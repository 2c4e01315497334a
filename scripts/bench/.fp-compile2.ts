import { compilePreparedFastPath } from "../../src/adapters/json-schema/fast-path.js";
import { copyJson, prepareDocument, sharedMetaLookup } from "../../src/adapters/json-schema/cfworker-prepare.js";
const schema = { type: "object", required: ["a"], additionalProperties: false, properties: { a: { type: "string", format: "email" }, b: { anyOf: [{ type: "integer" }, { type: "null" }] }, c: { type: "array", items: { $ref: "#/$defs/x" } } }, $defs: { x: { enum: [1, 2] } } };
const base = sharedMetaLookup();
const N = 20000;
const docs = Array.from({ length: N }, (_, i) => prepareDocument(copyJson({ ...schema, description: String(i) }), base, "2020-12"));
const t = performance.now();
for (const d of docs) compilePreparedFastPath(d, "2020-12");
console.log(`compile ${((performance.now() - t) / N * 1000).toFixed(1)}µs`);
