/**
 * YAML request bodies through the real entry point: a tag that does not fit its value is refused
 * and nothing is stored, a %YAML 1.1 directive does not switch the schema, and an anchored
 * whole-number key aliased as a value is read as the number.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { answer, call, newTenant, type TestTenant } from "./helpers.js";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

const ISO_TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

function putYaml(name: string, text: string): Promise<Response> {
  return call("PUT", `/api/policies/${name}`, {
    key: tenant.key,
    body: text,
    headers: { "content-type": "application/yaml" },
  });
}

/** The stored policy's latest document, after a PUT that made version 1. */
async function storedDocument(name: string): Promise<unknown> {
  const got = await answer(await call("GET", `/api/policies/${name}`, { key: tenant.key }));
  const latest = { version: 1, document: expect.anything(), created_by: tenant.keyId, created_at: ISO_TIME };
  expect(got).toEqual({
    status: 200,
    body: { name, latest, items: [latest], next_cursor: null },
  });
  // SAFETY: the shape was asserted just above.
  return (got.body as { latest: { document: unknown } }).latest.document;
}

describe("PUT /api/policies/:name with a YAML body", () => {
  it("refuses !!float on a whole number, naming where it is, and stores nothing", async () => {
    const text = "tools:\n  get_invoice: never_require\nmin_description_length: !!float 20\n";
    expect(await answer(await putYaml("float-tag", text))).toEqual({
      status: 400,
      body: {
        error: {
          code: "malformed_yaml",
          message:
            "the request body is not usable YAML: Unresolved tag: tag:yaml.org,2002:float at line 3, column 25: the value does not fit its tag, so it would be read as something other than the tag says; drop the tag or write the value as the tag expects",
        },
      },
    });
    expect(await answer(await call("GET", "/api/policies/float-tag", { key: tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "policy not found" } },
    });
  });

  it("reads a %YAML 1.1 document by the 1.2 core schema: 020 is twenty, not octal sixteen", async () => {
    const text = "%YAML 1.1\n---\ntools:\n  get_invoice: never_require\nmin_description_length: 020\n";
    expect(await answer(await putYaml("yaml-11", text))).toEqual({
      status: 201,
      body: { name: "yaml-11", version: 1, created_by: tenant.keyId, created_at: ISO_TIME },
    });
    expect(await storedDocument("yaml-11")).toEqual({
      tools: { get_invoice: "never_require" },
      min_description_length: 20,
    });
  });

  it("reads an anchored whole-number key aliased as a value as the number", async () => {
    const text = "tools:\n  ? &a 5\n  : never_require\nmin_description_length: *a\n";
    expect(await answer(await putYaml("key-alias", text))).toEqual({
      status: 201,
      body: { name: "key-alias", version: 1, created_by: tenant.keyId, created_at: ISO_TIME },
    });
    expect(await storedDocument("key-alias")).toEqual({ tools: { "5": "never_require" }, min_description_length: 5 });
  });

  it("refuses an alias of a key past 2^53 as a value, and stores nothing", async () => {
    const text = "tools:\n  ? &big 9007199254740993\n  : never_require\nmin_description_length: *big\n";
    expect(await answer(await putYaml("big-alias", text))).toEqual({
      status: 400,
      body: {
        error: {
          code: "malformed_yaml",
          message:
            "the request body is not usable: /min_description_length: the whole number 9007199254740993 is past 2^53 and reads as 9007199254740992, so it would be kept as another number; send it as a string",
        },
      },
    });
    expect(await answer(await call("GET", "/api/policies/big-alias", { key: tenant.key }))).toEqual({
      status: 404,
      body: { error: { code: "not_found", message: "policy not found" } },
    });
  });

  it("refuses keys that JSON would merge (5 and '5'), naming the key, and stores nothing", async () => {
    const text = "tools:\n  get_invoice: never_require\n  ? 5\n  : never_require\n  ? '5'\n  : always_require\n";
    expect(await answer(await putYaml("merged-keys", text))).toEqual({
      status: 400,
      body: {
        error: {
          code: "malformed_yaml",
          message:
            'the request body is not usable: /tools/5: the key "5" appears more than once in this object; JSON keeps only one, so the other value would be lost without a word',
        },
      },
    });
    expect((await call("GET", "/api/policies/merged-keys", { key: tenant.key })).status).toBe(404);
  });
});
