import { expect, it } from "vitest";
import { jsonEqual } from "../../src/core/json.js";
it("eq", () => expect(jsonEqual({ a: 1 }, { a: 1.0 })).toBe(true));
