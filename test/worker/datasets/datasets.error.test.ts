/** Every way a dataset request can be wrong, each answered 4xx with the whole error body. */
import { beforeAll, describe, expect, it } from "vitest";
import { answer, call, invalidAnswer, newTenant, type TestTenant } from "../helpers.js";

let tenant: TestTenant;

beforeAll(async () => {
  tenant = await newTenant();
  await call("POST", "/api/datasets/retail/versions", { key: tenant.key, body: { orders: { "#W1": { a: 1 } } } });
});

const post = (body: unknown, options: { path?: string; headers?: Record<string, string> } = {}) =>
  call("POST", options.path ?? "/api/datasets/retail/versions", { key: tenant.key, body, headers: options.headers });

describe("POST /api/datasets/:name/versions refuses", () => {
  it("a body that is not JSON by its content type (415)", async () => {
    expect(await answer(await post("orders: {}", { headers: { "content-type": "application/yaml" } }))).toEqual({
      status: 415,
      body: {
        error: {
          code: "unsupported_media_type",
          message: 'expected Content-Type: application/json, got "application/yaml"',
        },
      },
    });
  });

  it("a body past 32 MiB (413), naming the limit", async () => {
    const text = JSON.stringify({ blob: "x".repeat(32 * 1024 * 1024) });
    expect(await answer(await post(text))).toEqual({
      status: 413,
      body: {
        error: {
          code: "payload_too_large",
          message: "the request body exceeds the limit of 33554432 bytes",
          details: { limit_bytes: 33554432 },
        },
      },
    });
  });

  it("text that is not JSON (400), saying where it stops", async () => {
    expect(await answer(await post('{"orders": {"#W1": {"a": 1},}}'))).toEqual({
      status: 400,
      body: {
        error: {
          code: "malformed_json",
          message:
            "the request body is not valid JSON: Expected double-quoted property name in JSON at position 28 (line 1 column 29)",
        },
      },
    });
    expect(await answer(await post(""))).toEqual({
      status: 400,
      body: { error: { code: "malformed_json", message: "the request body is empty; expected a JSON object" } },
    });
  });

  it("a top level that is not an object, a repeated key, and values JSON cannot carry (400, at their places)", async () => {
    const topLevel =
      'expected a JSON object at the top level (its members are the dataset\'s collections, e.g. {"orders": {...}}), got an array';
    // The whole body is at path "", which the message calls "body".
    expect(await answer(await post([{ id: 1 }]))).toEqual({
      status: 400,
      body: {
        error: {
          code: "invalid_request",
          message: `body: ${topLevel}`,
          details: { problems: [{ path: "", message: topLevel }] },
        },
      },
    });
    expect(await answer(await post('{"users": {"u1": {}, "u~/1": {}, "u~/1": {"x": 1}}}'))).toEqual(
      invalidAnswer({
        path: "/users/u~0~11",
        message:
          'the key "u~/1" appears more than once in this object; JSON.parse keeps only the last, so the other value would be lost without a word',
      }),
    );
    expect(await answer(await post('{"prices": [1, 2e999]}'))).toEqual(
      invalidAnswer({
        path: "/prices/1",
        message:
          "expected a finite number; this one is out of the range a JSON number can carry (it reads as Infinity)",
      }),
    );
    // 2^53 + 1 reads as 2^53: stored, the dataset would hold a different id than the one sent.
    expect(await answer(await post('{"orders": {"#W1": {"id": 9007199254740993, "ok": 9007199254740992}}}'))).toEqual(
      invalidAnswer({
        path: "/orders/#W1/id",
        message:
          "the whole number 9007199254740993 is past 2^53 and reads as 9007199254740992, so it would be kept as another number; send it as a string",
      }),
    );
    const after = await call("GET", "/api/datasets/retail/versions/1/content", { key: tenant.key });
    expect(await after.json()).toEqual({ orders: { "#W1": { a: 1 } } });
  });

  it("bad path and query parameters (400), before reading the body", async () => {
    expect(await answer(await post({ a: {} }, { path: "/api/datasets/-x/versions" }))).toEqual(
      invalidAnswer({
        path: "/params/name",
        message: "expected 1 to 128 letters, digits, '_', '.' or '-', starting with a letter or digit",
      }),
    );
    expect(
      await answer(await post("not even JSON", { path: "/api/datasets/retail/versions?base_version=-1" })),
    ).toEqual(
      invalidAnswer({
        path: "/query/base_version",
        message: "expected the version number this change is based on (0 when the dataset has no version yet)",
      }),
    );
    expect(
      await answer(await post({ a: {} }, { path: `/api/datasets/retail/versions?description=${"d".repeat(501)}` })),
    ).toEqual(
      invalidAnswer({
        path: "/query/description",
        message: "expected well-formed text of at most 500 characters, got 501",
      }),
    );
  });

  it("leaves the stored versions as they were after every refusal", async () => {
    expect(await answer(await call("GET", "/api/datasets/retail/versions", { key: tenant.key }))).toMatchObject({
      status: 200,
      body: { items: [{ version: 1 }], next_cursor: null },
    });
  });
});

describe("reads refuse", () => {
  it("a dataset or version that does not exist (404)", async () => {
    for (const path of [
      "/api/datasets/nothing/versions",
      "/api/datasets/nothing/versions/1",
      "/api/datasets/retail/versions/2",
      "/api/datasets/retail/versions/2/content",
      "/api/datasets/retail/versions/2/record?pointer=/orders",
    ])
      expect({ path, ...(await answer(await call("GET", path, { key: tenant.key }))) }).toEqual({
        path,
        status: 404,
        body: {
          error: {
            code: "not_found",
            message: path === "/api/datasets/nothing/versions" ? "dataset not found" : "dataset version not found",
          },
        },
      });
  });

  it("a version that is not a number, a missing pointer and a pointer that is not one (400)", async () => {
    expect(await answer(await call("GET", "/api/datasets/retail/versions/latest", { key: tenant.key }))).toEqual(
      invalidAnswer({ path: "/params/version", message: "expected a version number (1, 2, ...)" }),
    );
    expect(await answer(await call("GET", "/api/datasets/retail/versions/1/record", { key: tenant.key }))).toEqual(
      invalidAnswer({
        path: "/query/pointer",
        message: "required: a JSON Pointer to the record, e.g. ?pointer=/orders/%23W2611340",
      }),
    );
    expect(
      await answer(await call("GET", "/api/datasets/retail/versions/1/record?pointer=orders", { key: tenant.key })),
    ).toEqual(
      invalidAnswer({
        path: "/query/pointer",
        message: 'expected a JSON Pointer starting with "/" (or "" for the whole document), got "orders"',
      }),
    );
    expect(
      await answer(await call("GET", "/api/datasets/retail/versions/1/record?pointer=/a~2", { key: tenant.key })),
    ).toEqual(
      invalidAnswer({
        path: "/query/pointer",
        message: '"~" must be followed by 0 (for "~") or 1 (for "/") in a JSON Pointer; "a~2" has "~2"',
      }),
    );
  });
});
