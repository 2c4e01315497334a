/**
 * Prepared schemas are cached: by object identity first, then by canonical JSON in a bounded,
 * least-recently-used map. Verdicts never depend on whether the cache hit.
 */
import { describe, expect, it } from "vitest";
import { createPreparedCache } from "../../../src/adapters/json-schema/prepared-cache.js";
import type { JsonSchema } from "../../../src/core/ports.js";
import { IMPLEMENTATIONS } from "./validators.js";

describe("createPreparedCache", () => {
  const counting = (size?: number) => {
    const prepared: string[] = [];
    const cache = createPreparedCache((schema) => {
      prepared.push(JSON.stringify(schema));
      return { preparedFrom: JSON.stringify(schema) };
    }, size);
    return { cache, prepared };
  };

  it("prepares a schema object once, however often it is used", () => {
    const { cache, prepared } = counting();
    const schema = { type: "string" };
    const first = cache.get(schema);
    for (let i = 0; i < 1000; i++) expect(cache.get(schema)).toBe(first);
    expect(prepared).toEqual(['{"type":"string"}']);
  });

  it("reuses the prepared form for an equal schema with another identity or key order", () => {
    const { cache, prepared } = counting();
    const first = cache.get({ type: "object", required: ["a"] });
    expect(cache.get({ required: ["a"], type: "object" })).toBe(first);
    expect(cache.get(JSON.parse('{"type":"object","required":["a"]}') as object)).toBe(first);
    expect(prepared).toHaveLength(1);
    expect(cache.size).toBe(1);
  });

  it("keeps the boolean schemas apart", () => {
    const { cache, prepared } = counting();
    expect(cache.get(true)).not.toBe(cache.get(false));
    cache.get(true);
    expect(prepared).toEqual(["true", "false"]);
  });

  it("is bounded and evicts the least recently used schema", () => {
    const { cache, prepared } = counting(3);
    // Fresh objects each time, so only the canonical map (the bounded one) can hit.
    const get = (n: number) => cache.get({ const: n });
    get(1);
    get(2);
    get(3);
    get(1); // 1 is now the most recent; 2 the least recent
    get(4); // evicts 2
    expect(cache.size).toBe(3);
    expect(prepared).toEqual(['{"const":1}', '{"const":2}', '{"const":3}', '{"const":4}']);
    get(1);
    get(3);
    get(4);
    expect(prepared).toHaveLength(4);
    get(2); // was evicted: prepared again
    expect(prepared).toHaveLength(5);
    expect(cache.size).toBe(3);
  });

  it("refuses a size that is not a positive integer", () => {
    expect(() => createPreparedCache(() => 1, 0)).toThrow(RangeError);
    expect(() => createPreparedCache(() => 1, 1.5)).toThrow(RangeError);
  });
});

describe.each(IMPLEMENTATIONS)("%s validator: caching", (_name, create) => {
  const schema: JsonSchema = { type: "object", required: ["q"], properties: { q: { type: "string", minLength: 2 } } };

  it("gives the same verdict on every call, whether the cache hits by identity or by content", () => {
    const validator = create();
    const expected = [{ path: "/q", message: "must be at least 2 characters long, got 1" }];
    for (let i = 0; i < 500; i++) {
      expect(validator.validate(schema, { q: "ab" })).toEqual([]);
      expect(validator.validate(schema, { q: "a" })).toEqual(expected);
      // A structurally equal copy, as when a contract is parsed again from storage.
      expect(validator.validate(structuredClone(schema), { q: "a" })).toEqual(expected);
    }
    expect(validator.cachedSchemas()).toBe(1);
  });

  it("stays within its bound and stays correct for evicted schemas", () => {
    const validator = create({ cacheSize: 5 });
    const bounded = (n: number): JsonSchema => ({ type: "integer", maximum: n });
    for (let round = 0; round < 3; round++) {
      for (let n = 0; n < 20; n++) {
        expect(validator.validate(bounded(n), n)).toEqual([]);
        expect(validator.validate(bounded(n), n + 1)).toEqual([{ path: "", message: `must be <= ${n}` }]);
        expect(validator.cachedSchemas()).toBeLessThanOrEqual(5);
      }
    }
    expect(validator.cachedSchemas()).toBe(5);
  });

  it("caches checkSchema's answer with the prepared schema", () => {
    const validator = create();
    const bad = { type: 12 };
    const first = validator.checkSchema(bad);
    expect(first).toHaveLength(1);
    expect(validator.checkSchema(bad)).toEqual(first);
    expect(validator.checkSchema({ type: 12 })).toEqual(first);
    expect(validator.cachedSchemas()).toBe(1);
  });
});
