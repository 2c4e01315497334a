import { describe, expect, it } from "vitest";
import toolsList from "../../fixtures/mcp-tools-list.json" with { type: "json" };
import { toolFromMcpToolsList } from "../../../src/core/tools/import-mcp.js";

const weatherOperation = {
  operation_id: "get_weather_data",
  description: "Get current weather data for a location",
  input_schema: toolsList.tools[0]!.inputSchema,
  output_schema: toolsList.tools[0]!.outputSchema,
  annotations: { readOnlyHint: true, openWorldHint: true, title: "Weather Data Retriever" },
};
const deleteOperation = {
  operation_id: "delete_forecast_alert",
  description: "Delete a weather alert subscription by its id",
  input_schema: toolsList.tools[1]!.inputSchema,
  output_schema: toolsList.tools[1]!.outputSchema,
  annotations: { destructiveHint: true, idempotentHint: true, readOnlyHint: false, title: "Delete Forecast Alert" },
};

describe("toolFromMcpToolsList", () => {
  it("turns every MCP tool into an operation, keeping schemas and annotations", () => {
    expect(toolFromMcpToolsList({ name: "weather", tools_list: toolsList, output_schema: { type: "object" } })).toEqual(
      {
        ok: true,
        tool: {
          name: "weather",
          description: "MCP server weather",
          kind: "mcp",
          output_schema: { type: "object" },
          source: { format: "mcp" },
          operations: [
            weatherOperation,
            deleteOperation,
            {
              operation_id: "list_alerts",
              description: "List the active weather alert subscriptions",
              input_schema: { type: "object", properties: {} },
              output_schema: undefined,
              annotations: undefined,
            },
          ],
        },
      },
    );
  });

  it("keeps only the allowed tools and records the filter", () => {
    expect(
      toolFromMcpToolsList({
        name: "weather",
        description: "Weather",
        tools_list: toolsList,
        allowed_tools: ["get_weather_data"],
      }),
    ).toEqual({
      ok: true,
      tool: {
        name: "weather",
        description: "Weather",
        kind: "mcp",
        output_schema: undefined,
        source: { format: "mcp", allowed_tools: ["get_weather_data"] },
        operations: [weatherOperation],
      },
    });
  });

  it("names allowed tools the server does not have", () => {
    expect(
      toolFromMcpToolsList({
        name: "weather",
        tools_list: toolsList,
        allowed_tools: ["get_weather_data", "get_wether"],
      }),
    ).toEqual({
      ok: false,
      problems: [{ path: "/allowed_tools/1", message: 'the server lists no tool named "get_wether"' }],
    });
  });

  it.each([
    [null, [{ path: "/tools_list/tools", message: 'expected the tools/list result, an object with a "tools" array' }]],
    [{ tools: [] }, [{ path: "/tools_list/tools", message: "no tools left to import" }]],
    [
      {
        tools: [
          { name: "a.b", inputSchema: { type: "object" } },
          { name: "x", inputSchema: 3, annotations: [] },
          7,
          { name: "x", inputSchema: {} },
        ],
      },
      [
        {
          path: "/tools_list/tools/0/name",
          message: `"a.b" cannot be an operation id: expected 1 to 64 letters, digits, '_' or '-'`,
        },
        {
          path: "/tools_list/tools/1/inputSchema",
          message: "expected a JSON Schema object (MCP requires inputSchema)",
        },
        { path: "/tools_list/tools/1/annotations", message: "expected an object" },
        { path: "/tools_list/tools/2", message: "expected an MCP tool object" },
        { path: "/tools_list/tools/3/name", message: 'duplicate tool name "x"' },
      ],
    ],
  ])("reports every problem of a malformed list %#", (list, problems) => {
    expect(toolFromMcpToolsList({ name: "broken", tools_list: list })).toEqual({ ok: false, problems });
  });
});
