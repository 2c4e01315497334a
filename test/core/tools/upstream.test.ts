/** Real handlers: the request a call becomes, the addresses a deployed instance refuses, the allowlist, the MCP answer. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addressRefusal,
  hostAllowed,
  httpCall,
  mcpAnswer,
  pathArgumentProblems,
  type RealBinding,
} from "../../../src/core/tools/upstream.js";

const binding = (
  overrides: Partial<Extract<RealBinding, { kind: "http" }>> = {},
): Extract<RealBinding, { kind: "http" }> => ({
  kind: "http",
  tool_id: "tool_1",
  timeout_ms: 1000,
  max_body_bytes: 1000,
  sealed: null,
  base_url: "https://api.example.com/v1/",
  method: "GET",
  path: "/invoices/{invoice_id}",
  query: null,
  body: null,
  ...overrides,
});

describe("httpCall", () => {
  it("fills the path, then sends the other arguments as the query of a GET", () => {
    expect(httpCall(binding(), { invoice_id: "INV 1/2", expand: ["lines", "notes"], limit: 5 })).toEqual({
      ok: true,
      url: "https://api.example.com/v1/invoices/INV%201%2F2?expand=lines&expand=notes&limit=5",
      method: "GET",
      body: null,
    });
  });

  it("sends the other arguments as the JSON body of a POST, and the declared ones as the query", () => {
    expect(
      httpCall(binding({ method: "POST", path: "/invoices/{invoice_id}/hold", query: ["dry_run"] }), {
        invoice_id: "INV-1",
        reason: "disputed",
        dry_run: true,
      }),
    ).toEqual({
      ok: true,
      url: "https://api.example.com/v1/invoices/INV-1/hold?dry_run=true",
      method: "POST",
      body: '{"reason":"disputed"}',
    });
  });

  it("refuses a path parameter the call does not give as a scalar", () => {
    expect(httpCall(binding(), { invoice_id: { id: 1 } })).toEqual({
      ok: false,
      message:
        'the path template /invoices/{invoice_id} needs the argument "invoice_id" as a string, number or boolean, and the call gives another type',
    });
    expect(httpCall(binding(), {})).toEqual({
      ok: false,
      message:
        'the path template /invoices/{invoice_id} needs the argument "invoice_id" as a string, number or boolean, and the call has none',
    });
  });

  it("never lets a path argument leave its segment: it fills exactly one segment, or the call is refused", () => {
    const dotty = fc
      .array(fc.constantFrom(".", "%2e", "%2E", "/", "\\", "", "a"), { maxLength: 4 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), dotty),
        fc.constantFrom("/invoices/{invoice_id}", "/invoices/{invoice_id}/hold", "/x/{invoice_id}{invoice_id}/y"),
        (id, path) => {
          const call = httpCall(binding({ path }), { invoice_id: id });
          const problems = pathArgumentProblems(binding({ path }), { invoice_id: id });
          expect(call.ok).toBe(problems.length === 0);
          if (!call.ok) return;
          const template = path.split("/");
          const sent = new URL(call.url).pathname.split("/").slice(2);
          expect(sent.length).toBe(template.length - 1);
          template.slice(1).forEach((segment, i) => {
            if (!segment.includes("{")) expect(sent[i]).toBe(segment);
            else expect(decodeURIComponent(sent[i] ?? "")).toBe(segment.replace(/\{invoice_id\}/g, () => id));
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it("refuses a path argument that would be a dot segment or an empty one, naming the argument", () => {
    const message = (why: string) =>
      `${why} cannot be sent as the path segment {invoice_id} of /invoices/{invoice_id}: the URL would name another resource than the one the argument means (a dot segment moves up or stays, an empty one joins its neighbours)`;
    expect(["..", ".", "", "...", ".a"].map((id) => pathArgumentProblems(binding(), { invoice_id: id }))).toEqual([
      [{ path: "/invoice_id", message: message('".."') }],
      [{ path: "/invoice_id", message: message('"."') }],
      [{ path: "/invoice_id", message: message("an empty value") }],
      [],
      [],
    ]);
    expect(httpCall(binding(), { invoice_id: ".." })).toEqual({
      ok: false,
      message: `/invoice_id: ${message('".."')}`,
    });
    // encodeURIComponent throws on a lone surrogate: the agent's input error, not a failed request.
    expect(pathArgumentProblems(binding(), { invoice_id: "INV-\ud800" })).toEqual([
      {
        path: "/invoice_id",
        message:
          "a lone UTF-16 surrogate has no UTF-8 form, so it cannot be percent-encoded into the path segment {invoice_id} of /invoices/{invoice_id}",
      },
    ]);
    expect(pathArgumentProblems(binding(), { invoice_id: "INV-\ud83d\ude00" })).toEqual([]);
    expect(
      pathArgumentProblems(
        { ...binding(), kind: "mcp", mcp_url: "https://mcp.example.com", tool: "t" } as RealBinding,
        { invoice_id: ".." },
      ),
    ).toEqual([]);
  });
});

describe("addressRefusal", () => {
  it("refuses loopback unless the local flag allows it, and private and link-local addresses always", () => {
    const cases = [
      "http://127.0.0.1:8788",
      "http://localhost",
      "http://api.localhost",
      "http://[::1]",
      "http://10.0.0.1",
      "http://192.168.1.1",
      "http://172.20.0.1",
      "http://169.254.169.254",
      "http://[fe80::1]",
      "http://[::ffff:127.0.0.1]",
      "http://[::ffff:a00:1]",
      "http://100.64.0.1",
      "http://0.0.0.0",
      "https://api.example.com",
      "http://172.32.0.1",
    ];
    expect(cases.map((url) => [url, addressRefusal(url, false) === null, addressRefusal(url, true) === null])).toEqual([
      ["http://127.0.0.1:8788", false, true],
      ["http://localhost", false, true],
      ["http://api.localhost", false, true],
      ["http://[::1]", false, true],
      ["http://10.0.0.1", false, false],
      ["http://192.168.1.1", false, false],
      ["http://172.20.0.1", false, false],
      ["http://169.254.169.254", false, false],
      ["http://[fe80::1]", false, false],
      ["http://[::ffff:127.0.0.1]", false, true],
      ["http://[::ffff:a00:1]", false, false],
      ["http://100.64.0.1", false, false],
      ["http://0.0.0.0", false, false],
      ["https://api.example.com", true, true],
      ["http://172.32.0.1", true, true],
    ]);
    expect(addressRefusal("http://127.0.0.1:8788", false)).toBe(
      "the host 127.0.0.1 is a loopback address, which a deployed instance never calls (a local instance allows loopback with TOOLPROOF_ALLOW_LOOPBACK_UPSTREAMS=1, which npm start sets)",
    );
    expect(addressRefusal("ftp://example.com", true)).toBe("only http and https upstreams are allowed, not ftp:");
    expect(addressRefusal("https://u:p@example.com", true)).toBe(
      "an upstream URL must not carry credentials; store them as the tool's upstream credentials",
    );
  });

  it("reads the URL parser's normal forms of IPv4 (decimal, hex) as the addresses they are", () => {
    // new URL normalizes http://2130706433 and http://0x7f.1 to 127.0.0.1 before the check reads it.
    expect([
      addressRefusal("http://2130706433", false) !== null,
      addressRefusal("http://0x7f.0.0.1", false) !== null,
      addressRefusal("http://0x7f.1", true),
    ]).toEqual([true, true, null]);
  });
});

describe("hostAllowed", () => {
  it("matches exact names and *.domain subdomains, case-insensitively", () => {
    const list = ["api.example.com", "*.internal.example"];
    expect(
      ["API.example.com", "x.api.example.com", "a.internal.example", "internal.example", "example.com"].map((h) =>
        hostAllowed(h, list),
      ),
    ).toEqual([true, false, true, false, false]);
  });
});

describe("mcpAnswer", () => {
  it("takes structuredContent, else the text as JSON, else the text", () => {
    expect([
      mcpAnswer({ content: [{ type: "text", text: "{}" }], structuredContent: { a: 1 } }),
      mcpAnswer({ content: [{ type: "text", text: '{"b":2}' }] }),
      mcpAnswer({ content: [{ type: "text", text: "sunny" }] }),
      mcpAnswer("nonsense"),
    ]).toEqual([{ a: 1 }, { b: 2 }, "sunny", null]);
  });
});
