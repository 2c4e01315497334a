/**
 * Patterns are tenant input (issue 9, bug 4): a schema whose "pattern" can backtrack
 * catastrophically is refused wherever a schema is saved, naming the pattern's place; and a
 * pattern that is accepted but hostile to a backtracking engine is evaluated in linear time, so
 * one agent's long argument cannot stall the isolate every tenant shares.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { getInvoiceDefinition, invoiceTool } from "../fixtures/invoice-tools.js";
import { type TestTenant, call, newTenant } from "./helpers.js";
import { counterTool, createSimulation, dispatchJson } from "./simulation-helpers.js";

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await newTenant();
});

const CATASTROPHIC = "^(a+)+$";
const catastrophic = `toolproof refuses the pattern "${CATASTROPHIC}": it can take exponential time to match (a repeated group that itself repeats, or more than 25 repetitions): rewrite it without nested repetition`;
const hostileSchema = { type: "object", properties: { x: { type: "string", pattern: CATASTROPHIC } } };

async function answer(response: Response): Promise<{ status: number; body: unknown }> {
  return { status: response.status, body: await response.json() };
}

/** The 400 answer naming each refused pattern by its JSON Pointer in the request body. */
function refused(...problems: Array<{ path: string; message: string }>): { status: number; body: unknown } {
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  return {
    status: 400,
    body: {
      error: { code: "invalid_request", message: `${first?.path}: ${first?.message}${more}`, details: { problems } },
    },
  };
}

describe("a catastrophic pattern is refused when a schema is saved", () => {
  const operation = { ...invoiceTool.operations[0]!, input_schema: hostileSchema };

  it("registering a tool (POST /api/tools)", async () => {
    const response = await call("POST", "/api/tools", {
      key: tenant.key,
      body: { ...invoiceTool, name: "patterns_post", operations: [operation] },
    });
    expect(await answer(response)).toEqual(
      refused({ path: "/operations/0/input_schema/properties/x/pattern", message: catastrophic }),
    );
  });

  it("changing a tool (PUT /api/tools/:id), and the tool stays as it was", async () => {
    const created = await call("POST", "/api/tools", {
      key: tenant.key,
      body: { ...invoiceTool, name: "patterns_put" },
    });
    // SAFETY: the documented Tool answer.
    const tool = (await created.json()) as { id: string };
    const response = await call("PUT", `/api/tools/${tool.id}`, {
      key: tenant.key,
      body: { ...invoiceTool, name: "patterns_put", operations: [operation] },
    });
    expect(await answer(response)).toEqual(
      refused({ path: "/operations/0/input_schema/properties/x/pattern", message: catastrophic }),
    );
    // SAFETY: the documented Tool answer.
    const after = (await (await call("GET", `/api/tools/${tool.id}`, { key: tenant.key })).json()) as {
      operations: Array<{ input_schema: unknown }>;
    };
    expect(after.operations[0]?.input_schema).toEqual(invoiceTool.operations[0]?.input_schema);
  });

  it("importing MCP tools, in patternProperties and propertyNames too", async () => {
    const response = await call("POST", "/api/tools/import/mcp", {
      key: tenant.key,
      body: {
        name: "patterns_mcp",
        tools_list: {
          tools: [
            {
              name: "lookup",
              inputSchema: {
                type: "object",
                patternProperties: { "^(x|xy)+$": { type: "string" }, "^([a-z]*)*$": {} },
              },
              outputSchema: { type: "object", propertyNames: { pattern: "(\\d+)*" } },
            },
          ],
        },
      },
    });
    expect(await answer(response)).toEqual(
      refused(
        {
          path: "/tools_list/tools/0/inputSchema/patternProperties/^([a-z]*)*$",
          message:
            'toolproof refuses the pattern "^([a-z]*)*$": it can take exponential time to match (a repeated group that itself repeats, or more than 25 repetitions): rewrite it without nested repetition',
        },
        {
          path: "/tools_list/tools/0/outputSchema/propertyNames/pattern",
          message:
            'toolproof refuses the pattern "(\\\\d+)*": it can take exponential time to match (a repeated group that itself repeats, or more than 25 repetitions): rewrite it without nested repetition',
        },
      ),
    );
  });

  it("importing platform tools", async () => {
    const response = await call("POST", "/api/tools/import/platform", {
      key: tenant.key,
      body: {
        name: "patterns_platform",
        description: "Platform adapter",
        operations: [
          {
            operation_id: "get_contact",
            description: "Read one contact",
            parameters: [{ name: "Id", type: "string", required: true }],
            response: {
              status: 200,
              schema: { type: "object", properties: { id: { type: "string", pattern: CATASTROPHIC } } },
            },
          },
        ],
      },
    });
    // The client's own field, not the schema as stored (wrapped in the platform envelope).
    expect(await answer(response)).toEqual(
      refused({ path: "/operations/0/response/schema/properties/id/pattern", message: catastrophic }),
    );
  });

  it("importing platform tools: a response without a status, and a schema that is not JSON Schema, at the client's fields too", async () => {
    const response = await call("POST", "/api/tools/import/platform", {
      key: tenant.key,
      body: {
        name: "patterns_platform_plain",
        description: "Platform adapter",
        operations: [
          {
            operation_id: "plain",
            description: "d",
            parameters: [],
            response: { schema: { type: "object", properties: { id: { type: "string", pattern: CATASTROPHIC } } } },
          },
          {
            operation_id: "wrapped",
            description: "d",
            parameters: [],
            response: { status: 201, schema: { type: "objekt" } },
          },
        ],
      },
    });
    expect(await answer(response)).toEqual(
      refused(
        { path: "/operations/0/response/schema/properties/id/pattern", message: catastrophic },
        {
          path: "/operations/1/response/schema/type",
          message:
            'not a valid JSON Schema: must match at least one of the "anyOf" alternatives (must be one of ["array","boolean","integer","null","number","object","string"]; or must be array, got string)',
        },
      ),
    );
  });

  it("checking an inline tool (POST /api/tools/testing)", async () => {
    const inline = {
      name: "get_invoice",
      description: "Read one invoice",
      input_schema: hostileSchema,
      output_schema: invoiceTool.operations[0]!.output_schema,
    };
    const response = await call("POST", "/api/tools/testing", {
      key: tenant.key,
      body: { action: "check", ...inline, testing: getInvoiceDefinition },
    });
    expect(await answer(response)).toEqual(
      refused({ path: "/input_schema/properties/x/pattern", message: catastrophic }),
    );
  });

  it("a simulation with an inline tool (POST /api/simulations)", async () => {
    const inline = {
      ...counterTool,
      input_schema: {
        ...counterTool.input_schema,
        properties: { ...counterTool.input_schema.properties, x: { type: "string", pattern: CATASTROPHIC } },
      },
    };
    const response = await call("POST", "/api/simulations", { key: tenant.key, body: { tools: [{ inline }] } });
    expect(await answer(response)).toEqual(
      refused({ path: "/tools/0/inline/input_schema/properties/x/pattern", message: catastrophic }),
    );
  });

  it("a lookahead, which the linear-time engine cannot run, with how to say it instead", async () => {
    const schema = { type: "object", properties: { password: { type: "string", pattern: "^(?=.*\\d).{8,}$" } } };
    const response = await call("POST", "/api/tools", {
      key: tenant.key,
      body: { ...invoiceTool, name: "patterns_lookahead", operations: [{ ...operation, input_schema: schema }] },
    });
    expect(await answer(response)).toEqual(
      refused({
        path: "/operations/0/input_schema/properties/password/pattern",
        message:
          'toolproof refuses the pattern "^(?=.*\\\\d).{8,}$": it uses a lookahead, which toolproof\'s linear-time pattern engine cannot run: write each condition as its own "pattern" inside "allOf"',
      }),
    );
  });
});

describe("a pattern that is accepted but hostile to backtracking", () => {
  // Star height 1, so safe-regex2 lets it through; a backtracking engine still tries 2^n ways
  // on n "a"s followed by a "b". The linear-time engine answers at once.
  const AMBIGUOUS = "^(a|a)*$";
  const tool = {
    ...counterTool,
    input_schema: {
      ...counterTool.input_schema,
      properties: { ...counterTool.input_schema.properties, s: { type: "string", pattern: AMBIGUOUS } },
    },
  };

  it("answers a long argument that does not match as a tool input error, and one that matches as a call", async () => {
    const simulation = await createSimulation(tenant, { tools: [{ inline: tool }] });
    const attempt = simulation.attempts[0]!;
    const bad = await dispatchJson(attempt, {
      tool: "counter",
      call_id: "c1",
      arguments: { n: 1, s: `${"a".repeat(5000)}b` },
    });
    const good = await dispatchJson(attempt, {
      tool: "counter",
      call_id: "c2",
      arguments: { n: 2, s: "a".repeat(100_000) },
    });
    expect({ bad, good }).toEqual({
      bad: {
        status: 422,
        body: {
          error: {
            code: "tool_input_error",
            message: `the arguments do not match the input schema: /s: must match the pattern "${AMBIGUOUS}"`,
            details: [{ path: "/s", message: `must match the pattern "${AMBIGUOUS}"` }],
          },
        },
      },
      good: { status: 200, body: { previous: 0 } },
    });
  });
});
