/**
 * Fuzz over an agent's arguments, through HTTP dispatch and MCP tools/call into real attempt
 * objects. The tool has a realistic input schema and a mock that echoes its arguments, so every
 * call has exactly two right answers: 200 with the arguments back unchanged, or the agent's own
 * tool input error (422 / isError). Never a harness error: the fixture is correct, and an agent's
 * bad arguments must never fail the attempt. Afterwards the attempt has no harness error and its
 * evidence holds every answered call.
 *
 * Deterministic by default; VITE_FUZZ_SEED, VITE_FUZZ_RUNS and VITE_FUZZ_SURVEY as in
 * fuzz.routes.test.ts.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Doc,
  Raw,
  deep,
  docText,
  mutate,
  mutationArb,
  oddKeyArb,
  oddValueArb,
  setKey,
  toDoc,
} from "../fuzz-arbitraries.js";
import { type Fixtures, makeFixtures, validArguments } from "../fuzz-fixtures.js";
import {
  type Answer,
  failOn,
  FUZZ_SCALE,
  fuzzParameters,
  isRecord,
  parse,
  printCounts,
  reportSurvey,
  send,
  type Sent,
  verdict,
} from "../fuzz-helpers.js";
import { DISPATCH_BODY_LIMIT } from "../../../src/worker/attempts/dispatch.js";
import { evidence, readAttempt, type CreatedAttempt } from "../simulation-helpers.js";

const RUNS = 150;
/** The MCP endpoint's body limit (src/worker/attempts/mcp.ts; not exported there). */
const MCP_BODY_LIMIT = 512 * 1024;

/** Arguments: schema-valid ones, mutations of a valid set, and arbitrary objects. Always a JSON object (the body's shape is the routes suite's). */
const argumentsArb: fc.Arbitrary<Doc> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .record(
        {
          query: fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
          limit: fc.integer({ min: 1, max: 100 }),
          max_total: fc.double({ min: 0, max: 1e12, noNaN: true }),
          status: fc.constantFrom("open", "shipped", "cancelled"),
          customer_id: fc.stringMatching(/^C-[0-9]{1,8}$/),
          tags: fc.array(fc.string({ maxLength: 50 }), { maxLength: 5 }),
          filters: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 })),
          options: fc.record(
            { include_archived: fc.boolean(), sort: fc.constantFrom("newest", "oldest") },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: ["query"] },
      )
      .map(toDoc),
  },
  {
    weight: 5,
    arbitrary: fc
      .array(mutationArb, { minLength: 1, maxLength: 3 })
      .map((mutations) => asObject(mutate(validArguments, mutations))),
  },
  // Odd values where the schema lets anything in: the free-form filters object.
  {
    weight: 3,
    arbitrary: fc.record({ key: oddKeyArb, value: oddValueArb }).map(({ key, value }) => {
      const filters: { [key: string]: Doc } = {};
      setKey(filters, key, value);
      return toDocWith({ query: "q" }, "filters", filters);
    }),
  },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 })).map(toDoc) },
);

function toDocWith(base: Record<string, unknown>, key: string, value: Doc): Doc {
  const doc = toDoc(base);
  if (doc !== null && typeof doc === "object" && !Array.isArray(doc) && !(doc instanceof Raw)) setKey(doc, key, value);
  return doc;
}

/** Arguments are a JSON object by definition; a mutation that replaced the whole object is put back inside one. */
function asObject(doc: Doc): Doc {
  if (doc instanceof Raw) return doc.text.startsWith("{") ? doc : toDocWith({ query: "q" }, "filters", doc);
  if (doc !== null && typeof doc === "object" && !Array.isArray(doc)) return doc;
  return toDocWith({ query: "q" }, "filters", doc);
}

/** JSON equality as an agent reads it: the same numbers (so Infinity is not null), keys in any order, own keys only. */
function sameJson(a: unknown, b: unknown): boolean {
  if (typeof a === "number" || typeof b === "number") return a === b;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  const recordA = a as Record<string, unknown>;
  const recordB = b as Record<string, unknown>;
  return keysA.every((key) => Object.hasOwn(b, key) && sameJson(recordA[key], recordB[key]));
}

function parsed(text: string): unknown {
  const result = parse(text);
  return result.ok ? result.value : undefined;
}

/** A tool input error body: exactly code, message and details, nothing else. */
function isToolInputError(value: unknown): boolean {
  return (
    isRecord(value) &&
    Object.keys(value).join() === "error" &&
    isRecord(value.error) &&
    Object.keys(value.error).sort().join() === "code,details,message" &&
    value.error.code === "tool_input_error" &&
    typeof value.error.message === "string" &&
    Array.isArray(value.error.details)
  );
}

/** Why an HTTP dispatch answer is not one of the two right ones, or null. */
function httpProblem(answer: Answer, sentArguments: unknown, bodyBytes: number): string | null {
  const body = parsed(answer.text);
  // Arguments are bounded with the body that carries them: past the limit, 413 is the documented answer.
  if (bodyBytes > DISPATCH_BODY_LIMIT)
    return answer.status === 413
      ? verdict(answer)
      : `a ${answer.status} for a body past the ${DISPATCH_BODY_LIMIT}-byte limit`;
  if (answer.status === 200)
    return sameJson(body, { echo: sentArguments }) ? null : "a 200 whose result is not the arguments sent";
  if (answer.status === 422) return isToolInputError(body) ? null : "a 422 that is not a tool input error";
  return verdict(answer) ?? `a ${answer.status}: arguments must answer 200 or 422 tool_input_error`;
}

/** Why an MCP tools/call answer is not a result echoing the arguments or an isError tool input error, or null. */
function mcpProblem(answer: Answer, sentArguments: unknown, bodyBytes: number): string | null {
  if (bodyBytes > MCP_BODY_LIMIT)
    return answer.status === 413
      ? verdict(answer, { mcp: true })
      : `a ${answer.status} for a body past the ${MCP_BODY_LIMIT}-byte limit`;
  if (answer.status !== 200)
    return verdict(answer, { mcp: true }) ?? `an MCP tools/call answered HTTP ${answer.status}`;
  const message = parsed(answer.text);
  if (!isRecord(message) || message.jsonrpc !== "2.0") return "an MCP answer that is not JSON-RPC 2.0";
  if (message.error !== undefined)
    return `a JSON-RPC error for arguments: ${JSON.stringify(message.error).slice(0, 300)}`;
  const result = message.result;
  if (!isRecord(result) || !Array.isArray(result.content)) return "a tools/call result without content";
  const text = isRecord(result.content[0]) ? result.content[0].text : undefined;
  if (typeof text !== "string") return "a tools/call result without a text copy";
  if (result.isError === true)
    return isToolInputError(parsed(text)) ? null : "an isError result that is not a tool input error";
  if (!sameJson(result.structuredContent, { echo: sentArguments }))
    return "structuredContent is not the arguments sent";
  return sameJson(parsed(text), { echo: sentArguments }) ? null : "the text copy is not the arguments sent";
}

/** Reproductions this suite found on the code of issue 9, always run first (the item that fixes each is named). */
const reproductions: Doc[] = [
  // Issue 9 item 8 (helper A): 1e400 passes "type: number" and comes back as null: a harness error (output schema).
  toDocWith({ query: "q" }, "max_total", new Raw("1e400")),
  // Issue 9 item 8 (helper A): where the schema lets anything in, 1e400 is silently echoed as null.
  toDocWith({ query: "q" }, "filters", toDocWith({}, "n", new Raw("1e400"))),
  // Issue 9 item 3 (helper A): an over-deep argument echoed by the mock becomes a harness error.
  toDocWith({ query: "q" }, "filters", deep(8000, "object")),
  // Not in issue 9 (MCP; helpers C and A): the SDK's zod record drops an own "__proto__" argument, so
  // over MCP the call is answered (and recorded) without it, where HTTP answers the 422 it deserves.
  toDoc(JSON.parse('{"query":"q","__proto__":{"x":1}}')),
];

let fixtures: Fixtures;
const answered = { http: { result: 0, tool_input_error: 0 }, mcp: { result: 0, tool_input_error: 0 } };

beforeAll(async () => {
  fixtures = await makeFixtures(2);
}, 60_000);

afterAll(() => {
  printCounts("fuzz.dispatch");
  reportSurvey("fuzz.dispatch");
});

function attempt(index: number): CreatedAttempt {
  const found = fixtures.attempts[index];
  if (!found) throw new Error(`no attempt ${index}`);
  return found;
}

describe("fuzz: an agent's arguments answer a result or the agent's own tool input error, never a harness error", () => {
  it(
    "over HTTP dispatch",
    async () => {
      const target = attempt(0);
      await fc.assert(
        fc.asyncProperty(argumentsArb, async (args) => {
          const text = docText(args);
          const sent: Sent = {
            method: "POST",
            path: `/api/attempts/${target.id}/dispatch`,
            contentType: "application/json",
            body: `{"tool":"echo","arguments":${text}}`,
          };
          const answer = await send("POST /api/attempts/:id/dispatch (arguments)", sent, {
            authorization: `Bearer ${target.token}`,
          });
          const problem = httpProblem(answer, JSON.parse(text), new TextEncoder().encode(String(sent.body)).byteLength);
          if (problem === null && answer.status === 200) answered.http.result++;
          if (problem === null && answer.status === 422) answered.http.tool_input_error++;
          failOn("POST /api/attempts/:id/dispatch (arguments)", problem, sent, answer, args);
        }),
        fuzzParameters(
          RUNS,
          reproductions.map((r) => [r] as [Doc]),
        ),
      );
      await expectCleanAttempt(target, answered.http);
    },
    120_000 * FUZZ_SCALE,
  );

  it(
    "over MCP tools/call",
    async () => {
      const target = attempt(1);
      let id = 0;
      await fc.assert(
        fc.asyncProperty(argumentsArb, async (args) => {
          const text = docText(args);
          const sent: Sent = {
            method: "POST",
            path: `/api/attempts/${target.id}/mcp`,
            contentType: "application/json",
            body: `{"jsonrpc":"2.0","id":${++id},"method":"tools/call","params":{"name":"echo","arguments":${text}}}`,
          };
          const answer = await send("POST /api/attempts/:id/mcp tools/call (arguments)", sent, {
            authorization: `Bearer ${target.token}`,
            accept: "application/json, text/event-stream",
          });
          const problem = mcpProblem(answer, JSON.parse(text), new TextEncoder().encode(String(sent.body)).byteLength);
          const result =
            problem === null ? (parsed(answer.text) as { result?: { isError?: boolean } }).result : undefined;
          if (result) answered.mcp[result.isError === true ? "tool_input_error" : "result"]++;
          failOn("POST /api/attempts/:id/mcp tools/call (arguments)", problem, sent, answer, args);
        }),
        fuzzParameters(
          RUNS,
          reproductions.map((r) => [r] as [Doc]),
        ),
      );
      await expectCleanAttempt(target, answered.mcp);
    },
    120_000 * FUZZ_SCALE,
  );
});

/**
 * The attempt the agent fuzzed: no harness error, still able to pass, and every result it was
 * answered in its evidence. A 422 is recorded as a tool input error when the arguments reached the
 * tool; arguments that cannot be used at all (nested past the documented depth, a non-finite
 * number) are refused before any call and recorded nowhere (docs/simulations.md), so the 422s
 * bound the recorded tool input errors from above.
 */
async function expectCleanAttempt(
  target: CreatedAttempt,
  counted: { result: number; tool_input_error: number },
): Promise<void> {
  const read = await readAttempt(target);
  const body = read.body;
  expect({ status: read.status, attempt: body }).toMatchObject({
    status: 200,
    attempt: { status: "active", may_pass: true, harness_errors: 0 },
  });
  const recordedInputErrors = Number(body.tool_input_errors);
  expect({ calls: body.calls, inputErrorsWithinAnswered: recordedInputErrors <= counted.tool_input_error }).toEqual({
    calls: counted.result + recordedInputErrors,
    inputErrorsWithinAnswered: true,
  });
  const calls = await evidence(target);
  expect(calls.map((c) => c.outcome).sort()).toEqual(
    [...Array(counted.result).fill("result"), ...Array(recordedInputErrors).fill("tool_input_error")].sort(),
  );
  // Each recorded result is the echo of the arguments recorded with it.
  expect(
    calls.filter((c) => c.outcome === "result" && !sameJson(c.result, { echo: c.arguments })).map((c) => c.seq),
  ).toEqual([]);
}
