/**
 * The "format" values toolproof asserts. Exactly the formats @cfworker/json-schema implements
 * (a unit test keeps this list equal to cfworker's), so the runtime validator needs no format
 * code of its own; the ajv validator asserts the same names with ajv-formats and treats every
 * other format as an annotation, as the runtime validator does.
 */
export const ASSERTED_FORMATS = [
  "date",
  "time",
  "date-time",
  "duration",
  "uri",
  "uri-reference",
  "uri-template",
  "url",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "regex",
  "uuid",
  "json-pointer",
  "json-pointer-uri-fragment",
  "relative-json-pointer",
] as const;
