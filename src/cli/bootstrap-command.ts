/**
 * `toolproof bootstrap --url <deployment>`: the first API key of a deployed toolproof, from
 * POST /api/bootstrap. The bootstrap token is read from an environment variable (default
 * TOOLPROOF_BOOTSTRAP_TOKEN, another with --token-env), never from a flag: a flag's value stays in
 * shell history and shows in the process list. The key is printed once, with what to do next.
 * Exit 0 minted, 2 anything else (a refused token, bootstrap off, a bad flag, no answer).
 */
import { isRecord } from "../core/policy/fields.js";
import { parseFlags } from "./flags.js";
import { BOOTSTRAP_HELP } from "./help.js";
import { EXIT_OK, UnusableInput, type CliIo } from "./io.js";
import { request, ServiceError, serviceUrl } from "./service.js";

const COMMAND = "bootstrap";
const DEFAULT_TOKEN_ENV = "TOOLPROOF_BOOTSTRAP_TOKEN";
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export async function bootstrapCommand(args: string[], io: CliIo): Promise<number> {
  // parseArgs would call it only an unknown option; say why there is none.
  const tokenFlag = args.find((arg) => arg === "--token" || arg.startsWith("--token="));
  if (tokenFlag !== undefined) {
    throw new UnusableInput(
      "command line",
      `${tokenFlag.split("=")[0]}: the bootstrap token is read from an environment variable, never a flag (a flag's value stays in shell history); set ${DEFAULT_TOKEN_ENV}, or name another variable with --token-env NAME`,
    );
  }
  const flags = parseFlags(
    args,
    {
      url: { type: "string" },
      "token-env": { type: "string" },
      tenant: { type: "string" },
      "key-name": { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    COMMAND,
  );
  if (flags.help) {
    io.out(BOOTSTRAP_HELP);
    return EXIT_OK;
  }
  const url = serviceUrl(flags.url, io.env, COMMAND);
  const tokenEnv = flags["token-env"] ?? DEFAULT_TOKEN_ENV;
  if (!ENV_NAME.test(tokenEnv))
    throw new UnusableInput(
      "--token-env",
      `--token-env: expected the name of an environment variable (letters, digits, '_'), got ${JSON.stringify(tokenEnv)}`,
    );
  const token = io.env[tokenEnv]?.trim() ?? "";
  if (token === "") {
    throw new UnusableInput(
      "command line",
      `missing the bootstrap token: the environment variable ${tokenEnv} is ${io.env[tokenEnv] === undefined ? "not set" : "empty"}; set it to the value you gave \`wrangler secret put TOOLPROOF_BOOTSTRAP_TOKEN\` (e.g. read -rs ${tokenEnv} && export ${tokenEnv})`,
    );
  }
  const body = {
    tenant: flags.tenant ?? "default",
    ...(flags["key-name"] === undefined ? {} : { key_name: flags["key-name"] }),
  };
  const minted = await request({ url, key: token }, "/api/bootstrap", { method: "POST", body });
  if (!isRecord(minted) || typeof minted.key !== "string")
    throw new ServiceError(
      "POST /api/bootstrap",
      201,
      "the service did not answer a key; is --url toolproof's address?",
    );
  io.out(flags.json ? `${JSON.stringify(minted, null, 2)}\n` : renderMinted(minted, url, minted.key));
  return EXIT_OK;
}

function renderMinted(minted: Record<string, unknown>, url: string, key: string): string {
  const tenant = isRecord(minted.tenant) ? String(minted.tenant.name) : "?";
  const permissions = Array.isArray(minted.permissions) ? minted.permissions.map(String).join(", ") : "";
  return [
    `toolproof bootstrap: the first API key of ${url} (tenant ${tenant})`,
    "",
    `  ${key}`,
    "",
    `  id ${String(minted.key_id)}, name "${String(minted.name)}", permissions ${permissions}`,
    "",
    "This is the only time the key is shown: toolproof stores only its SHA-256. Keep it in a secret store now.",
    "Next:",
    `  1. export TOOLPROOF_URL=${url} TOOLPROOF_API_KEY=<the key above>`,
    "  2. mint narrower keys for CI and daily use, keeping this one for key management:",
    `     curl -s $TOOLPROOF_URL/api/keys -H "Authorization: Bearer $TOOLPROOF_API_KEY" -H 'content-type: application/json' -d '{"name": "ci", "permissions": ["AIManager:RunEvals"]}'`,
    "  3. bootstrap is shut for good now that a key exists; remove its secret: npx wrangler secret delete TOOLPROOF_BOOTSTRAP_TOKEN",
    "",
  ].join("\n");
}
