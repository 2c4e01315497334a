/**
 * The admin CLI's commands: parsing (pure, so mistakes are reported before any database is
 * opened) and running them against a toolproof database. Every result is a JSON document.
 */
import { parseArgs } from "node:util";
import { asc, count, isNull } from "drizzle-orm";
import { createApiKey, createTenant, findTenantByName, listKeys, revokeKey } from "../../src/adapters/d1/api-keys.js";
import { apiKeys, tenants } from "../../src/adapters/d1/schema.js";
import { ALL_PERMISSIONS, type Database, type Permission } from "../../src/worker/platform/env.js";
import { fromParseArgsError, UsageError } from "./usage-error.js";

export type AdminCommand =
  | { kind: "tenant create"; name: string }
  | { kind: "tenant list" }
  | { kind: "key create"; tenant: string; name: string; permissions: Permission[] }
  | { kind: "key list"; tenant: string }
  | { kind: "key revoke"; tenant: string; keyId: string };

export interface ParsedAdminArgs {
  command: AdminCommand | "help";
  stateDir?: string;
}

/** Keys get everything but Admin unless asked: Admin manages keys and connections, which most callers never need. */
export const DEFAULT_KEY_PERMISSIONS: readonly Permission[] = ["AIManager:ManageTools", "AIManager:RunEvals"];
const DEFAULT_KEY_NAME = "cli";
const TENANT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export const ADMIN_HELP = `Usage: npm run --silent admin -- <command> [options]

Manages tenants and API keys in the local toolproof database (the one npm start serves),
whether or not the server is running. Prints JSON.

Commands:
  tenant create <name>                     create a tenant (letters, digits, '_', '.', '-'; at most 64)
  tenant list                              list tenants
  key create --tenant <name> [--name <label>] [--permissions <p1,p2,...>]
                                           create an API key; the key is printed once, only its hash is kept
                                           permissions: ${ALL_PERMISSIONS.join(", ")}
                                           (default ${DEFAULT_KEY_PERMISSIONS.join(",")})
  key list --tenant <name>                 list a tenant's keys (prefix, permissions, last use, revocation)
  key revoke --tenant <name> <key-id>      revoke a key

Options:
  --state-dir <dir>                        local state (default .toolproof/state)
  -h, --help                               show this help

Exit codes: 0 done, 2 a bad argument (named in the error), 1 anything else.
`;

const COMMAND_OPTIONS: Record<AdminCommand["kind"], ReadonlySet<string>> = {
  "tenant create": new Set(),
  "tenant list": new Set(),
  "key create": new Set(["tenant", "name", "permissions"]),
  "key list": new Set(["tenant"]),
  "key revoke": new Set(["tenant"]),
};

export function parseAdminArgs(argv: readonly string[]): ParsedAdminArgs {
  let parsed: ReturnType<typeof parseAll>;
  try {
    parsed = parseAll(argv);
  } catch (error) {
    throw fromParseArgsError(error);
  }
  const { values, positionals } = parsed;
  const stateDir = values["state-dir"];
  if (stateDir !== undefined && stateDir.trim() === "")
    throw new UsageError("--state-dir", "--state-dir must name a directory");
  const result = (command: AdminCommand | "help"): ParsedAdminArgs =>
    stateDir === undefined ? { command } : { command, stateDir };

  if (values.help || positionals[0] === "help") return result("help");
  const [group, action, ...rest] = positionals;
  if (group === undefined)
    throw new UsageError("<command>", "expected a command: tenant create|list, key create|list|revoke");
  if (group !== "tenant" && group !== "key")
    throw new UsageError(group, `unknown command "${group}": expected "tenant" or "key"`);
  const actions = group === "tenant" ? ["create", "list"] : ["create", "list", "revoke"];
  if (action === undefined || !actions.includes(action)) {
    throw new UsageError(
      action ?? "<action>",
      `expected "${group} ${actions.join(`" or "${group} `)}"${action === undefined ? "" : `, got "${group} ${action}"`}`,
    );
  }
  // SAFETY: group and action were checked against the command table just above.
  const kind = `${group} ${action}` as AdminCommand["kind"];
  for (const option of ["tenant", "name", "permissions"] as const) {
    if (values[option] !== undefined && !COMMAND_OPTIONS[kind].has(option)) {
      throw new UsageError(`--${option}`, `"${kind}" does not take --${option}`);
    }
  }

  const expectPositionals = (names: string[]): string[] => {
    if (rest.length > names.length)
      throw new UsageError(rest[names.length] ?? "", `unexpected argument "${rest[names.length]}" for "${kind}"`);
    return names.map((name, index) => {
      const value = rest[index];
      if (value === undefined || value === "") throw new UsageError(name, `"${kind}" needs ${name}`);
      return value;
    });
  };
  const tenantOption = (): string => {
    const tenant = values.tenant;
    if (tenant === undefined || tenant === "") throw new UsageError("--tenant", `"${kind}" needs --tenant <name>`);
    return tenant;
  };

  switch (kind) {
    case "tenant create": {
      const [name = ""] = expectPositionals(["<name>"]);
      if (!TENANT_NAME.test(name)) {
        throw new UsageError(
          "<name>",
          `tenant name "${name}" is not allowed: use 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit`,
        );
      }
      return result({ kind, name });
    }
    case "tenant list":
      expectPositionals([]);
      return result({ kind });
    case "key create": {
      expectPositionals([]);
      const name = values.name ?? DEFAULT_KEY_NAME;
      if (name.trim() === "" || name.length > 100) throw new UsageError("--name", "--name must be 1 to 100 characters");
      return result({ kind, tenant: tenantOption(), name, permissions: parsePermissions(values.permissions) });
    }
    case "key list":
      expectPositionals([]);
      return result({ kind, tenant: tenantOption() });
    case "key revoke": {
      const [keyId = ""] = expectPositionals(["<key-id>"]);
      return result({ kind, tenant: tenantOption(), keyId });
    }
  }
}

function parseAll(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: {
      tenant: { type: "string" },
      name: { type: "string" },
      permissions: { type: "string" },
      "state-dir": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
    allowPositionals: true,
  });
}

function parsePermissions(raw: string | undefined): Permission[] {
  if (raw === undefined) return [...DEFAULT_KEY_PERMISSIONS];
  const names = raw
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (names.length === 0)
    throw new UsageError("--permissions", `--permissions needs at least one of: ${ALL_PERMISSIONS.join(", ")}`);
  const permissions: Permission[] = [];
  for (const name of names) {
    const permission = ALL_PERMISSIONS.find((p) => p === name);
    if (!permission)
      throw new UsageError("--permissions", `unknown permission "${name}": expected ${ALL_PERMISSIONS.join(", ")}`);
    if (!permissions.includes(permission)) permissions.push(permission);
  }
  return permissions;
}

/** Runs a command; mistakes that only the database can reveal (unknown tenant, ...) are UsageErrors too. */
export async function runAdminCommand(db: Database, command: AdminCommand): Promise<unknown> {
  switch (command.kind) {
    case "tenant create": {
      if (await findTenantByName(db, command.name))
        throw new UsageError("<name>", `a tenant named "${command.name}" already exists`);
      return createTenant(db, command.name);
    }
    case "tenant list": {
      const rows = await db
        .select({ id: tenants.id, name: tenants.name, created_at: tenants.created_at })
        .from(tenants)
        .orderBy(asc(tenants.created_at), asc(tenants.name))
        .all();
      const active = await db
        .select({ tenant_id: apiKeys.tenant_id, active_keys: count() })
        .from(apiKeys)
        .where(isNull(apiKeys.revoked_at))
        .groupBy(apiKeys.tenant_id)
        .all();
      const activeByTenant = new Map(active.map((row) => [row.tenant_id, row.active_keys]));
      return { items: rows.map((row) => ({ ...row, active_keys: activeByTenant.get(row.id) ?? 0 })) };
    }
    case "key create": {
      const tenant = await tenantNamed(db, command.tenant);
      const { key, record } = await createApiKey(db, {
        tenantId: tenant.id,
        name: command.name,
        permissions: command.permissions,
      });
      return {
        key,
        ...record,
        tenant: tenant.name,
        note: "The key is shown only now; toolproof stores its SHA-256 hash. Send it as Authorization: Bearer <key>.",
      };
    }
    case "key list": {
      const tenant = await tenantNamed(db, command.tenant);
      return { tenant: tenant.name, items: await listKeys(db, tenant.id) };
    }
    case "key revoke": {
      const tenant = await tenantNamed(db, command.tenant);
      if (!(await revokeKey(db, tenant.id, command.keyId))) {
        const known = (await listKeys(db, tenant.id)).some((key) => key.id === command.keyId);
        throw new UsageError(
          "<key-id>",
          known ? `key ${command.keyId} is already revoked` : `tenant "${tenant.name}" has no key ${command.keyId}`,
        );
      }
      const revoked = (await listKeys(db, tenant.id)).find((key) => key.id === command.keyId);
      return { id: command.keyId, tenant: tenant.name, revoked: true, revoked_at: revoked?.revoked_at ?? null };
    }
  }
}

async function tenantNamed(db: Database, name: string): Promise<{ id: string; name: string }> {
  const tenant = await findTenantByName(db, name);
  if (!tenant) throw new UsageError("--tenant", `no tenant named "${name}" (see: tenant list)`);
  return tenant;
}
