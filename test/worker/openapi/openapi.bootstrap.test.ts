/**
 * The bootstrap's 201 against the document: it needs a database with no API key at all, which
 * openapi.test.ts (whose tenants have keys) cannot give, so it has this file's own fresh D1
 * (storage is isolated per test file). Then the minted root key's first calls: a key it grants.
 */
import { expect, it } from "vitest";
import { answerProblems, type OpenApiDoc } from "../../support/openapi-answers.js";
import { bootstrapWithSecret } from "../bootstrap-helpers.js";
import { call } from "../helpers.js";

const TOKEN = "bootstrap-token-for-openapi-tests-0123456789";

it("a fresh deployment's bootstrap (201) and the root key's first grant conform to the document", async () => {
  // SAFETY: the document's shape, as openapi.test.ts checks it against the built one.
  const doc = (await (await call("GET", "/openapi.json")).json()) as OpenApiDoc;
  const response = await bootstrapWithSecret(TOKEN, { authorization: `Bearer ${TOKEN}` });
  const body: unknown = await response.json();
  expect({
    status: response.status,
    problems: answerProblems(doc, "POST", "/api/bootstrap", response.status, body),
  }).toEqual({ status: 201, problems: [] });
  // SAFETY: validated against BootstrapKey.
  const key = (body as { key: string }).key;
  const granted = await call("POST", "/api/keys", {
    key,
    body: { name: "ci", permissions: ["AIManager:RunEvals", "AIManager:RunRealTools"] },
  });
  const grantedBody: unknown = await granted.json();
  expect({
    status: granted.status,
    problems: answerProblems(doc, "POST", "/api/keys", granted.status, grantedBody),
  }).toEqual({ status: 201, problems: [] });
});
