#!/usr/bin/env node
// The toolproof CLI. It runs the TypeScript sources directly through tsx's ESM loader, so a fresh
// clone needs only `npm ci` (no build step) and the CLI runs exactly the core code the service runs.
// module.register, which tsx uses, exists from Node 20.6 on.
import { register } from "tsx/esm/api";

register();
const { run } = await import("../src/cli/main.ts");
// exitCode rather than exit(): pending stdout writes (large --json reports into a pipe) still flush.
process.exitCode = await run(process.argv.slice(2));
