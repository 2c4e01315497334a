/**
 * A small external agent for toolproof: a Node HTTP server that takes the signed jobs a run sends
 * (one per repetition), works on the job's attempt over MCP with the official client, asks an
 * OpenAI-compatible model what to do, and reports POST /api/attempts/:id/complete.
 *
 *   TOOLPROOF_AGENT_SECRET=whsec_… node --import tsx examples/external-agent/agent.ts
 *
 * Settings (environment): TOOLPROOF_AGENT_SECRET (required: the secret PUT /api/agent-secrets/:name
 * showed), PORT (8790), OPENAI_BASE_URL (http://127.0.0.1:8788/v1, `npm run demo-model`),
 * OPENAI_API_KEY ("demo"), MODEL ("invoicedesk-demo"), INSTRUCTIONS (the system prompt).
 *
 * The agent follows the job's approval modes as the seed's agent framework does: a tool marked
 * always_require is never called; the run stops there and the call is reported as an approval
 * request (name, arguments, call id), which is how the harness sees what the agent wanted to do.
 *
 * In a conversation scenario (the job carries `conversation`), each text answer is the agent's
 * reply to the user: it is POSTed to the job's turns_url, and the user's next message, when one
 * comes back, starts the agent's next turn on the whole conversation; the attempt is completed
 * once the user is done (or the agent stops without a text answer).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";

export interface Job {
  run_id: string;
  scenario_id: string;
  repetition: number;
  query: string;
  attempt_id: string;
  attempt_token: string;
  mcp_url: string;
  complete_url: string;
  deadline: string;
  tools: Array<{ name: string; approval_mode: "never_require" | "always_require" }>;
  /** A conversation scenario's: the user's first message (also the query), and where replies go. */
  conversation?: { turn: number; message: string; max_turns: number; turns_url: string };
}

/** What toolproof answers a reply with: the user's next message, or the end of the conversation. */
type TurnAnswer = { done: false; turn: number; message: string } | { done: true; stop_reason: string };

export interface AgentOptions {
  secret: string;
  model: OpenAI;
  modelName: string;
  instructions: string;
  /** Model turns per job (the seed's max_iterations). */
  maxIterations?: number;
  log?: (line: string) => void;
}

/** Standard Webhooks: five minutes either way. */
const TOLERANCE_SECONDS = 5 * 60;

/** Whether the webhook-signature header holds a v1 HMAC-SHA256 of `id.timestamp.body` under the whsec_ secret. */
export function verifySignature(
  secret: string,
  headers: { id: string; timestamp: string; signature: string },
  body: string,
  nowMs = Date.now(),
): boolean {
  const timestamp = Number(headers.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowMs / 1000 - timestamp) > TOLERANCE_SECONDS) return false;
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
  const expected = createHmac("sha256", key).update(`${headers.id}.${headers.timestamp}.${body}`).digest();
  return headers.signature.split(" ").some((entry) => {
    const [version, mac] = entry.split(",");
    if (version !== "v1" || !mac) return false;
    const given = Buffer.from(mac, "base64");
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** One job: the attempt's tools over MCP, the model's turns, then the completion. */
export async function work(job: Job, options: AgentOptions): Promise<void> {
  const headers = { authorization: `Bearer ${job.attempt_token}` };
  const mcp = new Client({ name: "toolproof-example-agent", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(job.mcp_url), { requestInit: { headers } }));
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: options.instructions },
    { role: "user", content: job.query },
  ];
  const approvalRequests: Array<{ name: string; arguments: Record<string, unknown>; call_id: string }> = [];
  let output: string | null = null;
  try {
    const listed = await mcp.listTools();
    const tools: ChatCompletionTool[] = listed.tools.map((tool) => ({
      type: "function",
      function: {
        name: tool.name,
        description: tool.description ?? "",
        parameters: tool.inputSchema as Record<string, unknown>,
      },
    }));
    const needsApproval = new Set(
      job.tools.filter((tool) => tool.approval_mode === "always_require").map((tool) => tool.name),
    );
    // One user message at a time: a query's job has one, a conversation's as many as the user sends.
    let userTurn = job.conversation?.turn ?? 1;
    for (;;) {
      output = null;
      for (let iteration = 0; iteration < (options.maxIterations ?? 4); iteration++) {
        const answer = await options.model.chat.completions.create({ model: options.modelName, messages, tools });
        const message = answer.choices[0]?.message;
        if (!message) break;
        const calls = (message.tool_calls ?? []).flatMap((call) => (call.type === "function" ? [call] : []));
        messages.push({
          role: "assistant",
          content: message.content ?? null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
        });
        output = message.content ?? null;
        if (calls.length === 0) break;
        for (const call of calls) {
          const args = parseArguments(call.function.arguments);
          if (needsApproval.has(call.function.name)) {
            // Paused for a person: never executed here, reported so the harness scores what was proposed.
            approvalRequests.push({ name: call.function.name, arguments: args, call_id: call.id });
            continue;
          }
          const result = await mcp.callTool({ name: call.function.name, arguments: args });
          messages.push({
            role: "tool",
            tool_call_id: call.id,
            content: JSON.stringify(result.structuredContent ?? result.content),
          });
        }
        if (approvalRequests.length > 0) break;
      }
      // A query, a pause for approval or no text answer: the job is done. Otherwise the user answers.
      if (!job.conversation || approvalRequests.length > 0 || output === null) break;
      const next = await replyToUser(job.conversation.turns_url, headers, userTurn, output);
      options.log?.(`${job.scenario_id} #${job.repetition}: reply ${userTurn} → ${JSON.stringify(next)}`);
      if (next.done) break;
      userTurn = next.turn;
      messages.push({ role: "user", content: next.message });
    }
  } finally {
    await mcp.close();
  }
  const response = await fetch(job.complete_url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ output, approval_requests: approvalRequests, messages: messages.map(forTranscript) }),
  });
  options.log?.(
    `${job.scenario_id} #${job.repetition}: completed (${response.status})${response.ok ? "" : `: ${await response.text()}`}`,
  );
}

/** POSTs the agent's reply to user message `turn`; a refused reply ends the conversation on the agent's side. */
async function replyToUser(
  turnsUrl: string,
  headers: Record<string, string>,
  turn: number,
  message: string,
): Promise<TurnAnswer> {
  const response = await fetch(turnsUrl, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ turn, message }),
  });
  // Refused (out of time, say): nothing more can be said to the user, so the attempt is completed as it stands.
  if (!response.ok) return { done: true, stop_reason: `reply refused: ${response.status} ${await response.text()}` };
  return (await response.json()) as TurnAnswer;
}

/** webhook-ids remembered to drop a repeated job (oldest forgotten first). */
const REMEMBERED_JOBS = 10_000;

/**
 * The job server: answers 202 as soon as the signature checks out, then works on the job, once
 * per webhook-id. toolproof POSTs a job it has seen accepted only once, but a job whose 2xx was
 * lost on the way back (a timeout, a proxy's 502) is sent again with the same webhook-id, and
 * working on it twice would put both runs' calls on one attempt.
 */
export function jobServer(options: AgentOptions) {
  const seen = new Set<string>();
  return createServer((request, response) => {
    readBody(request)
      .then((body) => {
        const id = header(request, "webhook-id");
        const signed = verifySignature(
          options.secret,
          { id, timestamp: header(request, "webhook-timestamp"), signature: header(request, "webhook-signature") },
          body,
        );
        if (request.method !== "POST" || !signed) {
          response.writeHead(401).end("bad signature");
          return;
        }
        response.writeHead(202).end();
        // A retried job carries the same webhook-id: work on it once.
        if (seen.has(id)) {
          options.log?.(`job ${id}: a repeat, dropped`);
          return;
        }
        seen.add(id);
        if (seen.size > REMEMBERED_JOBS) seen.delete(seen.values().next().value ?? id);
        const job = (JSON.parse(body) as { data: Job }).data;
        work(job, options).catch((error: unknown) =>
          options.log?.(`${job.scenario_id} #${job.repetition}: failed: ${String(error)}`),
        );
      })
      .catch(() => response.writeHead(400).end());
  });
}

function header(request: IncomingMessage, name: string): string {
  const value = request.headers[name];
  return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString("utf8");
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** The messages in the shape the completion takes (assistant tool calls as {id, type, function}). */
function forTranscript(message: ChatCompletionMessageParam): Record<string, unknown> {
  if (message.role === "assistant") {
    const calls = (message.tool_calls ?? []).flatMap((call) =>
      call.type === "function"
        ? [
            {
              id: call.id,
              type: "function",
              function: { name: call.function.name, arguments: call.function.arguments },
            },
          ]
        : [],
    );
    return {
      role: "assistant",
      content: typeof message.content === "string" ? message.content : null,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    };
  }
  if (message.role === "tool")
    return { role: "tool", tool_call_id: message.tool_call_id, content: String(message.content) };
  return { role: message.role, content: String(message.content) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.TOOLPROOF_AGENT_SECRET;
  if (!secret) {
    console.error("set TOOLPROOF_AGENT_SECRET to the secret PUT /api/agent-secrets/:name showed");
    process.exit(2);
  }
  const port = Number(process.env.PORT ?? 8790);
  const options: AgentOptions = {
    secret,
    model: new OpenAI({
      baseURL: process.env.OPENAI_BASE_URL ?? "http://127.0.0.1:8788/v1",
      apiKey: process.env.OPENAI_API_KEY ?? "demo",
    }),
    modelName: process.env.MODEL ?? "invoicedesk-demo",
    instructions:
      process.env.INSTRUCTIONS ??
      "You answer accounts payable questions about single invoices. Use get_invoice for facts. Only place an invoice on hold when the user asks for it.",
    log: (line) => console.log(line),
  };
  jobServer(options).listen(port, "127.0.0.1", () =>
    console.log(`external agent taking jobs at http://127.0.0.1:${port}/jobs`),
  );
}
