/**
 * Formats: toolproof asserts exactly the formats @cfworker/json-schema implements, in both
 * drafts and in both validators; every other format is an annotation.
 */
import { format as cfworkerFormats } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import { ASSERTED_FORMATS } from "../../../src/adapters/json-schema/formats.js";
import { IMPLEMENTATIONS } from "./validators.js";

/** One valid and one invalid string per asserted format. */
const SAMPLES: Record<(typeof ASSERTED_FORMATS)[number], [valid: string, invalid: string]> = {
  date: ["2024-02-29", "2023-02-29"],
  time: ["23:59:59Z", "25:00:00Z"],
  "date-time": ["2024-05-01T12:30:00+02:00", "tomorrow at noon"],
  duration: ["P3DT4H", "3 days"],
  uri: ["https://example.com/a?b=c", "/relative/path"],
  "uri-reference": ["../a/b#c", "\\\\server"],
  "uri-template": ["https://example.com/{id}", "https://example.com/{id"],
  url: ["https://example.com/", "example.com"],
  email: ["agent@example.com", "agent@"],
  hostname: ["api.example.com", "-bad-.example"],
  ipv4: ["192.168.0.1", "256.0.0.1"],
  ipv6: ["::1", "1:::1"],
  regex: ["^[a-z]+$", "(unclosed"],
  uuid: ["2eb8aa08-aa98-11ea-b4aa-73b441d16380", "2eb8aa08-aa98-11ea-b4aa"],
  "json-pointer": ["/a/0/b~1c", "a/b"],
  "json-pointer-uri-fragment": ["#/a/b", "/a/b"],
  "relative-json-pointer": ["1/a", "/a"],
};

it("asserts exactly the formats cfworker implements (so the runtime validator needs no format code)", () => {
  expect([...ASSERTED_FORMATS].sort()).toEqual(Object.keys(cfworkerFormats).sort());
});

describe.each(IMPLEMENTATIONS)("%s validator: formats", (_name, create) => {
  const validator = create();

  it.each(ASSERTED_FORMATS.map((name) => [name, ...SAMPLES[name]] as const))(
    "asserts %s: %j valid, %j invalid",
    (name, valid, invalid) => {
      for (const $schema of [
        "https://json-schema.org/draft/2020-12/schema",
        "http://json-schema.org/draft-07/schema#",
      ]) {
        const schema = { $schema, type: "string", format: name };
        expect(validator.validate(schema, valid)).toEqual([]);
        expect(validator.validate(schema, invalid)).toEqual([
          { path: "", message: `must be a valid "${name}" string` },
        ]);
      }
    },
  );

  it.each(["int32", "iri", "idn-email", "binary", "x-custom"])("treats %s as an annotation", (name) => {
    expect(validator.validate({ type: "string", format: name }, "anything at all")).toEqual([]);
  });

  it("ignores formats on values that are not strings", () => {
    expect(validator.validate({ format: "email" }, 12)).toEqual([]);
    expect(validator.validate({ format: "date-time" }, { at: "now" })).toEqual([]);
  });
});
