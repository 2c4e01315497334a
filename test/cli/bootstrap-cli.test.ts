/**
 * `toolproof bootstrap` as an operator runs it after a deploy: bin/toolproof.mjs spawned against a
 * started toolproof whose database holds no API key (a fresh deployment) and whose Worker has the
 * TOOLPROOF_BOOTSTRAP_TOKEN secret; the token comes from an environment variable, never a flag.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startToolproof, type RunningToolproof } from "../../scripts/local-server.js";
import { finished, ROOT, type Finished } from "./run-script.js";

const BIN = path.join(ROOT, "bin/toolproof.mjs");
const SLOW = 300_000;
const TOKEN = "bootstrap-token-for-the-cli-test-0123456789abcdef";
const REFUSED =
  "toolproof: POST /api/bootstrap answered 401 unauthorized: bootstrap refused: the token is not this deployment's TOOLPROOF_BOOTSTRAP_TOKEN, or the deployment has API keys already (bootstrap mints only the very first key)\n";

const work = mkdtempSync(path.join(tmpdir(), "toolproof-bootstrap-"));
let server: RunningToolproof | undefined;

beforeAll(async () => {
  server = await startToolproof({
    port: 0,
    stateDir: path.join(work, "state"),
    quiet: true,
    demoTenant: false,
    vars: { TOOLPROOF_BOOTSTRAP_TOKEN: TOKEN },
  });
}, SLOW);
afterAll(async () => {
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

function url(): string {
  if (!server) throw new Error("the server did not start");
  return server.url;
}

/** The CLI as an operator runs it, with only PATH and `env` in its environment. */
function toolproof(args: string[], env: Record<string, string>): Promise<Finished> {
  return finished(process.execPath, [BIN, ...args], env);
}

describe("toolproof bootstrap", () => {
  it(
    "refuses a token given as a flag, a missing token variable and a wrong token, before any key exists",
    async () => {
      expect(await toolproof(["bootstrap", "--url", url(), "--token", TOKEN], {})).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "toolproof: --token: the bootstrap token is read from an environment variable, never a flag (a flag's value stays in shell history); set TOOLPROOF_BOOTSTRAP_TOKEN, or name another variable with --token-env NAME\n",
      });
      expect(await toolproof(["bootstrap", "--url", url()], {})).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "toolproof: missing the bootstrap token: the environment variable TOOLPROOF_BOOTSTRAP_TOKEN is not set; set it to the value you gave `wrangler secret put TOOLPROOF_BOOTSTRAP_TOKEN` (e.g. read -rs TOOLPROOF_BOOTSTRAP_TOKEN && export TOOLPROOF_BOOTSTRAP_TOKEN)\n",
      });
      expect(await toolproof(["bootstrap", "--url", url(), "--token-env", "DEPLOY-TOKEN"], {})).toEqual({
        code: 2,
        stdout: "",
        stderr:
          "toolproof: --token-env: expected the name of an environment variable (letters, digits, '_'), got \"DEPLOY-TOKEN\"\n",
      });
      expect(await toolproof(["bootstrap"], { TOOLPROOF_BOOTSTRAP_TOKEN: TOKEN })).toEqual({
        code: 2,
        stdout: "",
        stderr:
          'toolproof: missing --url <url> (or TOOLPROOF_URL): where toolproof runs; run "toolproof bootstrap --help" for the options\n',
      });
      expect(
        await toolproof(["bootstrap", "--url", url()], {
          TOOLPROOF_BOOTSTRAP_TOKEN: "not-the-token-not-the-token-not-the-token",
        }),
      ).toEqual({ code: 2, stdout: "", stderr: REFUSED });
    },
    SLOW,
  );

  it(
    "mints the first key once, from the variable --token-env names, prints it with what to do next, and is refused after",
    async () => {
      const minted = await toolproof(
        ["bootstrap", "--url", `${url()}/`, "--tenant", "acme", "--token-env", "DEPLOY_TOKEN"],
        { DEPLOY_TOKEN: TOKEN },
      );
      const key = /tpk_[A-Za-z0-9_-]{43}/.exec(minted.stdout)?.[0] ?? "(no key printed)";
      const keyId = /id (key_\S+),/.exec(minted.stdout)?.[1] ?? "(no key id printed)";
      expect(minted).toEqual({
        code: 0,
        stderr: "",
        stdout: [
          `toolproof bootstrap: the first API key of ${url()} (tenant acme)`,
          "",
          `  ${key}`,
          "",
          `  id ${keyId}, name "bootstrap admin", permissions AIManager:ManageTools, AIManager:RunEvals, AIManager:Admin, AIManager:RunRealTools`,
          "",
          "This is the only time the key is shown: toolproof stores only its SHA-256. Keep it in a secret store now.",
          "Next:",
          `  1. export TOOLPROOF_URL=${url()} TOOLPROOF_API_KEY=<the key above>`,
          "  2. mint narrower keys for CI and daily use, keeping this one for key management:",
          `     curl -s $TOOLPROOF_URL/api/keys -H "Authorization: Bearer $TOOLPROOF_API_KEY" -H 'content-type: application/json' -d '{"name": "ci", "permissions": ["AIManager:RunEvals"]}'`,
          "  3. bootstrap is shut for good now that a key exists; remove its secret: npx wrangler secret delete TOOLPROOF_BOOTSTRAP_TOKEN",
          "",
        ].join("\n"),
      });
      // The printed key is the one the deployment now knows.
      const keys = await fetch(`${url()}/api/keys`, { headers: { authorization: `Bearer ${key}` } });
      expect({
        status: keys.status,
        ids: ((await keys.json()) as { items: Array<{ id: string }> }).items.map((item) => item.id),
      }).toEqual({ status: 200, ids: [keyId] });
      // Shut for good, the right token included; --json carries the error in the API's shape too.
      const again = await toolproof(["bootstrap", "--url", url(), "--json"], { TOOLPROOF_BOOTSTRAP_TOKEN: TOKEN });
      expect({ ...again, stdout: JSON.parse(again.stdout) }).toEqual({
        code: 2,
        stderr: REFUSED,
        stdout: {
          error: { code: "unauthorized", status: 401, message: REFUSED.slice("toolproof: ".length, -1), problems: [] },
        },
      });
    },
    SLOW,
  );
});
