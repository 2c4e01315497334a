/**
 * What of a deploy can be checked without a Cloudflare account, in `npm test`:
 *
 * - `wrangler deploy --dry-run` bundles the Worker and validates wrangler.toml (a config wrangler
 *   warns about fails here too).
 * - The upload is under the Workers size limit, printed raw and gzipped. The limit checked is the
 *   strictest one Cloudflare has published, the Free plan's 3 MiB gzipped (Paid: 10 MiB gzipped),
 *   so the bundle deploys on any account; Cloudflare has since moved to one 64 MiB uncompressed
 *   limit on every plan, checked as well. https://developers.cloudflare.com/workers/platform/limits/#worker-size
 * - compatibility_date is not later than the workerd builds the tests and `npm start` run on (a
 *   later date would run locally under flags no test saw).
 * - `npm run deploy` refuses with a clear message, and runs nothing, before it could half deploy.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
const WRANGLER = path.join(ROOT, "node_modules/wrangler/bin/wrangler.js");
const MIB = 1024 * 1024;
/** Workers Free, after compression: the strictest published Worker size limit. */
const GZIP_LIMIT_BYTES = 3 * MIB;
/** The uncompressed limit Cloudflare documents today for every plan. */
const RAW_LIMIT_BYTES = 64 * MIB;
const work = mkdtempSync(path.join(tmpdir(), "toolproof-deploy-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(args: string[], env: NodeJS.ProcessEnv = {}): { code: number | null; output: string } {
  const result = spawnSync(process.execPath, args, {
    cwd: ROOT,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0", NO_COLOR: "1", ...env },
  });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The files wrangler uploads: the modules of the bundle (not its source map or README). */
function uploadedModules(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /\.(m?js|wasm|txt|html|sql|bin)$/.test(name))
    .map((name) => path.join(dir, name));
}

describe("wrangler deploy --dry-run", () => {
  const outDir = path.join(work, "bundle");
  const dryRun = run([
    WRANGLER,
    "deploy",
    "--dry-run",
    "--outdir",
    outDir,
    "--config",
    path.join(ROOT, "wrangler.toml"),
  ]);

  it("bundles the Worker from a config wrangler accepts without a warning", () => {
    expect({
      code: dryRun.code,
      warnings: dryRun.output.split("\n").filter((line) => /\[WARNING\]|\[ERROR\]/.test(line)),
    }).toEqual({ code: 0, warnings: [] });
    expect(dryRun.output).toContain("--dry-run: exiting now.");
  });

  it("stays under the Workers size limit, raw and gzipped", () => {
    const modules = uploadedModules(outDir);
    const raw = modules.reduce((sum, file) => sum + readFileSync(file).length, 0);
    const gzipped = modules.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);
    // wrangler's own figures, as it prints them before an upload.
    const reported = /Total Upload: ([\d.]+) KiB \/ gzip: ([\d.]+) KiB/.exec(dryRun.output);
    console.log(
      `Worker bundle: ${modules.length} module(s), ${(raw / MIB).toFixed(2)} MiB raw, ${(gzipped / MIB).toFixed(2)} MiB gzipped ` +
        `(wrangler: ${reported?.[1] ?? "?"} KiB / gzip ${reported?.[2] ?? "?"} KiB); limits checked: ${GZIP_LIMIT_BYTES / MIB} MiB gzipped, ${RAW_LIMIT_BYTES / MIB} MiB raw`,
    );
    expect(modules.length).toBeGreaterThan(0);
    expect(reported).not.toBeNull();
    const wranglerGzip = Number(reported?.[2]) * 1024;
    expect({
      raw_under_limit: raw <= RAW_LIMIT_BYTES,
      gzip_under_limit: gzipped <= GZIP_LIMIT_BYTES,
      wrangler_gzip_under_limit: wranglerGzip <= GZIP_LIMIT_BYTES,
    }).toEqual({
      raw_under_limit: true,
      gzip_under_limit: true,
      wrangler_gzip_under_limit: true,
    });
  });
});

describe("wrangler.toml's compatibility date", () => {
  it("is not later than any bundled workerd's", async () => {
    const config = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
    const date = /^compatibility_date\s*=\s*"(\d{4}-\d\d-\d\d)"/m.exec(config)?.[1];
    const require = createRequire(import.meta.url);
    // The workerd the tests run on (the vitest plugin's) and the one wrangler and `npm start` run on.
    const builds = [
      require.resolve("workerd/package.json"),
      createRequire(require.resolve("wrangler")).resolve("workerd/package.json"),
    ];
    const dates = await Promise.all(
      builds.map(async (file) => {
        const workerd: unknown = await import(path.join(path.dirname(file), "lib/main.js"));
        const supported =
          typeof workerd === "object" && workerd !== null ? Reflect.get(workerd, "compatibilityDate") : undefined;
        return { build: path.relative(ROOT, path.dirname(file)), supported: String(supported) };
      }),
    );
    expect(date).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(dates.filter(({ supported }) => !/^\d{4}-\d\d-\d\d$/.test(supported) || supported < String(date))).toEqual(
      [],
    );
  });
});

describe("npm run deploy", () => {
  const deploy = path.join(ROOT, "scripts/deploy.ts");
  // A home with no wrangler login in it, and no API token: a machine that never logged in.
  const home = path.join(work, "home");
  const loggedOut = {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, ".config"),
    CLOUDFLARE_API_TOKEN: "",
    CLOUDFLARE_ACCOUNT_ID: "",
  };

  it("refuses the shipped wrangler.toml, whose D1 id is the local placeholder, and says what to do", () => {
    expect(run(["--import", "tsx", deploy], loggedOut)).toEqual({
      code: 1,
      output: `npm run deploy: ${path.join(ROOT, "wrangler.toml")}: database_id of "toolproof" is the local placeholder, not a database on your account. Create it once with \`npx wrangler d1 create toolproof\` and put the database_id it prints into [[d1_databases]] (README, Deploy).\n`,
    });
  }, 60_000);

  it("stops before any migration when wrangler is not logged in", () => {
    const config = path.join(ROOT, "wrangler.deploy-test.toml");
    writeFileSync(
      config,
      readFileSync(path.join(ROOT, "wrangler.toml"), "utf8").replace(
        "00000000-0000-4000-8000-000000000000",
        "0f5bd8a4-1b7e-4c1a-9d51-7c6b2a3e9f10",
      ),
    );
    try {
      expect(run(["--import", "tsx", deploy, "--config", config], loggedOut)).toEqual({
        code: 1,
        output:
          "npm run deploy: wrangler is not logged in to Cloudflare: run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID for CI), then `npm run deploy` again. Nothing was deployed.\n",
      });
    } finally {
      rmSync(config, { force: true });
    }
  }, 60_000);
});
