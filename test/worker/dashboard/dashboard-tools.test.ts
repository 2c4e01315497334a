/**
 * The Tools and Policies pages as a person reads them: the library's operations with their hashes,
 * latest revisions and stale badges, a revision's definition, the diff between two revisions or
 * two policy versions, and another tenant's things nowhere to be seen.
 */
import { beforeAll, describe, expect, it } from "vitest";
import policy from "../../../examples/policy/policy.json" with { type: "json" };
import { foldUnchanged } from "../../../src/worker/dashboard/diff-view.js";
import { getInvoiceDefinition, invoiceTool, placeOnHoldDefinition } from "../../fixtures/invoice-tools.js";
import { type Browser, readPage, signInWith, tableRows, visibleText } from "../dashboard-helpers.js";
import { type TestTenant, call, newTenant } from "../helpers.js";

interface Tool {
  id: string;
  operations: Array<{ operation_id: string; contract_hash: string }>;
}

let tenant: TestTenant;
let browser: Browser;
let tool: Tool;
let oldHash: string;

/** Revision 2 of get_invoice: one amount changed, in its rule and in the example that checks it. */
const revisedDefinition = JSON.parse(
  JSON.stringify(getInvoiceDefinition).replaceAll("912.4", "915"),
) as typeof getInvoiceDefinition;

async function post(path: string, body: unknown, method = "POST"): Promise<unknown> {
  const response = await call(method, path, { key: tenant.key, body });
  expect(response.status, path).toBeLessThan(300);
  return response.json();
}

const hashOf = (t: Tool, op: string) => t.operations.find((o) => o.operation_id === op)?.contract_hash ?? "";
const short = (hash: string) => hash.slice(0, 12);

beforeAll(async () => {
  tenant = await newTenant();
  // SAFETY: the documented answer of POST /api/tools.
  tool = (await post("/api/tools", { ...invoiceTool, name: "invoices" })) as Tool;
  oldHash = hashOf(tool, "get_invoice");
  for (const definition of [getInvoiceDefinition, revisedDefinition]) {
    await post(`/api/tools/${tool.id}/testing`, {
      action: "save",
      operation_id: "get_invoice",
      contract_hash: oldHash,
      definition,
    });
  }
  await post(`/api/tools/${tool.id}/testing`, {
    action: "save",
    operation_id: "place_invoice_on_hold",
    contract_hash: hashOf(tool, "place_invoice_on_hold"),
    definition: placeOnHoldDefinition,
  });
  // A stricter invoice_id changes get_invoice's contract: its two revisions go stale.
  const changed = invoiceTool.operations.map((op) =>
    op.operation_id === "get_invoice"
      ? {
          ...op,
          input_schema: {
            type: "object",
            properties: { invoice_id: { type: "string", minLength: 3 } },
            required: ["invoice_id"],
            additionalProperties: false,
          },
        }
      : op,
  );
  // SAFETY: the documented answer of PUT /api/tools/:id.
  tool = (await post(
    `/api/tools/${tool.id}`,
    { ...invoiceTool, name: "invoices", operations: changed },
    "PUT",
  )) as Tool;
  await post("/api/policies/invoice-desk", policy, "PUT");
  await post("/api/policies/invoice-desk", { ...policy, min_description_length: 10 }, "PUT");
  browser = await signInWith(tenant.key);
});

describe("the Tools page", () => {
  it("lists every operation with its contract hash, latest revision and a stale badge", async () => {
    const page = await readPage(browser, "/tools");
    expect(page.status).toBe(200);
    expect(page.text).toContain("1 operation has a stale mock.");
    expect(tableRows(page.html, "Operations by tool")).toEqual([
      "Tool | Operation | Mock | Latest revision | Contract hash",
      `invoices | get_invoice | Stale | Revision 2 | ${short(hashOf(tool, "get_invoice"))}`,
      `invoices | place_invoice_on_hold | Current | Revision 1 | ${short(hashOf(tool, "place_invoice_on_hold"))}`,
    ]);
    expect(page.html).toContain(`<a href="/tools/${tool.id}">invoices</a>`);
  });

  it("shows a tool's operations with each revision, stale ones marked, and a form to compare two", async () => {
    const page = await readPage(browser, `/tools/${tool.id}`);
    expect(page.status).toBe(200);
    expect(
      tableRows(page.html, "Revisions of get_invoice, newest first").map((row) =>
        row.replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/, "TIME"),
      ),
    ).toEqual([
      "Revision | Saved | Checked against | Mock",
      `Revision 2 | TIME | ${short(oldHash)} | Stale`,
      `Revision 1 | TIME | ${short(oldHash)} | Stale`,
    ]);
    expect(page.text).toContain("get_invoice Stale");
    expect(page.text).toContain("place_invoice_on_hold Current");
    expect(page.html).toContain(
      `<form class="inline" method="get" action="/tools/${tool.id}/operations/get_invoice/diff">`,
    );
  });

  it("shows a revision's definition as pretty JSON", async () => {
    const page = await readPage(browser, `/tools/${tool.id}/operations/get_invoice/revisions/1`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("get_invoice, revision 1 Stale");
    const pre = /<pre class="json"[^>]*>([\s\S]*?)<\/pre>/.exec(page.html)?.[1] ?? "";
    expect(JSON.parse(pre.replaceAll("&quot;", '"'))).toEqual(getInvoiceDefinition);
  });

  it("shows the line diff between two revisions", async () => {
    const page = await readPage(browser, `/tools/${tool.id}/operations/get_invoice/diff?from=1&to=2`);
    expect(page.status).toBe(200);
    expect(page.text).toContain("get_invoice: revision 1 → revision 2");
    expect(page.text).toContain("2 lines added, 2 lines removed (from revision 1 to revision 2).");
    const changed = [...page.html.matchAll(/<span class="line (added|removed)">([^<]*)<\/span>/g)].map(
      (m) => `${m[1]}:${visibleText(m[2] ?? "")}`,
    );
    expect(changed).toEqual([
      'removed:− "amount": 912.4,',
      'added:+ "amount": 915,',
      'removed:− "amount": 912.4,',
      'added:+ "amount": 915,',
    ]);
  });

  it("answers missing things and bad input as pages, in words", async () => {
    const missing = await readPage(browser, "/tools/tool_nope");
    expect({ status: missing.status, text: missing.text.split(`Tenant ${tenant.name} `)[1] }).toEqual({
      status: 404,
      text: "No such tool This tenant has no such tool. Back to the tools",
    });
    const noRevision = await readPage(browser, `/tools/${tool.id}/operations/get_invoice/revisions/9`);
    expect(noRevision.status).toBe(404);
    const noPair = await readPage(browser, `/tools/${tool.id}/operations/get_invoice/diff?from=1`);
    expect(noPair.status).toBe(400);
    const badCursor = await readPage(browser, "/tools?cursor=nonsense");
    expect({ status: badCursor.status, text: badCursor.text.split(`Tenant ${tenant.name} `)[1] }).toEqual({
      status: 400,
      text: "Cannot show this page /query/cursor: not a cursor this list handed out",
    });
  });
});

describe("the Policies pages", () => {
  it("lists the policies and a policy's versions with links to their diffs", async () => {
    const list = await readPage(browser, "/policies");
    expect(
      tableRows(list.html, "Policies by name").map((row) => row.replaceAll(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/g, "TIME")),
    ).toEqual(["Policy | Latest version | Last changed | First stored", "invoice-desk | 2 | TIME | TIME"]);
    const one = await readPage(browser, "/policies/invoice-desk");
    expect(
      tableRows(one.html, "Versions of invoice-desk, newest first").map((row) =>
        row.replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/, "TIME"),
      ),
    ).toEqual([
      "Version | Stored | By key | Change",
      `Version 2 | TIME | ${tenant.keyId} | Diff with version 1`,
      `Version 1 | TIME | ${tenant.keyId} | First version`,
    ]);
    expect(one.html).toContain('<a href="/policies/invoice-desk/diff?from=1&amp;to=2">Diff with version 1</a>');
  });

  it("shows the line diff between two versions", async () => {
    const page = await readPage(browser, "/policies/invoice-desk/diff?from=1&to=2");
    expect(page.status).toBe(200);
    expect(page.text).toContain("1 line added, 1 line removed (from version 1 to version 2).");
    const changed = [...page.html.matchAll(/<span class="line (added|removed)">([^<]*)<\/span>/g)].map(
      (m) => `${m[1]}:${visibleText(m[2] ?? "")}`,
    );
    expect(changed).toEqual([
      `removed:− "min_description_length": ${policy.min_description_length},`,
      'added:+ "min_description_length": 10,',
    ]);
  });
});

describe("what a client wrote", () => {
  it("is shown as text, never as markup", async () => {
    const script = "<script>alert(1)</script>";
    // SAFETY: the documented answer of POST /api/tools.
    const created = (await post("/api/tools", {
      ...invoiceTool,
      name: "escaped",
      description: `Invoices ${script} & more`,
    })) as Tool;
    const page = await readPage(browser, `/tools/${created.id}`);
    expect(page.html).not.toContain(script);
    expect(page.html).toContain("Invoices &lt;script&gt;alert(1)&lt;/script&gt; &amp; more");
    expect(page.text).toContain(`Invoices ${script} & more`);
  });
});

describe("tenant isolation", () => {
  it("shows another tenant none of these tools or policies, and its links lead nowhere", async () => {
    const other = await newTenant();
    const theirs = await signInWith(other.key);
    const tools = await readPage(theirs, "/tools");
    expect(tools.text.split(`Tenant ${other.name} `)[1]).toBe(
      "Tools Every operation of the library with its contract hash and its latest mock revision. A revision is stale when the contract changed after it was saved. No tools yet. Register one with POST /api/tools.",
    );
    expect((await readPage(theirs, `/tools/${tool.id}`)).status).toBe(404);
    expect((await readPage(theirs, `/tools/${tool.id}/operations/get_invoice/revisions/1`)).status).toBe(404);
    expect((await readPage(theirs, `/tools/${tool.id}/operations/get_invoice/diff?from=1&to=2`)).status).toBe(404);
    expect((await readPage(theirs, "/policies")).text).toContain("No policies yet.");
    expect((await readPage(theirs, "/policies/invoice-desk")).status).toBe(404);
    expect((await readPage(theirs, "/policies/invoice-desk/diff?from=1&to=2")).status).toBe(404);
  });
});

describe("a long diff", () => {
  it("keeps three unchanged lines around each change and folds the rest, saying how many", async () => {
    const page = await readPage(browser, `/tools/${tool.id}/operations/get_invoice/diff?from=1&to=2`);
    const shown = [...page.html.matchAll(/<span class="line (\w+)">([^<]*)<\/span>/g)].map(
      (m) => `${m[1]}:${visibleText(m[2] ?? "")}`,
    );
    const folded = shown.filter((line) => line.startsWith("folded:"));
    const total = JSON.stringify(getInvoiceDefinition, null, 2).split("\n").length;
    const count = (line: string) => Number(/… (\d+) unchanged/.exec(line)?.[1]);
    // Every line of revision 2 is shown or counted in a fold: 2 changed, 2 removed, and the rest.
    expect(
      shown.filter((line) => !line.startsWith("folded:") && !line.startsWith("removed:")).length +
        folded.reduce((n, line) => n + count(line), 0),
    ).toBe(total);
    expect(folded.length).toBeGreaterThan(0);
    expect(shown.filter((line) => line.startsWith("same:")).length).toBeLessThanOrEqual(4 * 2 * 3);
  });

  it("folds exactly what lies more than three lines from a change", () => {
    const same = (n: number) => Array.from({ length: n }, (_, i) => ({ kind: "same" as const, text: `s${i}` }));
    const lines = [...same(10), { kind: "added" as const, text: "new" }, ...same(10)];
    expect(foldUnchanged(lines)).toEqual([
      { kind: "folded", count: 7 },
      ...same(10).slice(7),
      { kind: "added", text: "new" },
      ...same(3),
      { kind: "folded", count: 7 },
    ]);
    expect(foldUnchanged(same(4))).toEqual([{ kind: "folded", count: 4 }]);
    const close = [{ kind: "removed" as const, text: "a" }, ...same(6), { kind: "added" as const, text: "b" }];
    expect(foldUnchanged(close)).toEqual(close);
  });
});
