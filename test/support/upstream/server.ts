/**
 * A local upstream for real-tools tests (workerd cannot listen, so this is plain node:http on
 * 127.0.0.1): a tiny invoice HTTP API and an MCP server (Streamable HTTP, stateless, JSON
 * answers), both recording what they received so tests can see what was forwarded.
 *
 * HTTP tool:
 * - GET  /invoices/:id         {"invoice_id", "status": "open", "amount": 120.5, "fetched_at": <now>, "request_id": <random>};
 *                              INV-BAD answers {"invoice_id", "status": 42} (breaks the contract), INV-404 a 404 {"error": "not_found"}
 * - POST /invoices/:id/hold    {"invoice_id", "status": "on_hold", "reason": <body.reason>}
 * - GET  /slow                 answers after 3 s
 * - GET  /delayed/:id          the invoice answer of GET /invoices/:id, after 1 s (a call still out while others arrive)
 * - GET  /big                  a 2 MB JSON string
 * - GET  /echo-credentials     the Authorization and x-api-key headers it received, as is and encoded
 * MCP (POST /mcp): tools get_weather {city} → structuredContent {"city", "temp_c": 21} ("Nowhere": temp_c "warm"),
 *                  get_invoice {invoice_id} → the demo invoices contract's answer for a received invoice,
 *                  place_order {item} → {"order": "ORD-1", "item"}
 * Control: GET /__log → {"requests": [{method, path, query, headers, body}]}, DELETE /__log empties it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { BIG_ANSWER_QUOTES } from "./answers.js";

export interface UpstreamRequest {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
}

export interface RunningUpstream {
  url: string;
  close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

function mcpServer(): Server {
  const server = new Server({ name: "test-upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: "get_weather",
        description: "The weather in a city.",
        inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
      {
        name: "place_order",
        description: "Places an order.",
        inputSchema: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const args = request.params.arguments ?? {};
    if (request.params.name === "get_weather") {
      const city = String(args.city);
      const result = { city, temp_c: city === "Nowhere" ? "warm" : 21 };
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
    }
    if (request.params.name === "get_invoice") {
      const result = {
        invoice_id: String(args.invoice_id),
        supplier: "Fabrikam Office",
        amount: 310,
        currency: "EUR",
        status: "received",
        hold_reason: null,
      };
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
    }
    if (request.params.name === "place_order") {
      const result = { order: "ORD-1", item: String(args.item) };
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
    }
    return { content: [{ type: "text", text: "unknown tool" }], isError: true };
  });
  return server;
}

export async function startUpstream(): Promise<RunningUpstream> {
  const log: UpstreamRequest[] = [];
  let counter = 0;
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    bodyOf(request)
      .then(async (body) => {
        if (url.pathname === "/__log") {
          if (request.method === "DELETE") log.length = 0;
          return send(response, 200, { requests: log });
        }
        const headers = Object.fromEntries(
          Object.entries(request.headers).map(([key, value]) => [
            key,
            Array.isArray(value) ? value.join(", ") : (value ?? ""),
          ]),
        );
        log.push({ method: request.method ?? "", path: url.pathname, query: url.search, headers, body });
        if (url.pathname === "/mcp") {
          const transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: undefined,
            enableJsonResponse: true,
          });
          const mcp = mcpServer();
          await mcp.connect(transport);
          await transport.handleRequest(request, response, body === "" ? undefined : JSON.parse(body));
          response.on("close", () => void mcp.close());
          return;
        }
        const invoice = /^\/invoices\/([^/]+)$/.exec(url.pathname);
        if (invoice?.[1] && request.method === "GET") {
          const id = decodeURIComponent(invoice[1]);
          if (id === "INV-BAD") return send(response, 200, { invoice_id: id, status: 42 });
          if (id === "INV-404") return send(response, 404, { error: "not_found" });
          return send(response, 200, {
            invoice_id: id,
            status: "open",
            amount: 120.5,
            fetched_at: new Date().toISOString(),
            request_id: `req-${++counter}`,
          });
        }
        const hold = /^\/invoices\/([^/]+)\/hold$/.exec(url.pathname);
        if (hold?.[1] && request.method === "POST") {
          const parsed: unknown = JSON.parse(body || "{}");
          const reason = typeof parsed === "object" && parsed !== null && "reason" in parsed ? parsed.reason : null;
          return send(response, 200, { invoice_id: decodeURIComponent(hold[1]), status: "on_hold", reason });
        }
        const delayed = /^\/delayed\/([^/]+)$/.exec(url.pathname);
        if (delayed?.[1] && request.method === "GET") {
          const id = decodeURIComponent(delayed[1]);
          const requestId = `req-${++counter}`;
          setTimeout(
            () =>
              send(response, 200, {
                invoice_id: id,
                status: "open",
                amount: 120.5,
                fetched_at: new Date().toISOString(),
                request_id: requestId,
              }),
            1000,
          );
          return;
        }
        if (url.pathname === "/slow") {
          setTimeout(() => send(response, 200, { slow: true }), 3000);
          return;
        }
        // A JSON string of 500,000 quotes: a body of about 1 MB, and twice that once the evidence's
        // result column escapes each quote again.
        if (url.pathname === "/big") return send(response, 200, '"'.repeat(BIG_ANSWER_QUOTES));
        if (url.pathname === "/echo-credentials") {
          // An upstream that echoes the credentials it received, as is and encoded.
          const authorization = request.headers.authorization ?? "";
          const apiKey = String(request.headers["x-api-key"] ?? "");
          return send(response, 200, {
            authorization,
            authorization_b64: Buffer.from(authorization).toString("base64"),
            token_url: encodeURIComponent(authorization.replace(/^Bearer /, "")),
            token_upper: authorization.replace(/^Bearer /, "").toUpperCase(),
            [apiKey]: "a key as a member name",
            api_key_b64url: Buffer.from(apiKey).toString("base64url"),
            plain: "nothing secret here",
          });
        }
        return send(response, 404, { error: "no such route" });
      })
      .catch((error: unknown) => send(response, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
