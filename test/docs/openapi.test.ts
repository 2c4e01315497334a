/**
 * The OpenAPI document (GET /openapi.json) against the app itself, in Node: every route of the
 * app's route table is in it (and nothing else), it validates as OpenAPI 3.1, every schema in it
 * compiles under ajv's strict mode, and every example matches its schema (request examples also
 * parse with the very zod schema the route validates with).
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parsePolicy } from "../../src/core/policy/parse-policy.js";
import { parseSuite } from "../../src/core/evals/suite-parse.js";
import { parseDispatchRequest } from "../../src/core/simulation/dispatch-request.js";
import { createApp } from "../../src/worker/app.js";
import { ERROR_STATUS } from "../../src/worker/http/errors.js";
import { isDocumentedPath, requiredRoutes, VIEWER_ROUTES } from "../../src/worker/openapi/coverage.js";
import { openApiDocument, openApiPath } from "../../src/worker/openapi/document.js";
import { ALL_OPERATIONS } from "../../src/worker/openapi/paths.js";
import { rewriteRefs } from "../support/openapi-answers.js";

type Json = Record<string, unknown>;
const doc = openApiDocument();
const METHODS = ["get", "post", "put", "delete", "patch"];

function documentedOperations(): string[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

describe("the document covers the app's route table", () => {
  const routes = createApp().routes;

  it("holds every API route of the app", () => {
    const required = requiredRoutes(routes).flatMap((route) =>
      route.methods.map((method) => `${method.toUpperCase()} ${openApiPath(route.path)}`),
    );
    const documented = new Set(documentedOperations());
    expect(required.filter((operation) => !documented.has(operation))).toEqual([]);
    // The walk itself found the routes (a broken walk would pass the check above vacuously).
    expect(required).toContain("POST /api/attempts/{id}/mcp");
    expect(required).toContain("GET /api/runs/{id}/repetitions/{n}");
    expect(required.length).toBeGreaterThan(50);
  });

  it("holds nothing the app does not route", () => {
    const routed = new Set(
      requiredRoutes(routes).flatMap((route) =>
        route.methods.map((method) => `${method.toUpperCase()} ${openApiPath(route.path)}`),
      ),
    );
    expect(documentedOperations().filter((operation) => !routed.has(operation))).toEqual([]);
  });

  it("leaves out the viewer's routes (HTML and its files), which the app does route; dashboard pages outside /api are left out by the same rule", () => {
    const routed = new Set(routes.map((route) => route.path));
    expect(VIEWER_ROUTES.filter((path) => !routed.has(path))).toEqual([]);
    expect(VIEWER_ROUTES.filter(isDocumentedPath)).toEqual([]);
    expect(["/", "/sign-in", "/runs/:id"].filter(isDocumentedPath)).toEqual([]);
  });

  it("documents each operation once, with a unique operationId", () => {
    const ids = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(ALL_OPERATIONS.length);
  });
});

describe("the document is valid OpenAPI 3.1", () => {
  it("passes the OpenAPI 3.1 schema validator", async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(JSON.stringify(doc)));
    expect({ version: validator.version, valid: result.valid, errors: result.errors ?? [] }).toEqual({
      version: "3.1",
      valid: true,
      errors: [],
    });
  });

  it("every path's parameters are exactly its template's, each required", () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      for (const operation of Object.values(item)) {
        const parameters = ((operation.parameters as Json[] | undefined) ?? []).filter(
          (parameter) => parameter.in === "path",
        );
        expect({ path, parameters: parameters.map((parameter) => [parameter.name, parameter.required]) }).toEqual({
          path,
          parameters: names.map((name) => [name, true]),
        });
      }
    }
  });

  it("has the security schemes: API key, attempt token, webhook signatures; public routes take none", () => {
    const components = doc.components as Json;
    expect(Object.keys(components.securitySchemes as Json)).toEqual([
      "ApiKey",
      "AttemptToken",
      "StandardWebhookSignature",
      "GithubSignature",
      "BootstrapToken",
    ]);
    const security = (method: string, path: string) => doc.paths[path]?.[method]?.security;
    expect(security("get", "/api/tools")).toEqual([{ ApiKey: [] }]);
    expect(security("post", "/api/attempts/{id}/dispatch")).toEqual([{ AttemptToken: [] }]);
    expect(security("get", "/api/attempts/{id}/evidence")).toEqual([{ AttemptToken: [] }, { ApiKey: [] }]);
    expect(security("post", "/api/webhooks/{id}")).toEqual([{ StandardWebhookSignature: [] }, { GithubSignature: [] }]);
    expect(security("get", "/openapi.json")).toEqual([]);
    expect(security("get", "/health")).toEqual([]);
  });

  it("answers every error in the one error body, under the status ERROR_STATUS gives its code", () => {
    // The one documented exception: the MCP route refuses a token with 403, since MCP clients
    // start OAuth on a 401 (docs/simulations.md).
    const statusOf = (method: string, path: string, code: string): number | undefined =>
      method === "post" && path === "/api/attempts/{id}/mcp" && (code === "unauthorized" || code === "token_expired")
        ? 403
        : ERROR_STATUS[code as keyof typeof ERROR_STATUS];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, response] of Object.entries(operation.responses as Record<string, Json>)) {
          if (Number(status) < 400) continue;
          const media = (response.content as Record<string, Json>)["application/json"] as Json;
          const schema = media.schema as {
            $ref: string;
            properties: { error: { properties: { code: { enum: string[] } } } };
          };
          expect({ where: `${method} ${path} ${status}`, ref: schema.$ref }).toEqual({
            where: `${method} ${path} ${status}`,
            ref: "#/components/schemas/ErrorBody",
          });
          for (const code of schema.properties.error.properties.code.enum)
            expect({ code, status: statusOf(method, path, code) }).toEqual({ code, status: Number(status) });
        }
      }
    }
  });
});

describe("schemas and examples", () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true, strictTypes: false });
  addFormats.default(ajv);
  ajv.addKeyword("example");
  ajv.addSchema({ $id: "doc", $defs: rewriteRefs((doc.components as Json).schemas, "doc") });
  // SAFETY: rewriteRefs returns the schema it was given, refs changed.
  const compile = (schema: unknown) => ajv.compile(rewriteRefs(schema, "doc") as Json);

  it("every component schema compiles under ajv's strict mode", () => {
    for (const id of Object.keys((doc.components as Json).schemas as Json))
      expect(() => ajv.getSchema(`doc#/$defs/${id}`)).not.toThrow();
  });

  it("every example in the document matches its schema", () => {
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const media = [
          ...Object.entries(
            ((operation.requestBody as Json | undefined)?.content as Record<string, Json> | undefined) ?? {},
          ).map(([type, m]) => [`body ${type}`, m] as const),
          ...Object.entries(operation.responses as Record<string, Json>).flatMap(([status, response]) =>
            Object.entries((response.content as Record<string, Json>) ?? {}).map(
              ([type, m]) => [`${status} ${type}`, m] as const,
            ),
          ),
        ];
        for (const [where, m] of media) {
          if (m.example === undefined) continue;
          const validate = compile(m.schema);
          expect({
            at: `${method} ${path} ${where}`,
            valid: validate(m.example),
            errors: validate.errors ?? null,
          }).toEqual({ at: `${method} ${path} ${where}`, valid: true, errors: null });
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(60);
  });

  it("request examples parse with the route's own zod schema", () => {
    for (const operation of ALL_OPERATIONS) {
      if (operation.body?.example === undefined) continue;
      const parsed = operation.body.schema.safeParse(operation.body.example);
      expect({
        at: `${operation.method} ${operation.path}`,
        success: parsed.success,
        issues: parsed.error?.issues ?? [],
      }).toEqual({ at: `${operation.method} ${operation.path}`, success: true, issues: [] });
    }
  });

  it("examples of bodies the core reads (not zod) pass the core's own readers", () => {
    const example = (method: string, path: string) =>
      ALL_OPERATIONS.find((operation) => operation.method === method && operation.path === path)?.body?.example;
    expect(parseDispatchRequest(example("post", "/api/attempts/:id/dispatch"))).toMatchObject({ ok: true });
    expect(parsePolicy(example("put", "/api/policies/:name"))).toMatchObject({ ok: true });
  });

  it("documents exactly the top-level fields the core accepts in a policy and a suite", () => {
    // The core names every field it accepts when it refuses an unknown one; the document must name the same.
    const accepted = (
      parse: (document: unknown) => { ok: boolean; problems?: Array<{ path: string; message: string }> },
    ) => {
      const refused =
        parse({ not_a_field: 1 }).problems?.find((problem) => problem.path === "/not_a_field")?.message ?? "";
      return (/expected one of: (.*)$/.exec(refused)?.[1] ?? "").split(", ").sort();
    };
    const documented = (id: string) =>
      Object.keys((((doc.components as Json).schemas as Json)[id] as { properties: Json }).properties).sort();
    expect(documented("PolicyDocument")).toEqual(accepted(parsePolicy));
    expect(documented("SuiteDocument")).toEqual(accepted(parseSuite));
  });
});
