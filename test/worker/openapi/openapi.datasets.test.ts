/** Real answers of the dataset routes conform to what /openapi.json declares for them. */
import { beforeAll, describe, expect, it } from "vitest";
import { answerProblems, type OpenApiDoc } from "../../support/openapi-answers.js";
import { call, keyWith, newTenant, type TestTenant } from "../helpers.js";

let doc: OpenApiDoc;
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await newTenant();
  // SAFETY: the document's shape is checked by test/docs/openapi.test.ts.
  doc = (await (await call("GET", "/openapi.json")).json()) as OpenApiDoc;
});

async function documented(method: string, path: string, options: Parameters<typeof call>[2] = {}) {
  const response = await call(method, path, { key: tenant.key, ...options });
  const body: unknown = await response.json();
  expect({
    method,
    path,
    status: response.status,
    problems: answerProblems(doc, method, path, response.status, body),
  }).toEqual({ method, path, status: response.status, problems: [] });
  return response.status;
}

describe("real answers of datasets conform to the document", () => {
  it("a dataset's versions (201, 200), its list, one version, its content and a record", async () => {
    const dataset = { orders: { "#W1": { status: "pending" } }, users: [{ id: "u1" }] };
    const statuses = [
      await documented("POST", "/api/datasets/retail/versions?description=first", { body: dataset }),
      await documented("POST", "/api/datasets/retail/versions", { body: dataset }),
      await documented("GET", "/api/datasets"),
      await documented("GET", "/api/datasets/retail/versions"),
      await documented("GET", "/api/datasets/retail/versions/1"),
      await documented("GET", "/api/datasets/retail/versions/1/content"),
      await documented("GET", "/api/datasets/retail/versions/1/record?pointer=/orders/%23W1"),
    ];
    expect(statuses).toEqual([201, 200, 200, 200, 200, 200, 200]);
  });

  it("its refusals: 400, 403, 404, 409, 413 and 415 in the one error body", async () => {
    const runEvals = await keyWith(tenant.id, ["AIManager:RunEvals"]);
    const statuses = [
      await documented("POST", "/api/datasets/retail/versions", { body: [1] }),
      await documented("GET", "/api/datasets/retail/versions", { key: runEvals }),
      await documented("GET", "/api/datasets/retail/versions/1/record?pointer=/orders/%23W2"),
      await documented("POST", "/api/datasets/retail/versions?base_version=0", { body: { a: [] } }),
      await documented("POST", "/api/datasets/retail/versions", {
        body: "{}",
        headers: { "content-length": String(64 * 1024 * 1024) },
      }),
      await documented("POST", "/api/datasets/retail/versions", {
        body: "{}",
        headers: { "content-type": "text/plain" },
      }),
    ];
    expect(statuses).toEqual([400, 403, 404, 409, 413, 415]);
  });
});
