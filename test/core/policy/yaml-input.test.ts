/**
 * YAML as parseText reads it: always the YAML 1.2 core schema, explicit tags that do not fit their
 * value refused instead of read as text, and anchored whole numbers read the same wherever an
 * alias repeats them, as a key or as a value.
 */
import { describe, expect, it } from "vitest";
import { parseText } from "../../../src/core/policy/parse-text.js";

const UNFIT_TAG =
  "the value does not fit its tag, so it would be read as something other than the tag says; drop the tag or write the value as the tag expects";

const LOST_9007199254740993 =
  "the whole number 9007199254740993 is past 2^53 and reads as 9007199254740992, so it would be kept as another number; send it as a string";

describe("YAML tags that do not fit their value", () => {
  it("refuses !!float on a whole number, naming the line, the column and the tag", () => {
    expect(parseText("tools:\n  get_invoice: never_require\nmin_description_length: !!float 20\n", "yaml")).toEqual({
      ok: false,
      message: `not usable YAML: Unresolved tag: tag:yaml.org,2002:float at line 3, column 25: ${UNFIT_TAG}`,
    });
  });

  it.each([
    ["a: !!int 1.5\n", "Unresolved tag: tag:yaml.org,2002:int at line 1, column 4:"],
    ["a: !!bool yes\n", "Unresolved tag: tag:yaml.org,2002:bool at line 1, column 4:"],
    ["a: !!float 0x10\n", "Unresolved tag: tag:yaml.org,2002:float at line 1, column 4:"],
    ["a: !<tag:yaml.org,2002:float> 20\n", "Unresolved tag: tag:yaml.org,2002:float at line 1, column 4:"],
    [
      "%TAG !x! tag:yaml.org,2002:\n---\na: !x!float 20\n",
      "Unresolved tag: tag:yaml.org,2002:float at line 3, column 4:",
    ],
    ["a: !local text\n", "Unresolved tag: !local at line 1, column 4:"],
    ["a: !!map [1]\n", "Unresolved tag: tag:yaml.org,2002:map at line 1, column 4:"],
    ["a: !!set [x]\n", "tag:yaml.org,2002:set used for seq collection, but expects map at line 1, column 4:"],
  ])("refuses %j", (text, summary) => {
    expect(parseText(text, "yaml")).toEqual({ ok: false, message: `not usable YAML: ${summary} ${UNFIT_TAG}` });
  });

  it("counts the other tags that do not fit", () => {
    expect(parseText("a: !!float 20\nb: !!int 1.5\nc: !!bool no\n", "yaml")).toEqual({
      ok: false,
      message: `not usable YAML: Unresolved tag: tag:yaml.org,2002:float at line 1, column 4: ${UNFIT_TAG} (and 2 more YAML warnings)`,
    });
  });

  it("reads tags that fit their value", () => {
    expect(
      parseText(
        "f: !!float 20.0\ne: !!float 1e3\ni: !!int 20\ns: !!str 5\nb: !!bool true\nn: !!null ''\nq: ! 7\n",
        "yaml",
      ),
    ).toEqual({ ok: true, value: { f: 20, e: 1000, i: 20, s: "5", b: true, n: null, q: "7" } });
  });

  it("reads documents whose only warnings change no value", () => {
    // An unknown directive and an unknown YAML version are ignored; an anchor ending in ':' is named so.
    expect(parseText("%FOO bar\n---\na: 1\n", "yaml")).toEqual({ ok: true, value: { a: 1 } });
    expect(parseText("%YAML 1.3\n---\na: yes\n", "yaml")).toEqual({ ok: true, value: { a: "yes" } });
    expect(parseText("a: &x: 1\nb: *x:\n", "yaml")).toEqual({ ok: true, value: { a: 1, b: 1 } });
  });
});

describe("the %YAML directive", () => {
  it("reads a %YAML 1.1 document by the 1.2 core schema all the same", () => {
    expect(
      parseText(
        "%YAML 1.1\n---\ny: yes\nn: no\non: off\nt: 1:30\no: 010\nb: 0b101\nu: 1_000\nd: 2001-12-14\nbase: &b {k: 1}\n<<: *b\n",
        "yaml",
      ),
    ).toEqual({
      ok: true,
      value: {
        y: "yes",
        n: "no",
        on: "off",
        t: "1:30",
        o: 10,
        b: "0b101",
        u: "1_000",
        d: "2001-12-14",
        base: { k: 1 },
        "<<": { k: 1 },
      },
    });
  });

  it("still refuses a tag that does not fit under %YAML 1.1", () => {
    expect(parseText("%YAML 1.1\n---\na: !!float 20\n", "yaml")).toEqual({
      ok: false,
      message: `not usable YAML: Unresolved tag: tag:yaml.org,2002:float at line 3, column 4: ${UNFIT_TAG}`,
    });
  });

  it("reads %YAML 1.2 as without the directive", () => {
    expect(parseText("%YAML 1.2\n---\ny: yes\no: 010\n", "yaml")).toEqual({ ok: true, value: { y: "yes", o: 10 } });
  });
});

describe("anchored whole numbers as keys and values", () => {
  it("reads a whole-number key aliased as a value as the number", () => {
    expect(parseText("tools:\n  ? &a 5\n  : never_require\nmin_description_length: *a\n", "yaml")).toEqual({
      ok: true,
      value: { tools: { "5": "never_require" }, min_description_length: 5 },
    });
  });

  it("refuses a key past 2^53 aliased as a value a double would round, and keeps it as the key", () => {
    expect(parseText("? &big 9007199254740993\n: key\nvalue: *big\n", "yaml")).toEqual({
      ok: false,
      message: `/value: ${LOST_9007199254740993}`,
    });
    expect(parseText("? &big 9007199254740993\n: key\nlist: [1, *big]\n", "yaml")).toEqual({
      ok: false,
      message: `/list/1: ${LOST_9007199254740993}`,
    });
    expect(parseText("? &big 9007199254740993\n: key\nagain: {? *big : 1}\n", "yaml")).toEqual({
      ok: true,
      value: { "9007199254740993": "key", again: { "9007199254740993": 1 } },
    });
  });

  it("keeps the digits of a key a double holds but writes otherwise, and reads its alias as that double", () => {
    const text = "? &e 1000000000000000000000\n: key\nvalue: *e\nlist: [*e]\n";
    expect(parseText(text, "yaml")).toEqual({
      ok: true,
      value: { "1000000000000000000000": "key", value: 1e21, list: [1e21] },
    });
  });

  it("keeps the digits of a whole-number value aliased as a key", () => {
    expect(parseText("value: &e 1000000000000000000000\n? *e\n: key\n", "yaml")).toEqual({
      ok: true,
      value: { value: 1e21, "1000000000000000000000": "key" },
    });
    expect(parseText("value: &v 18014398509481984\n? *v\n: key\n", "yaml")).toEqual({
      ok: true,
      value: { value: 18014398509481984, "18014398509481984": "key" },
    });
  });

  it("reads an anchored sequence key aliased as a value", () => {
    // A collection key becomes its YAML text, as the yaml library writes it.
    expect(parseText("? &s [5, 6]\n: pair\nv: *s\n", "yaml")).toEqual({
      ok: true,
      value: { "[ 5, 6 ]": "pair", v: [5, 6] },
    });
  });
});

describe("YAML keys that become the same JSON key", () => {
  const twice = (key: string): string =>
    `the key "${key}" appears more than once in this object; JSON keeps only one, so the other value would be lost without a word`;

  it.each([
    ["a number key and the same text as a string", "? 5\n: a\n? '5'\n: b\n", "/5"],
    ["an alias key that repeats its anchor", "? &k 7\n: x\n? *k\n: y\n", "/7"],
    ["true and 'true'", "m:\n  true: 1\n  'true': 2\n", "/m/true"],
    ["null and an empty string", "? null\n: 1\n? ''\n: 2\n", "/"],
  ])("refuses %s, naming the key", (_name, text, path) => {
    const key = path === "/" ? "" : decodeURIComponent(path.slice(path.lastIndexOf("/") + 1));
    expect(parseText(text, "yaml")).toEqual({ ok: false, message: `${path}: ${twice(key)}` });
  });

  it("keeps keys that stay apart", () => {
    expect(parseText("? 5\n: a\n? '6'\n: b\n? 5.5\n: c\n", "yaml")).toEqual({
      ok: true,
      value: { "5": "a", "6": "b", "5.5": "c" },
    });
  });
});

describe("paths under an alias key", () => {
  it("name the key the alias stands for", () => {
    expect(parseText("? &k a\n: 1\nb:\n  ? *k\n  : 9007199254740993\n", "yaml")).toEqual({
      ok: false,
      message: `/b/a: ${LOST_9007199254740993}`,
    });
  });
});
