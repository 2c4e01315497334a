/**
 * The admin CLI (`npm run admin -- …`) against a temporary state directory (a real local D1
 * through Miniflare): its commands in this process, the real script spawned for output and exit
 * codes, and its argument parser directly.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_KEY_PERMISSIONS, parseAdminArgs, runAdminCommand } from "../../scripts/local/admin-commands.js";
import { openLocalDatabase, type OpenedDatabase } from "../../scripts/local/database.js";
import { WRANGLER_CONFIG } from "../../scripts/local/paths.js";
import { UsageError } from "../../scripts/local/usage-error.js";
import { readWorkerConfig } from "../../scripts/local/wrangler-config.js";
import { jsonOutput, runScript } from "./run-script.js";

const stateDir = mkdtempSync(path.join(tmpdir(), "toolproof-admin-"));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

/** Each CLI run starts Node, loads wrangler and starts workerd: seconds, more on a busy machine. */
const SLOW = 240_000;

async function admin(...args: string[]) {
  return runScript("admin.ts", ["--state-dir", stateDir, ...args]);
}

function errorOf(stderr: string): { code: string; message: string; details: { argument: string } } {
  const body = jsonOutput(stderr);
  expect(body).toMatchObject({
    error: { code: expect.any(String), message: expect.any(String), details: { argument: expect.any(String) } },
  });
  // SAFETY: the shape was asserted just above.
  return (body as { error: { code: string; message: string; details: { argument: string } } }).error;
}

describe("admin commands on a local database", () => {
  let database: OpenedDatabase | undefined;
  afterAll(async () => database?.close());

  /** The command runner the CLI uses, in this process: one workerd for the whole flow. */
  async function run(...args: string[]): Promise<Record<string, unknown>> {
    if (!database) database = await openLocalDatabase(stateDir, await readWorkerConfig(WRANGLER_CONFIG));
    const parsed = parseAdminArgs(args);
    if (parsed.command === "help") throw new Error("unexpected help");
    const result = await runAdminCommand(database.db, parsed.command);
    expect(result).toBeTypeOf("object");
    // SAFETY: checked to be an object just above; tests read fields with expect().
    return result as Record<string, unknown>;
  }

  async function refusal(...args: string[]): Promise<UsageError> {
    const error = await run(...args).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UsageError);
    // SAFETY: asserted just above.
    return error as UsageError;
  }

  it(
    "creates a tenant and a key, lists them and revokes the key",
    async () => {
      const tenant = await run("tenant", "create", "acme");
      expect(tenant).toMatchObject({ id: expect.stringMatching(/^tnt_/), name: "acme" });
      expect((await run("tenant", "list")).items).toContainEqual(
        expect.objectContaining({ id: tenant.id, name: "acme", active_keys: 0 }),
      );

      const created = await run(
        "key",
        "create",
        "--tenant",
        "acme",
        "--name",
        "ci",
        "--permissions",
        "AIManager:ManageTools",
      );
      expect(created).toMatchObject({
        key: expect.stringMatching(/^tpk_/),
        id: expect.stringMatching(/^key_/),
        tenant: "acme",
        name: "ci",
        permissions: ["AIManager:ManageTools"],
        revoked_at: null,
      });
      expect(String(created.key).startsWith(String(created.prefix))).toBe(true);
      const defaults = await run("key", "create", "--tenant", "acme");
      expect(defaults).toMatchObject({ name: "cli", permissions: [...DEFAULT_KEY_PERMISSIONS] });

      const listed = await run("key", "list", "--tenant", "acme");
      expect(listed).toMatchObject({
        tenant: "acme",
        items: [
          expect.objectContaining({ id: created.id, prefix: created.prefix, revoked_at: null }),
          expect.objectContaining({ id: defaults.id, revoked_at: null }),
        ],
      });
      // Only the hash is stored: no listing ever shows a key again.
      expect(JSON.stringify(listed)).not.toContain(String(created.key));

      expect(await run("key", "revoke", "--tenant", "acme", String(created.id))).toMatchObject({
        id: created.id,
        tenant: "acme",
        revoked: true,
        revoked_at: expect.any(String),
      });
      expect((await run("key", "list", "--tenant", "acme")).items).toEqual([
        expect.objectContaining({ id: created.id, revoked_at: expect.any(String) }),
        expect.objectContaining({ id: defaults.id, revoked_at: null }),
      ]);
      expect((await run("tenant", "list")).items).toContainEqual(
        expect.objectContaining({ name: "acme", active_keys: 1 }),
      );
      expect(await refusal("key", "revoke", "--tenant", "acme", String(created.id))).toMatchObject({
        argument: "<key-id>",
      });
    },
    SLOW,
  );

  it(
    "refuses what only the database can tell is wrong, naming the argument",
    async () => {
      expect(await refusal("key", "list", "--tenant", "nobody")).toMatchObject({
        argument: "--tenant",
        message: expect.stringContaining("nobody"),
      });
      expect(await refusal("key", "revoke", "--tenant", "acme", "key_nope")).toMatchObject({ argument: "<key-id>" });
      await run("tenant", "create", "twice");
      expect(await refusal("tenant", "create", "twice")).toMatchObject({
        argument: "<name>",
        message: expect.stringContaining("already exists"),
      });
    },
    SLOW,
  );
});

describe("the admin CLI as npm runs it", () => {
  it(
    "prints JSON and exits 0; exits 2 naming a bad argument, before or after opening the database",
    async () => {
      const created = await admin("tenant", "create", "spawned");
      expect(created.code, created.stderr).toBe(0);
      expect(jsonOutput(created.stdout)).toMatchObject({ id: expect.stringMatching(/^tnt_/), name: "spawned" });

      const unknownTenant = await admin("key", "create", "--tenant", "nobody");
      expect(unknownTenant.code).toBe(2);
      expect(errorOf(unknownTenant.stderr)).toMatchObject({ code: "bad_argument", details: { argument: "--tenant" } });

      const bad = await admin("key", "create", "--tenant", "spawned", "--permissions", "AIManager:Everything");
      expect(bad.code).toBe(2);
      expect(bad.stdout).toBe("");
      expect(errorOf(bad.stderr)).toMatchObject({
        details: { argument: "--permissions" },
        message: expect.stringContaining("AIManager:Everything"),
      });

      const help = await runScript("admin.ts", ["--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toContain("tenant create <name>");
      expect(help.stdout).toContain("key revoke --tenant <name> <key-id>");
    },
    SLOW,
  );
});

describe("admin argument parsing", () => {
  it.each([
    { args: [], argument: "<command>" },
    { args: ["tenants", "list"], argument: "tenants" },
    { args: ["tenant", "delete", "x"], argument: "delete" },
    { args: ["tenant", "create"], argument: "<name>" },
    { args: ["tenant", "create", "a b"], argument: "<name>" },
    { args: ["tenant", "create", "-x"], argument: "-x" },
    { args: ["tenant", "create", "acme", "extra"], argument: "extra" },
    { args: ["tenant", "list", "--tenant", "acme"], argument: "--tenant" },
    { args: ["key", "create"], argument: "--tenant" },
    { args: ["key", "create", "--tenant", "acme", "--permissions", ""], argument: "--permissions" },
    { args: ["key", "create", "--tenant", "acme", "--permissions", "AIManager:Root"], argument: "--permissions" },
    { args: ["key", "create", "--tenant", "acme", "--name", ""], argument: "--name" },
    { args: ["key", "list", "--tenant"], argument: "--tenant" },
    { args: ["key", "revoke", "--tenant", "acme"], argument: "<key-id>" },
    {
      args: ["key", "revoke", "--tenant", "acme", "--permissions", "AIManager:Admin", "key_1"],
      argument: "--permissions",
    },
    { args: ["key", "list", "--tenant", "acme", "--bogus"], argument: "--bogus" },
    { args: ["--state-dir", "", "tenant", "list"], argument: "--state-dir" },
  ])("$args names $argument", ({ args, argument }) => {
    let thrown: unknown;
    try {
      parseAdminArgs(args);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect(thrown).toMatchObject({ argument });
  });

  it("parses every command", () => {
    expect(parseAdminArgs(["tenant", "create", "acme"])).toEqual({ command: { kind: "tenant create", name: "acme" } });
    expect(parseAdminArgs(["--state-dir", "/tmp/x", "tenant", "list"])).toEqual({
      command: { kind: "tenant list" },
      stateDir: "/tmp/x",
    });
    expect(
      parseAdminArgs([
        "key",
        "create",
        "--tenant",
        "acme",
        "--permissions",
        "AIManager:Admin, AIManager:Admin,AIManager:RunEvals",
      ]),
    ).toEqual({
      command: {
        kind: "key create",
        tenant: "acme",
        name: "cli",
        permissions: ["AIManager:Admin", "AIManager:RunEvals"],
      },
    });
    expect(parseAdminArgs(["key", "list", "--tenant=acme"])).toEqual({ command: { kind: "key list", tenant: "acme" } });
    expect(parseAdminArgs(["key", "revoke", "key_1", "--tenant", "acme"])).toEqual({
      command: { kind: "key revoke", tenant: "acme", keyId: "key_1" },
    });
    expect(parseAdminArgs(["help"])).toEqual({ command: "help" });
    expect(parseAdminArgs(["key", "--help"])).toEqual({ command: "help" });
  });
});
