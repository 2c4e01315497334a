/**
 * A local HTTP receiver for callback tests: workerd cannot listen, so the Worker's callbacks are
 * POSTed here (plain node:http on 127.0.0.1), recorded per receiver name with their headers and
 * raw body, and answered with the statuses a test scripted, in order (then 200).
 *
 * - POST /r/:name               a delivery: recorded, answered with the next scripted status
 * - PUT  /__receivers/:name     {"statuses": [500, 500]}: the next answers (resets the log)
 * - GET  /__receivers/:name     {"requests": [{headers, body, status, at}]}
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  headers: Record<string, string>;
  body: string;
  status: number;
  at: number;
}

export interface RunningReceiver {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    total += buffer.length;
    if (total > MAX_BODY) throw new Error("body too large");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function startReceiver(): Promise<RunningReceiver> {
  const scripts = new Map<string, number[]>();
  const logs = new Map<string, ReceivedRequest[]>();
  const server = createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const delivery = /^\/r\/([A-Za-z0-9_.-]{1,128})$/.exec(url.pathname);
    const control = /^\/__receivers\/([A-Za-z0-9_.-]{1,128})$/.exec(url.pathname);
    bodyOf(request)
      .then((body) => {
        if (delivery?.[1] && request.method === "POST") {
          const name = delivery[1];
          const status = scripts.get(name)?.shift() ?? 200;
          const headers = Object.fromEntries(
            Object.entries(request.headers).map(([key, value]) => [
              key,
              Array.isArray(value) ? value.join(", ") : (value ?? ""),
            ]),
          );
          logs.set(name, [...(logs.get(name) ?? []), { headers, body, status, at: Date.now() }]);
          return send(status, { received: status < 300 });
        }
        if (control?.[1] && request.method === "PUT") {
          const parsed: unknown = JSON.parse(body || "{}");
          const statuses: unknown =
            typeof parsed === "object" && parsed !== null ? Reflect.get(parsed, "statuses") : undefined;
          if (!Array.isArray(statuses) || !statuses.every((s) => Number.isInteger(s) && s >= 200 && s <= 599))
            return send(400, { error: "expected {statuses: [HTTP statuses]}" });
          scripts.set(control[1], statuses.map(Number));
          logs.set(control[1], []);
          return send(200, { statuses });
        }
        if (control?.[1] && request.method === "GET") return send(200, { requests: logs.get(control[1]) ?? [] });
        return send(404, { error: `no route for ${request.method} ${url.pathname}` });
      })
      .catch((error: unknown) => send(400, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
