import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { buildStaticAssets } from "./scripts/static-assets.js";

/** 32 bytes as base64url, for the workerd tests only (never a real deployment's). */
const TEST_DEPLOYMENT_SECRET = "dGVzdC1vbmx5LWRlcGxveW1lbnQtc2VjcmV0LTMyYiE";

// Two projects: the pure core (and CLI) in plain Node, and the Workers layer inside workerd
// with real D1, Durable Objects and the app's own migrations.
// A timeout only catches a hung test; nothing is timed by it (speed lives in npm run bench).
// vitest's 5 s default fired on whole eval runs and property tests when the 2-core machine was busy.
const HUNG_TEST_MS = 30_000;

export default defineConfig(async () => {
  // wrangler.toml's [assets] directory must exist before the workers project reads the config.
  buildStaticAssets();
  const migrations = await readD1Migrations(path.join(import.meta.dirname, "migrations"));
  return {
    test: {
      // One local OpenAI-compatible model server for the whole run (test/support/model-server):
      // test files reach it with modelServer() (vitest inject), Node and workerd alike.
      globalSetup: [
        "test/support/model-server/global-setup.ts",
        "test/support/receiver/global-setup.ts",
        "test/support/upstream/global-setup.ts",
      ],
      projects: [
        {
          test: {
            name: "core",
            testTimeout: HUNG_TEST_MS,
            environment: "node",
            include: [
              "test/core/**/*.test.ts",
              "test/cli/**/*.test.ts",
              "test/conformance/**/*.test.ts",
              "test/docs/**/*.test.ts",
            ],
          },
        },
        {
          // The dashboard in Debian's headless Chromium (test/browser/support/README.md): Node drives it.
          test: {
            name: "browser",
            environment: "node",
            include: ["test/browser/**/*.test.ts"],
            testTimeout: 180_000,
            hookTimeout: 240_000,
          },
        },
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              // A short idle flush, so evidence copying runs beside every attempt test, not only in its own.
              // TOOLPROOF_SECRET: a fixed test-only deployment secret, so connections can be sealed.
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  EVIDENCE_IDLE_FLUSH_MS: "50",
                  TOOLPROOF_SECRET: TEST_DEPLOYMENT_SECRET,
                  CALLBACK_RETRY_DELAY_SECONDS: "1",
                  TOOLPROOF_PUBLIC_URL: "http://toolproof.test",
                  TOOLPROOF_ALLOW_LOOPBACK_UPSTREAMS: "1",
                },
              },
            }),
          ],
          test: {
            name: "worker",
            testTimeout: HUNG_TEST_MS,
            include: ["test/worker/**/*.test.ts"],
            setupFiles: ["test/worker/setup.ts"],
          },
        },
      ],
    },
  };
});
