/**
 * Bundles the Worker exactly as a deploy would (`wrangler deploy --dry-run --outdir`), so the
 * local server runs the same code that ships, with wrangler's module rules, defines and
 * nodejs_compat handling, and none of `wrangler dev`'s proxy.
 */
import { spawn } from "node:child_process";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { wranglerBin } from "./wrangler-api.js";

export interface BundledModule {
  type: "ESModule" | "CompiledWasm" | "Text" | "Data";
  path: string;
}

/** Module types by extension, as wrangler's default module rules assign them. */
const MODULE_TYPES: Record<string, BundledModule["type"]> = {
  ".js": "ESModule",
  ".mjs": "ESModule",
  ".wasm": "CompiledWasm",
  ".txt": "Text",
  ".html": "Text",
  ".sql": "Text",
  ".bin": "Data",
};

/** Runs `wrangler deploy --dry-run --outdir <outDir>`; rejects with wrangler's output when it fails. */
export async function bundleWorker(options: { configPath: string; outDir: string }): Promise<void> {
  const args = [wranglerBin(), "deploy", "--dry-run", "--outdir", options.outDir, "--config", options.configPath];
  // process.execPath is the Node the npm script runs on (22, which wrangler requires).
  const { code, output } = await run(process.execPath, args, path.dirname(options.configPath));
  if (code !== 0) {
    throw new Error(
      `bundling the Worker failed (wrangler deploy --dry-run exited with ${code}):\n${output.trim().split("\n").slice(-40).join("\n")}`,
    );
  }
}

/**
 * The modules of a bundle, entry (named after wrangler.toml's `main`) first. Miniflare 5 loads
 * exactly the modules it is given (it no longer follows imports), so every emitted one is listed.
 */
export async function bundledModules(outDir: string, main: string): Promise<BundledModule[]> {
  const entry = path.join(outDir, `${path.basename(main).replace(/\.[cm]?[jt]sx?$/, "")}.js`);
  const others = (await readdir(outDir))
    .map((name) => path.join(outDir, name))
    .filter((file) => file !== entry && MODULE_TYPES[path.extname(file)] !== undefined);
  return [entry, ...others].map((file) => ({ type: MODULE_TYPES[path.extname(file)] ?? "ESModule", path: file }));
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      // No telemetry: the machines this runs on may have no internet, and a local build should not phone home.
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
