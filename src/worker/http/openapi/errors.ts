/**
 * toolproof's one error body as components of the document: ErrorBody (every code of ERROR_STATUS),
 * and per operation one response per status, each naming the codes it can carry there. The
 * statuses and the codes come from http-error.ts itself, so the document cannot disagree with it.
 */
import { ERROR_STATUS, errorBody, type ErrorCode } from "../errors.js";

const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** {"error": {"code", "message", "details"?}}, components.schemas.ErrorBody. */
export function errorBodySchema(): Record<string, unknown> {
  const codes = ERROR_CODES;
  return {
    type: "object",
    required: ["error"],
    properties: {
      error: {
        type: "object",
        required: ["code", "message"],
        properties: {
          code: {
            type: "string",
            enum: [...codes],
            description: "One of the closed set of codes; the HTTP status follows from it.",
          },
          message: { type: "string", description: "What went wrong, in words, naming the field when there is one." },
          details: {
            description:
              'More about the error. For invalid_request: {"problems": [{"path", "message"}]}, each path a JSON Pointer to the field.',
          },
          kind: { type: "string", description: "harness_error only: which part of the harness failed." },
        },
      },
    },
  };
}

/** The example of an error response: a real body, built by the same function the routes use. */
function exampleOf(code: ErrorCode): unknown {
  if (code === "invalid_request")
    return errorBody(code, "/name: required", { problems: [{ path: "/name", message: "required" }] });
  return errorBody(code, code.replaceAll("_", " "));
}

/**
 * The error responses of an operation: one per status, its description listing the codes.
 * `statusOf`: a route that answers a code with another status than the table's (the MCP endpoint
 * refuses tokens with 403, see mcp.ts).
 */
export function errorResponses(
  codes: readonly ErrorCode[],
  statusOf: Partial<Record<ErrorCode, number>> = {},
): Record<string, Record<string, unknown>> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = statusOf[code] ?? ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, Record<string, unknown>> = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    responses[String(status)] = {
      description: `Error: ${group.join(", ")}`,
      content: {
        "application/json": {
          // The shared body, its code narrowed to this status's ($ref beside other keywords is JSON Schema 2020-12).
          schema: {
            $ref: "#/components/schemas/ErrorBody",
            properties: { error: { properties: { code: { enum: group } } } },
          },
          example: exampleOf(group[0] ?? "internal_error"),
        },
      },
    };
  }
  return responses;
}
