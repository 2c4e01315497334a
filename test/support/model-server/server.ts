/**
 * A local OpenAI-compatible model server for tests and benchmarks: plain node:http, answers
 * scripted per model name (README.md beside this file), so test files running at once never see
 * each other's answers. The control endpoints are JSON over HTTP, so tests inside workerd drive it
 * with fetch exactly like tests in Node.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  completionBody,
  decide,
  errorBody,
  faultDecision,
  isRecord,
  readRequest,
  type Decision,
  type ModelState,
} from "./answers.js";
import { scriptSchema, type LoggedRequest, type ModelScript, type ModelServerStats } from "./script.js";

export interface ModelServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Requests kept per model in its log (default 10000); older ones are dropped first. */
  logLimit?: number;
  /**
   * How the server waits an answer's latency_ms (default: a timer that ends early when the client
   * goes away). Tests pass their own to see what was asked for without timing anything.
   */
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface ModelServer {
  /** http://127.0.0.1:<port>, without a trailing slash; the OpenAI base URL is `${url}/v1`. */
  url: string;
  port: number;
  /** Registers (replaces) a model's script in-process; resets its counters and log. */
  script(model: string, script: ModelScript): void;
  log(model: string): LoggedRequest[];
  stats(): ModelServerStats;
  /**
   * Milliseconds spent answering, summed over every request since the last resetStats(), from
   * its arrival to its answer (the time integral of in_flight): divided by a span of wall time,
   * how many requests were being answered at once on average.
   */
  answeringMs(): number;
  resetStats(): void;
  close(): Promise<void>;
}

const BODY_LIMIT = 8 * 1024 * 1024;
/** Answers larger than this are logged as their size only. */
const LOGGED_ANSWER_LIMIT = 1024 * 1024;
/** The OpenAI-style routes (with and without /v1, and Azure's v1 API): any other path is a 404, as a wrong base_url would get. */
const OPENAI_PATHS = new Set(["/v1/chat/completions", "/chat/completions", "/openai/v1/chat/completions"]);
const MODELS_PATHS = new Set(["/v1/models", "/models", "/openai/v1/models"]);
/** Request headers too ordinary to be worth logging. */
const UNLOGGED_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "content-type",
  "accept",
  "accept-encoding",
  "accept-language",
  "user-agent",
  "keep-alive",
  "sec-fetch-mode",
  "cf-worker",
]);

interface Counters {
  requests_total: number;
  in_flight: number;
  max_in_flight: number;
}

export async function startModelServer(options: ModelServerOptions = {}): Promise<ModelServer> {
  const logLimit = options.logLimit ?? 10_000;
  const wait = options.wait ?? sleep;
  const states = new Map<string, ModelState>();
  const logs = new Map<string, LoggedRequest[]>();
  const sequence = new Map<string, number>();
  const global: Counters = { requests_total: 0, in_flight: 0, max_in_flight: 0 };
  let answeringMs = 0;
  const perModel = new Map<string, Counters>();
  // A per-server prefix keeps tool call ids unique across servers (a restarted one in the same test).
  const prefix = randomBytes(4).toString("hex");
  let counter = 0;
  const nextId = (kind: string) => `${kind}${prefix}${(++counter).toString(36)}`;

  const stateOf = (model: string): ModelState => {
    let state = states.get(model);
    if (!state) {
      state = { script: undefined, faultsServed: 0, judgeSeen: new Map(), injectionSeen: new Map() };
      states.set(model, state);
    }
    return state;
  };
  const countersOf = (model: string): Counters => {
    let counters = perModel.get(model);
    if (!counters) {
      counters = { requests_total: 0, in_flight: 0, max_in_flight: 0 };
      perModel.set(model, counters);
    }
    return counters;
  };
  const register = (model: string, script: ModelScript) => {
    states.set(model, { script, faultsServed: 0, judgeSeen: new Map(), injectionSeen: new Map() });
    logs.delete(model);
    sequence.delete(model);
  };
  const record = (model: string, entry: Omit<LoggedRequest, "seq">): LoggedRequest => {
    const seq = (sequence.get(model) ?? 0) + 1;
    sequence.set(model, seq);
    let log = logs.get(model);
    if (!log) {
      log = [];
      logs.set(model, log);
    }
    const logged = { seq, ...entry };
    log.push(logged);
    if (log.length > logLimit) log.splice(0, log.length - logLimit);
    return logged;
  };

  async function completion(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    deployment: string | null,
  ): Promise<void> {
    const receivedAt = Date.now();
    const aborted = abortOnClose(res);
    const body = await readJsonBody(req);
    const request = readRequest(body.ok ? body.value : undefined);
    const model = deployment ?? request.model;
    const counters = model === null ? [global] : [global, countersOf(model)];
    for (const c of counters) {
      c.requests_total++;
      c.in_flight++;
      c.max_in_flight = Math.max(c.max_in_flight, c.in_flight);
    }
    const log = (status: number, answer: unknown, kind: LoggedRequest["kind"]) => {
      if (model === null) return;
      const fields = body.ok && isRecord(body.value) ? body.value : {};
      const retry = req.headers["x-stainless-retry-count"];
      const answerBytes = answer === null ? 0 : Buffer.byteLength(JSON.stringify(answer));
      const entry = record(model, {
        kind,
        path: url.pathname,
        api_version: url.searchParams.get("api-version"),
        query: request.query,
        messages: request.messages,
        tools: Array.isArray(fields.tools) ? fields.tools : null,
        tool_choice: fields.tool_choice ?? null,
        response_format: fields.response_format ?? null,
        temperature: typeof fields.temperature === "number" ? fields.temperature : null,
        seed: typeof fields.seed === "number" ? fields.seed : null,
        max_tokens: numberField(fields, "max_completion_tokens") ?? numberField(fields, "max_tokens"),
        headers: interestingHeaders(req),
        retry_count: typeof retry === "string" && /^\d+$/.test(retry) ? Number(retry) : null,
        received_at: receivedAt,
        answered_at: Date.now(),
        status,
        // An oversized answer is not kept whole: the log would hold every test's megabytes.
        answer: answerBytes > LOGGED_ANSWER_LIMIT ? `(${answerBytes} bytes, not kept in the log)` : answer,
        answer_bytes: answerBytes,
        delivered: status === 0 ? false : null,
      });
      if (entry.delivered === null) {
        res.once("finish", () => (entry.delivered = true));
        res.once("close", () => (entry.delivered ??= res.writableFinished));
      }
    };
    try {
      if (!body.ok) return send(res, body.status, errorBody(body.message, "invalid_request_error", null));
      if (model === null)
        return send(res, 400, errorBody("you must provide a model parameter", "invalid_request_error", null));
      const state = stateOf(model);
      const script = state.script;
      if (!script) {
        const answer = errorBody(
          `The model \`${model}\` does not exist or you do not have access to it.`,
          "invalid_request_error",
          "model_not_found",
        );
        log(404, answer, "other");
        return send(res, 404, answer);
      }
      if (script.api_key !== undefined && presentedKey(req) !== script.api_key) {
        const answer = errorBody(
          `Incorrect API key provided: ${redact(presentedKey(req))}.`,
          "invalid_request_error",
          "invalid_api_key",
        );
        log(401, answer, "other");
        return send(res, 401, answer);
      }
      if (request.stream) {
        const answer = errorBody(
          "this test model server answers non-streaming requests only (stream: true is not supported)",
          "invalid_request_error",
          "stream_unsupported",
        );
        log(400, answer, request.kind);
        return send(res, 400, answer);
      }
      const decision = decide(model, state, script, request);
      await answer(res, model, request.kind, body.value, decision, aborted, log);
    } finally {
      answeringMs += Date.now() - receivedAt;
      for (const c of counters) c.in_flight--;
    }
  }

  async function answer(
    res: ServerResponse,
    model: string,
    kind: "chat" | "judge",
    requestBody: unknown,
    decision: Decision,
    aborted: AbortSignal,
    log: (status: number, answer: unknown, kind: LoggedRequest["kind"]) => void,
  ): Promise<void> {
    await wait(decision.latency_ms, aborted);
    if (aborted.aborted) return log(0, null, kind);
    const fields = isRecord(requestBody) ? requestBody : {};
    const messages = Array.isArray(fields.messages) ? fields.messages : [];
    const body = (content: Parameters<typeof completionBody>[5]) =>
      completionBody(model, nextId("chatcmpl-"), () => nextId("call_"), messages, fields.tools, content);

    if (decision.type === "error") {
      log(decision.status, decision.body, kind);
      return send(res, decision.status, decision.body, decision.headers);
    }
    const scripted = decision.type === "turn" ? decision.turn : decision.answer;
    if (typeof scripted === "string") {
      const answerBody = body({ content: scripted });
      log(200, answerBody, kind);
      return send(res, 200, answerBody);
    }
    if ("drop" in scripted) {
      log(0, null, kind);
      res.socket?.destroy();
      return;
    }
    if ("status" in scripted) {
      const fault = faultDecision(scripted, 0);
      log(fault.status, fault.body, kind);
      return send(res, fault.status, fault.body, fault.headers);
    }
    if ("body" in scripted) {
      log(200, scripted.body, kind);
      return send(res, 200, scripted.body);
    }
    if (!("tool_calls" in scripted) && scripted.repeat === "forever")
      return endless(res, body({ content: "" }), scripted.content, aborted, log, kind);
    const answerBody =
      "tool_calls" in scripted
        ? body({ content: scripted.content ?? null, tool_calls: scripted.tool_calls })
        : body({ content: scripted.content, ...(scripted.repeat === undefined ? {} : { repeat: scripted.repeat }) });
    log(200, answerBody, kind);
    return send(res, 200, answerBody);
  }

  /** A 200 whose content never ends: the body up to the content, then the content over and over until the client goes away. */
  async function endless(
    res: ServerResponse,
    emptyBody: unknown,
    content: string,
    aborted: AbortSignal,
    log: (status: number, answer: unknown, kind: LoggedRequest["kind"]) => void,
    kind: "chat" | "judge",
  ): Promise<void> {
    const text = JSON.stringify(emptyBody);
    const at = text.indexOf('"content":""') + '"content":"'.length;
    const piece = JSON.stringify(content).slice(1, -1) || "x";
    const chunk = piece.repeat(Math.ceil((64 * 1024) / piece.length));
    log(200, "(an endless answer)", kind);
    res.writeHead(200, { "content-type": "application/json" });
    res.write(text.slice(0, at));
    while (!aborted.aborted && !res.destroyed) {
      if (res.write(chunk)) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off("drain", done);
          res.off("close", done);
          resolve();
        };
        res.on("drain", done);
        res.on("close", done);
      });
    }
  }

  async function control(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
    const [, area, rawModel] = /^\/__(scripts|log|stats)(?:\/([^/]+))?$/.exec(url.pathname) ?? [];
    if (!area) return false;
    const model = rawModel === undefined ? undefined : decodeURIComponent(rawModel);
    if (area === "scripts" && model !== undefined) {
      if (req.method === "PUT") {
        const body = await readJsonBody(req);
        if (!body.ok) return sendTrue(res, body.status, { error: { message: body.message } });
        const parsed = scriptSchema.safeParse(body.value);
        if (!parsed.success) {
          const problems = parsed.error.issues.map((issue) => ({
            path: `/${issue.path.join("/")}`,
            message: issue.message,
          }));
          return sendTrue(res, 400, {
            error: {
              message: `script for model "${model}" is invalid: ${problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
              problems,
            },
          });
        }
        register(model, parsed.data);
        return sendTrue(res, 200, { model, script: parsed.data });
      }
      if (req.method === "GET") {
        const script = states.get(model)?.script;
        return script
          ? sendTrue(res, 200, { model, script })
          : sendTrue(res, 404, { error: { message: `no script for model "${model}"` } });
      }
      if (req.method === "DELETE") {
        states.delete(model);
        logs.delete(model);
        sequence.delete(model);
        return sendTrue(res, 200, { model, deleted: true });
      }
    }
    if (area === "log" && model !== undefined) {
      if (req.method === "GET") return sendTrue(res, 200, { model, requests: logs.get(model) ?? [] });
      if (req.method === "DELETE") {
        logs.delete(model);
        return sendTrue(res, 200, { model, requests: [] });
      }
    }
    if (area === "stats") {
      const counters = model === undefined ? global : countersOf(model);
      if (req.method === "GET") return sendTrue(res, 200, { ...counters });
      if (req.method === "DELETE") {
        counters.requests_total = 0;
        counters.max_in_flight = counters.in_flight;
        return sendTrue(res, 200, { ...counters });
      }
    }
    return sendTrue(res, 405, {
      error: {
        message: `${req.method} ${url.pathname} is not a control endpoint (see test/support/model-server/README.md)`,
      },
    });
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const handle = async () => {
      if (await control(req, res, url)) return;
      const azure = /^\/openai\/deployments\/([^/]+)\/chat\/completions$/.exec(url.pathname);
      if (req.method === "POST" && azure?.[1]) return completion(req, res, url, decodeURIComponent(azure[1]));
      if (req.method === "POST" && OPENAI_PATHS.has(url.pathname)) return completion(req, res, url, null);
      if (req.method === "GET" && MODELS_PATHS.has(url.pathname)) {
        const data = [...states]
          .filter(([, s]) => s.script)
          .map(([id]) => ({ id, object: "model", created: 0, owned_by: "toolproof-test" }));
        return send(res, 200, { object: "list", data });
      }
      return send(
        res,
        404,
        errorBody(`no route for ${req.method} ${url.pathname}`, "invalid_request_error", "unknown_url"),
      );
    };
    handle().catch((error: unknown) => {
      if (!res.headersSent) send(res, 500, errorBody(`model server bug: ${String(error)}`, "server_error", null));
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    port,
    script: (model, script) => register(model, scriptSchema.parse(script)),
    log: (model) => [...(logs.get(model) ?? [])],
    stats: () => ({ ...global }),
    answeringMs: () => answeringMs,
    resetStats: () => {
      answeringMs = 0;
      global.requests_total = 0;
      global.max_in_flight = global.in_flight;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

type BodyRead = { ok: true; value: unknown } | { ok: false; status: number; message: string };

async function readJsonBody(req: IncomingMessage): Promise<BodyRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > BODY_LIMIT) return { ok: false, status: 413, message: `request body over ${BODY_LIMIT} bytes` };
    chunks.push(buffer);
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
  } catch (error) {
    return { ok: false, status: 400, message: `request body is not JSON: ${String(error)}` };
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

function sendTrue(res: ServerResponse, status: number, body: unknown): true {
  send(res, status, body);
  return true;
}

/** Aborted when the client goes away before the answer, so a sleeping answer stops at once. */
function abortOnClose(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

function presentedKey(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === "string" && auth.startsWith("Bearer ")) return auth.slice("Bearer ".length);
  const azure = req.headers["api-key"];
  return typeof azure === "string" ? azure : null;
}

function redact(key: string | null): string {
  if (key === null) return "(none)";
  return key.length <= 8 ? "****" : `${key.slice(0, 3)}****${key.slice(-4)}`;
}

function interestingHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (UNLOGGED_HEADERS.has(name) || name.startsWith("x-stainless-") || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return headers;
}

function numberField(fields: Record<string, unknown>, name: string): number | null {
  const value = fields[name];
  return typeof value === "number" ? value : null;
}
