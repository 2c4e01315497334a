/**
 * The agent's own mistakes fail its repetitions, with causes of their own, instead of reading as an
 * error or a pass (issue 19, items 2 and 3): a function it does not have (answered to the model as
 * a tool input error it can recover from), and an approval proposal whose arguments break the
 * operation's input schema (the dashboard shows the problems). Through HTTP, the real queue and
 * the model server.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { readPage, signInWith, tableRows } from "./dashboard-helpers.js";
import {
  GET,
  GOOD_JUDGE,
  HOLD,
  invoiceSuite,
  invoiceWorld,
  putSuite,
  QUERIES,
  repetition,
  repetitions,
  server,
  startRun,
  waitForRun,
  wellBehaved,
  type InvoiceWorld,
} from "./run-helpers.js";

const SUPPLIER = "invoices__get_supplier";
const FREE_TEXT = { invoice_id: "INV-10423", reason: "Duplicates last month's bill." };

let world: InvoiceWorld;
let runId: string;

beforeAll(async () => {
  world = await invoiceWorld("agent-mistakes");
  await server.script(world.model, {
    conversations: {
      ...wellBehaved(),
      // A function the agent was never given, then an answer in words.
      [QUERIES.status]: [
        { tool_calls: [{ name: SUPPLIER, arguments: { supplier: "Fabrikam" } }] },
        { content: "I could not look it up." },
      ],
      // The hold proposed with a reason outside the operation's enum.
      [QUERIES.hold]: [
        { tool_calls: [{ name: HOLD, arguments: FREE_TEXT }] },
        { content: "I have asked for approval." },
      ],
    },
    judge_default: GOOD_JUDGE,
  });
  await putSuite(world, "invoicedesk", invoiceSuite(world, { runs_per_scenario: 1 }));
  const run = await waitForRun(world, (await startRun(world, "invoicedesk")).id);
  runId = String(run.id);
  // Both mistakes are failures, not errors: the CI gate exits 1, not 2.
  expect(run).toMatchObject({
    status: "finished",
    verdict: "fail",
    hard_fail: false,
    runs: 5,
    passed: 3,
    failed: 2,
    errors: 0,
  });
}, 60_000);

describe("a function the agent does not have", () => {
  it("is answered to the model as a tool input error, recorded as a refused call, and fails the repetition with cause unknown_function", async () => {
    const status = (await repetitions(world, runId)).find((r) => r.scenario === "status-lookup");
    expect([status?.outcome, status?.cause]).toEqual(["fail", "unknown_function"]);
    const detail = await repetition(world, runId, Number(status?.n));
    const told = `there is no function named "${SUPPLIER}"; the functions you have are ${GET}, ${HOLD}`;
    expect(detail).toMatchObject({
      stop_reason: "final_answer",
      calls: [
        {
          kind: "refused",
          function: SUPPLIER,
          arguments: { supplier: "Fabrikam" },
          refusal: "unknown_function",
          message: told,
        },
      ],
      judge: null,
      verdict: {
        outcome: "fail",
        cause: "unknown_function",
        reason: `Selection failed: called ${SUPPLIER}, which the agent does not have; never called ${GET}.`,
      },
    });
    // The model's second request carries the error as the tool's answer, so it could recover.
    const chats = (await server.log(world.model)).filter((r) => r.kind === "chat" && r.query === QUERIES.status);
    expect(chats.map((r) => r.messages.at(-1))).toEqual([
      { role: "user", content: QUERIES.status },
      {
        role: "tool",
        tool_call_id: expect.any(String),
        content: JSON.stringify({
          error: { code: "tool_input_error", message: told, details: [{ path: "", message: "unknown function" }] },
        }),
      },
    ]);
  });
});

describe("an approval proposal that breaks the input schema", () => {
  it("fails with cause invalid_proposal, without a judge, and keeps its problems on the request", async () => {
    const hold = (await repetitions(world, runId)).find((r) => r.scenario === "hold-request");
    expect([hold?.outcome, hold?.cause]).toEqual(["fail", "invalid_proposal"]);
    const detail = await repetition(world, runId, Number(hold?.n));
    const problems = [{ path: "/reason", message: expect.stringContaining("disputed") }];
    expect(detail).toMatchObject({
      approval_requests: [{ function: HOLD, arguments: FREE_TEXT, problems }],
      calls: [{ kind: "approval_request", function: HOLD, arguments: FREE_TEXT, problems }],
      judge: null,
      verdict: {
        outcome: "fail",
        cause: "invalid_proposal",
        reason: expect.stringContaining("whose arguments break its input schema (/reason: "),
      },
    });
    expect((await server.log(world.model)).filter((r) => r.kind === "judge" && r.query === QUERIES.hold)).toEqual([]);
  });

  it("shows the problems and the refused call on the run's page", async () => {
    const browser = await signInWith(world.tenant.key);
    const page = await readPage(browser, `/runs/${runId}`);
    const details = (n: number) =>
      new RegExp(`<details class="repetition" id="rep-${n}">[\\s\\S]*?</details>`).exec(page.html)?.[0] ?? "";
    const list = await repetitions(world, runId);
    const n = (scenario: string) => Number(list.find((r) => r.scenario === scenario)?.n);
    const reasonProblem = tableRows(details(n("hold-request")), "Calls of this repetition")[1] ?? "";
    expect(reasonProblem).toMatch(
      new RegExp(
        `^${HOLD} \\| approval request \\(proposed, not executed\\), breaks the input schema \\| .* \\| /reason: must be`,
      ),
    );
    expect(tableRows(details(n("status-lookup")), "Calls of this repetition")).toEqual([
      "Function | Kind | Arguments | Result or error",
      `${SUPPLIER} | never run: unknown function | {"supplier":"Fabrikam"} | there is no function named "${SUPPLIER}"; the functions you have are ${GET}, ${HOLD}`,
    ]);
  });
});
