import { compilePreparedFastPath } from "../../src/adapters/json-schema/fast-path.js";
import { copyJson, prepareDocument, sharedMetaLookup } from "../../src/adapters/json-schema/cfworker-prepare.js";
import { createRuntimeValidator } from "../../src/adapters/json-schema/runtime-validator.js";
const BOOKING = JSON.parse(process.argv[2] ?? "{}");
const schema = { type: "object", required: ["a"], additionalProperties: false, properties: { a: { type: "string", format: "email" }, b: { anyOf: [{ type: "integer" }, { type: "null" }] }, c: { type: "array", items: { $ref: "#/$defs/x" } } }, $defs: { x: { enum: [1, 2] } } };
const base = sharedMetaLookup();
for (const round of [1, 2, 3]) {
  let t = performance.now();
  const N = 2000;
  for (let i = 0; i < N; i++) prepareDocument(copyJson({ ...schema, description: String(i) }), base, "2020-12");
  const prep = (performance.now() - t) / N;
  const docs = Array.from({ length: N }, (_, i) => prepareDocument(copyJson({ ...schema, description: String(i) }), base, "2020-12"));
  t = performance.now();
  for (const d of docs) compilePreparedFastPath(d, "2020-12");
  const comp = (performance.now() - t) / N;
  for (const fp of [true, false]) {
    const v = createRuntimeValidator({ fastPath: fp });
    t = performance.now();
    for (let i = 0; i < N; i++) v.validate({ ...schema, description: String(i) }, { a: "x@y.co" });
    console.log(round, `fastPath=${fp} cold validate ${((performance.now() - t) / N * 1000).toFixed(1)}µs`);
  }
  console.log(round, `prepare ${(prep * 1000).toFixed(1)}µs compile ${(comp * 1000).toFixed(1)}µs`);
}
