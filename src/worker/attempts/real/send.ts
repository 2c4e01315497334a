/**
 * Sending one real-tools call to its real handler, bounded: the address is checked again (the
 * binding was checked when the simulation was planned; this keeps a deployed instance from
 * calling a private address whatever the stored row says), redirects are never followed (a 3xx is
 * the answer, so a redirect cannot lead to an address that was never checked), every call has a
 * deadline, and an answer's body is read up to the binding's limit and no further.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { sealingKey } from "../../../adapters/secret-box.js";
import type { JsonObject, JsonValue } from "../../../core/json.js";
import { redactionList, redactJson, redactText } from "../../../core/secret-redaction.js";
import { addressRefusal, bindingUrl, httpCall, mcpAnswer, type RealBinding } from "../../../core/tools/upstream.js";
import type { UpstreamAnswer } from "../replies.js";
import type { Env } from "../../platform/env.js";
import { readCapped } from "../../http/json-body.js";
import { openUpstreamCredentials } from "./credentials.js";
import { messageOf } from "../../../core/message-of.js";

const CLIENT_INFO = { name: "toolproof-real-tools", version: "0.1.0" };

/** A local instance (npm start, the tests) may call loopback upstreams; a deployed one never does. */
export function allowsLoopback(env: Env): boolean {
  return env.TOOLPROOF_ALLOW_LOOPBACK_UPSTREAMS === "1";
}

/** The answer of the real handler to one call, never thrown: every failure is an answer with ok: false. */
export async function sendUpstream(
  env: Env,
  tenantId: string,
  binding: RealBinding,
  args: JsonObject,
): Promise<UpstreamAnswer> {
  const started = Date.now();
  const failed = (message: string, status: number | null = null): UpstreamAnswer => ({
    ok: false,
    status,
    latency_ms: Date.now() - started,
    message,
  });
  const refusal = addressRefusal(bindingUrl(binding), allowsLoopback(env));
  if (refusal !== null) return failed(`not sent: ${refusal}`);
  const headers = await credentialHeaders(env, tenantId, binding);
  if (!headers.ok) return failed(`not sent: ${headers.message}`);
  return withoutCredentials(await sendWith(binding, args, headers.headers, started, failed), headers.headers);
}

/**
 * The answer with the credentials blanked out, in every spelling an echo may take
 * (core/secret-redaction.ts): an upstream that echoes what it received would otherwise put them in
 * the attempt's SQLite, D1's evidence, recorded mocks, and the agent's (and its model's) context.
 * Done here, before the answer reaches the attempt object, so everything downstream sees only this.
 */
function withoutCredentials(answer: UpstreamAnswer, headers: Record<string, string>): UpstreamAnswer {
  // A header value, and the token of an `<scheme> <token>` value (Bearer, Basic, Token) on its own.
  const secrets = Object.values(headers).flatMap((value) => [value, ...(/^\S+ +(\S.*)$/.exec(value)?.slice(1) ?? [])]);
  const spellings = redactionList(secrets);
  if (spellings.length === 0) return answer;
  if (!answer.ok) return { ...answer, message: redactText(answer.message, spellings) };
  try {
    return { ...answer, body: redactJson(answer.body, spellings) };
  } catch (error) {
    // Nested too deep to walk: nothing of it may be passed on unchecked.
    return {
      ok: false,
      status: answer.status,
      latency_ms: answer.latency_ms,
      message: `the answer could not be checked for the upstream's credentials: ${messageOf(error)}`,
    };
  }
}

async function sendWith(
  binding: RealBinding,
  args: JsonObject,
  headers: Record<string, string>,
  started: number,
  failed: (message: string, status?: number | null) => UpstreamAnswer,
): Promise<UpstreamAnswer> {
  try {
    if (binding.kind === "http") {
      const call = httpCall(binding, args);
      if (!call.ok) return failed(`not sent: ${call.message}`);
      const response = await fetch(call.url, {
        method: call.method,
        headers: {
          accept: "application/json",
          ...(call.body === null ? {} : { "content-type": "application/json" }),
          ...headers,
        },
        body: call.body,
        redirect: "manual",
        signal: AbortSignal.timeout(binding.timeout_ms),
      });
      const text = await boundedText(response, binding.max_body_bytes);
      if (!text.ok) return failed(text.message, response.status);
      return { ok: true, status: response.status, latency_ms: Date.now() - started, body: jsonOrText(text.text) };
    }
    return await callMcp(binding, args, headers, started);
  } catch (error) {
    return failed(describe(error, binding.timeout_ms));
  }
}

async function callMcp(
  binding: Extract<RealBinding, { kind: "mcp" }>,
  args: JsonObject,
  headers: Record<string, string>,
  started: number,
): Promise<UpstreamAnswer> {
  const signal = AbortSignal.timeout(binding.timeout_ms);
  let tooLarge: string | null = null;
  // Every answer the SDK reads passes through here: read up to the limit, then handed on whole.
  const boundedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, { ...init, redirect: "manual", signal });
    const text = await boundedText(response, binding.max_body_bytes);
    if (!text.ok) {
      tooLarge = text.message;
      throw new Error(text.message);
    }
    return new Response(text.text, { status: response.status, headers: response.headers });
  };
  const client = new Client(CLIENT_INFO, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  const transport = new StreamableHTTPClientTransport(new URL(binding.mcp_url), {
    requestInit: { headers },
    fetch: boundedFetch,
  });
  try {
    await client.connect(transport, { signal, timeout: binding.timeout_ms });
    const result = await client.callTool({ name: binding.tool, arguments: args }, undefined, {
      signal,
      timeout: binding.timeout_ms,
    });
    return { ok: true, status: 200, latency_ms: Date.now() - started, body: mcpAnswer(result) };
  } catch (error) {
    return {
      ok: false,
      status: null,
      latency_ms: Date.now() - started,
      message: tooLarge ?? describe(error, binding.timeout_ms),
    };
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function credentialHeaders(
  env: Env,
  tenantId: string,
  binding: RealBinding,
): Promise<{ ok: true; headers: Record<string, string> } | { ok: false; message: string }> {
  if (binding.sealed === null) return { ok: true, headers: {} };
  const key = await sealingKey(env.TOOLPROOF_SECRET);
  if (!key.ok) return { ok: false, message: key.message };
  const opened = await openUpstreamCredentials(key.key, tenantId, binding.tool_id, binding.sealed);
  if (!opened)
    return {
      ok: false,
      message:
        "the upstream's stored credentials do not open with the current TOOLPROOF_SECRET: PUT the tool's upstream again with its credentials",
    };
  return { ok: true, headers: opened.headers };
}

/** The body as text, or why it was not read whole: longer than `limit` bytes. */
async function boundedText(
  response: Response,
  limit: number,
): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  const tooLarge = {
    ok: false as const,
    message: `the answer's body is larger than the upstream's limit of ${limit} bytes (max_body_bytes)`,
  };
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel();
    return tooLarge;
  }
  if (!response.body) return { ok: true, text: "" };
  const bytes = await readCapped(response.body, limit);
  return bytes === undefined ? tooLarge : { ok: true, text: new TextDecoder().decode(bytes) };
}

/** The answer as the agent receives it: its JSON, or its text when it is not JSON (an empty body is null). */
function jsonOrText(text: string): JsonValue {
  if (text.trim() === "") return null;
  try {
    // SAFETY: JSON.parse answers JSON values only.
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

function describe(error: unknown, timeoutMs: number): string {
  if (
    error instanceof Error &&
    (error.name === "TimeoutError" || error.name === "AbortError" || /timed out|timeout/i.test(error.message))
  ) {
    return `no answer within the upstream's time limit of ${timeoutMs} ms (timeout_ms)`;
  }
  return `the request failed: ${messageOf(error)}`;
}
