/**
 * Query parameters, read alike by every route through the real Worker: the attempt's evidence pages
 * by the same strict whole-number rule as every other list (and ignores parameters it does not
 * read, as they do), a cursor is accepted only in the shape its list hands out, and a value whose
 * percent-escapes are not UTF-8 is refused naming the parameter instead of being used verbatim.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { invoiceTool } from "../fixtures/invoice-tools.js";
import { answer, call, invalidAnswer, newTenant, type TestTenant } from "./helpers.js";
import { counterTool, createSimulation, dispatch, libraryTool, type CreatedAttempt } from "./simulation-helpers.js";

const NOT_PERCENT_ENCODED = "not a valid percent-encoded UTF-8 value";
const NOT_A_CURSOR = "not a cursor this list handed out";

let tenant: TestTenant;
let attempt: CreatedAttempt;
let toolId: string;

beforeAll(async () => {
  tenant = await newTenant();
  const simulation = await createSimulation(tenant, { tools: [{ inline: counterTool }] });
  const [first] = simulation.attempts;
  if (!first) throw new Error("no attempt");
  attempt = first;
  for (const n of [1, 2, 3]) expect((await dispatch(attempt, { tool: "counter", arguments: { n } })).status).toBe(200);
  toolId = (await libraryTool(tenant, { ...invoiceTool }, {})).id;
});

/** A cursor as the server would write one (base64url JSON), holding whatever the test forges. */
function forged(json: string): string {
  return btoa(json).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function evidencePage(query: string): Promise<Response> {
  return call("GET", `/api/attempts/${attempt.id}/evidence${query}`, { key: attempt.token });
}

describe("GET /api/attempts/:id/evidence reads ?after= and ?limit= like every other list", () => {
  it.each(["1e2", "0x10", "+5", "%205", "5%20", "1.0", "", "0", "-1", "1001", "99999999999999999999"])(
    "refuses ?limit=%s naming /query/limit",
    async (limit) => {
      expect(await answer(await evidencePage(`?limit=${limit}`))).toEqual(
        invalidAnswer({ path: "/query/limit", message: "expected a whole number from 1 to 1000" }),
      );
    },
  );

  it.each(["", "1e2", "0x1", "+1", "-1", "1.5", "%201", "99999999999999999999"])(
    "refuses ?after=%s naming /query/after",
    async (after) => {
      expect(await answer(await evidencePage(`?after=${after}`))).toEqual(
        invalidAnswer({ path: "/query/after", message: "expected a whole number, 0 or more (the seq of a call)" }),
      );
    },
  );

  it("keeps its documented limits (1 to 1000) and ignores parameters it does not read, as other lists do", async () => {
    const page = async (query: string) => {
      const response = await evidencePage(query);
      // SAFETY: the documented evidence page.
      const body = (await response.json()) as { calls: Array<{ seq: number }>; next_cursor: string | null };
      return { status: response.status, seqs: body.calls.map((call) => call.seq), next_cursor: body.next_cursor };
    };
    expect(await page("?limit=201")).toEqual({ status: 200, seqs: [1, 2, 3], next_cursor: null });
    expect(await page("?limit=1000&after=0")).toEqual({ status: 200, seqs: [1, 2, 3], next_cursor: null });
    expect(await page("?limit=2&after=1&unknown=1&utm_source=x")).toEqual({
      status: 200,
      seqs: [2, 3],
      next_cursor: "3",
    });
    expect(await page("?after=002")).toEqual({ status: 200, seqs: [3], next_cursor: null });
  });
});

describe("GET /api/attempts/:id/state names its parameters /query/<name>", () => {
  const state = (query: string) =>
    call("GET", `/api/attempts/${attempt.id}/state${query}`, { key: attempt.token }).then(answer);

  it("refuses missing and malformed parameters, and ignores parameters it does not read", async () => {
    expect(await state("")).toEqual(
      invalidAnswer(
        { path: "/query/tool", message: "required: the tool whose state to read" },
        {
          path: "/query/pointer",
          message: "required: a JSON Pointer into the tool's state (/orders/%23W123; empty for the whole state)",
        },
      ),
    );
    expect(await state("?tool=counter&pointer=last")).toEqual(
      invalidAnswer({
        path: "/query/pointer",
        message: 'expected a JSON Pointer starting with "/" (or "" for the whole document), got "last"',
      }),
    );
    expect(await state("?tool=counter&pointer=/last&unknown=1")).toEqual({
      status: 200,
      body: { attempt_id: attempt.id, tool: "counter", pointer: "/last", value: 3 },
    });
  });

  it("names the parameter when nothing is there", async () => {
    expect(await state("?tool=counter&pointer=/nope")).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: 'tool "counter" holds nothing at "/nope"',
          details: { problems: [{ path: "/query/pointer", message: 'nothing at "/nope"' }] },
        },
      },
    });
    expect(await state("?tool=ledger&pointer=")).toEqual({
      status: 404,
      body: {
        error: {
          code: "not_found",
          message: 'this attempt has no tool "ledger" (it has counter)',
          details: { problems: [{ path: "/query/tool", message: 'no tool "ledger" in this attempt' }] },
        },
      },
    });
  });
});

describe("a cursor is accepted only in the shape its list hands out", () => {
  it.each([
    ["/api/policies", "WyJ4IiwxZTQwMF0"], // ["x",1e400]
    ["/api/suites/any-suite/versions", "WzEsMiwzLDQsNSw2XQ"], // [1,2,3,4,5,6]
    ["/api/tools", "WyIiLCJ0b29sXy4uLiJd"], // ["","tool_..."]
    ["/api/policies", forged('["x","y"]')],
    ["/api/policies/any-policy", forged("[2,3]")],
    ["/api/policies/any-policy", forged("[0]")],
    ["/api/datasets", forged('["x",1]')],
    ["/api/datasets/any-dataset/versions", forged("[1.5]")],
    ["/api/suites", forged("[]")],
    ["/api/tools", forged('["2026-01-01T00:00:00.000Z","tool_a","extra"]')],
    ["/api/tools", forged('["2026-01-01T00:00:00.000Z",""]')],
    ["/api/tools", forged('["yesterday","tool_a"]')],
    ["/api/keys", forged('["2026-01-01T00:00:00.000Z"]')],
    ["/api/runs", forged('["2026-01-01T00:00:00.000Z","run_a",1]')],
    ["/api/simulations", forged('["2026-01-01T00:00:00.000Z",7]')],
    ["/api/webhooks", forged('["","whk_a"]')],
    ["/api/connections", forged('["x","y"]')],
    ["/api/agent-secrets", forged('["x","y"]')],
  ])("GET %s?cursor=%s is refused", async (path, cursor) => {
    expect(await answer(await call("GET", `${path}?cursor=${cursor}`, { key: tenant.key }))).toEqual(
      invalidAnswer({ path: "/query/cursor", message: NOT_A_CURSOR }),
    );
  });

  it.each([
    ['[-1,"x"]', "Wy0xLCJ4Il0"],
    ["[-1]", forged("[-1]")],
    ["[0]", forged("[0]")],
    ["[1e400]", forged("[1e400]")],
    ["[1,1]", forged("[1,1]")],
  ])("a tool operation's revisions refuse the cursor %s", async (_parts, cursor) => {
    const path = `/api/tools/${toolId}/operations/get_invoice/revisions?cursor=${cursor}`;
    expect(await answer(await call("GET", path, { key: tenant.key }))).toEqual(
      invalidAnswer({ path: "/query/cursor", message: NOT_A_CURSOR }),
    );
  });

  it("still takes the cursors it hands out", async () => {
    for (const name of ["alpha", "beta"])
      expect((await call("PUT", `/api/policies/${name}`, { key: tenant.key, body: { tools: {} } })).status).toBe(201);
    const first = await answer(await call("GET", "/api/policies?limit=1", { key: tenant.key }));
    expect(first).toMatchObject({ status: 200, body: { items: [{ name: "alpha" }], next_cursor: expect.any(String) } });
    const cursor = (first.body as { next_cursor: string }).next_cursor;
    expect(await answer(await call("GET", `/api/policies?cursor=${cursor}`, { key: tenant.key }))).toMatchObject({
      status: 200,
      body: { items: [{ name: "beta" }], next_cursor: null },
    });
  });
});

describe("a query value whose percent-escapes are not UTF-8 is refused, naming the parameter", () => {
  it.each(["%ED%A0%80", "%FF", "%E2%82", "%zz", "%", "ok%C0%AF"])(
    "POST /api/datasets/:name/versions?description=%s stores nothing",
    async (description) => {
      const saved = await call("POST", `/api/datasets/q/versions?description=${description}`, {
        key: tenant.key,
        body: { a: {} },
      });
      expect(await answer(saved)).toEqual(invalidAnswer({ path: "/query/description", message: NOT_PERCENT_ENCODED }));
      expect((await call("GET", "/api/datasets/q/versions", { key: tenant.key })).status).toBe(404);
    },
  );

  it.each([
    ["/api/tools?limit=%FF", "/query/limit"],
    ["/api/policies?cursor=%ED%A0%80", "/query/cursor"],
    ["/api/runs?suite=%C0%AF", "/query/suite"],
    ["/api/datasets/q/versions/1/record?pointer=/a%FF", "/query/pointer"],
    ["/api/datasets/q/versions?base_version=%FF&description=ok", "/query/base_version"],
  ])("GET or POST %s names %s", async (path, parameter) => {
    const method = path.startsWith("/api/datasets/q/versions?") ? "POST" : "GET";
    const body = method === "POST" ? { a: {} } : undefined;
    expect(await answer(await call(method, path, { key: tenant.key, body }))).toEqual(
      invalidAnswer({ path: parameter, message: NOT_PERCENT_ENCODED }),
    );
  });

  it("names it on the attempt's routes too", async () => {
    expect(await answer(await evidencePage("?after=%FF"))).toEqual(
      invalidAnswer({ path: "/query/after", message: NOT_PERCENT_ENCODED }),
    );
    const state = await call("GET", `/api/attempts/${attempt.id}/state?tool=counter&pointer=/%ED%A0%80`, {
      key: attempt.token,
    });
    expect(await answer(state)).toEqual(invalidAnswer({ path: "/query/pointer", message: NOT_PERCENT_ENCODED }));
  });

  it("ignores such a value in a parameter the route does not read, and still checks the key first", async () => {
    expect((await call("GET", "/api/tools?utm=%FF", { key: tenant.key })).status).toBe(200);
    expect((await call("GET", "/api/tools?limit=%FF")).status).toBe(401);
  });

  it("decodes well-formed escapes and '+' as before", async () => {
    const saved = await call("POST", "/api/datasets/decoded/versions?description=caf%C3%A9+au+lait%20%2B%25", {
      key: tenant.key,
      body: { a: {} },
    });
    expect(await answer(saved)).toMatchObject({ status: 201, body: { description: "café au lait +%" } });
  });
});
