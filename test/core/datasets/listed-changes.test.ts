/**
 * The listed-changes size against the list itself: for any sequence of calls' record changes, the
 * kept size is the UTF-8 length of the JSON of the list Overlay gives, and weighing a call's
 * changes first gives the size merging them gives, without changing what is kept.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Length } from "../../../src/core/utf8.js";
import { jsonArrayBytes, listedChange, ListedChangesSize } from "../../../src/core/datasets/listed-changes.js";
import { Overlay, type RecordChange } from "../../../src/core/datasets/records.js";
import type { JsonValue } from "../../../src/core/json.js";

const changeArb: fc.Arbitrary<RecordChange> = fc
  .record({
    collection: fc.constantFrom("orders", "users", "é/ü~"),
    record: fc.option(fc.constantFrom("#W1", "#W2", "u1", "😀", "a/b~c"), { nil: null }),
    value: fc.option(
      fc.jsonValue({ maxDepth: 2 }).map((value) => value as JsonValue),
      { nil: undefined },
    ),
  })
  .map(({ collection, record, value }) =>
    value === undefined ? { collection, record } : { collection, record, value },
  );
const callsArb = fc.array(fc.array(changeArb, { maxLength: 4 }), { maxLength: 8 });

function listBytes(changes: readonly RecordChange[]): number {
  return utf8Length(JSON.stringify(new Overlay(changes).changes().map(listedChange)));
}

describe("ListedChangesSize", () => {
  it("is the JSON size of the listed changes after every call, and jsonWith weighs a call without keeping it", () => {
    fc.assert(
      fc.property(callsArb, (calls) => {
        const size = new ListedChangesSize();
        const all: RecordChange[] = [];
        expect(size.json).toBe(listBytes(all));
        for (const changes of calls) {
          const kept = size.json;
          const weighed = size.jsonWith(changes);
          expect(size.json).toBe(kept);
          size.merge(changes);
          all.push(...changes);
          expect({ weighed, merged: size.json }).toEqual({ weighed: listBytes(all), merged: listBytes(all) });
        }
      }),
    );
  });

  it("counts a rewritten record once and a whole-collection change as replacing the records under it", () => {
    const size = new ListedChangesSize([
      { collection: "orders", record: "#W1", value: "a" },
      { collection: "orders", record: "#W1", value: "bb" },
      { collection: "orders", record: "#W2" },
    ]);
    expect(size.json).toBe(
      JSON.stringify([
        listedChange({ collection: "orders", record: "#W1", value: "bb" }),
        { pointer: "/orders/#W2", removed: true },
      ]).length,
    );
    size.merge([{ collection: "orders", record: null, value: {} }]);
    expect(size.json).toBe(JSON.stringify([{ pointer: "/orders", value: {} }]).length);
  });

  it("sizes an array from its members: brackets and the commas between", () => {
    expect([jsonArrayBytes(0, 0), jsonArrayBytes(3, 1), jsonArrayBytes(6, 2)]).toEqual(
      ["[]", "[abc]", "[abc,def]"].map((s) => s.length),
    );
  });
});
