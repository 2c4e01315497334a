/**
 * `npm start`'s deployment secret: made once in the state directory (owner-only), kept across
 * restarts, handed to the Worker, so a model connection stored in one session still opens in the
 * next. Against the shared model server, through the real local server.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureDeploymentSecret } from "../../scripts/local/deployment-secret.js";
import { startToolproof } from "../../scripts/local-server.js";
import { modelServer, uniqueModel } from "../support/model-server/in-tests.js";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolproof-secret-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const SLOW = 300_000;

describe("ensureDeploymentSecret", () => {
  it("makes an owner-only secret once and returns the same one after", async () => {
    const dir = tempDir();
    const first = await ensureDeploymentSecret(dir);
    expect([
      first.created,
      first.file,
      statSync(first.file).mode & 0o777,
      Buffer.from(first.secret, "base64url").length,
    ]).toEqual([true, path.join(dir, "deployment-secret.env"), 0o600, 32]);
    expect(readFileSync(first.file, "utf8")).toContain(`\nTOOLPROOF_SECRET=${first.secret}\n`);
    chmodSync(first.file, 0o644);
    expect(await ensureDeploymentSecret(dir)).toEqual({ ...first, created: false });
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
  });

  it("refuses a damaged file instead of replacing the secret that opens the stored keys", async () => {
    const dir = tempDir();
    const file = path.join(dir, "deployment-secret.env");
    writeFileSync(file, "TOOLPROOF_SECRET=short\n");
    await expect(ensureDeploymentSecret(dir)).rejects.toThrow(
      `${file} does not hold TOOLPROOF_SECRET=<32 or more random bytes as base64url>; restore it (connections stored under it cannot be opened without it), or delete it to make a new one and PUT every connection again with its api_key`,
    );
  });
});

describe("npm start and model connections", () => {
  it(
    "keeps the secret across restarts: a connection stored before a restart still opens after it",
    async () => {
      const stateDir = tempDir();
      const server = modelServer();
      const model = uniqueModel("restart");
      await server.script(model, { api_key: "sk-local-restart", default: [{ content: "ok" }] });

      const first = await startToolproof({ port: 0, stateDir, quiet: true, seedDemo: false });
      let secret: string;
      try {
        secret = readFileSync(first.secretFile, "utf8");
        const put = await fetch(`${first.url}/api/connections/local`, {
          method: "PUT",
          headers: { authorization: `Bearer ${first.demoKey}`, "content-type": "application/json" },
          body: JSON.stringify({ base_url: server.openaiBaseUrl, model, api_key: "sk-local-restart" }),
        });
        expect(put.status).toBe(201);
      } finally {
        await first.stop();
      }

      const second = await startToolproof({ port: 0, stateDir, quiet: true, seedDemo: false });
      try {
        expect(readFileSync(second.secretFile, "utf8")).toBe(secret);
        const tested = await fetch(`${second.url}/api/connections/local/test`, {
          method: "POST",
          headers: { authorization: `Bearer ${second.demoKey}` },
        });
        expect({ status: tested.status, body: await tested.json() }).toEqual({
          status: 200,
          body: { ok: true, connection: "local", model, latency_ms: expect.any(Number) },
        });
      } finally {
        await second.stop();
      }
      expect((await server.log(model)).map((r) => [r.status, r.headers.authorization])).toEqual([
        [200, "Bearer sk-local-restart"],
      ]);
    },
    SLOW,
  );
});
