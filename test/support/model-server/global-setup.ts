/**
 * Starts the shared model server once per vitest run (root globalSetup, so both projects see it)
 * and hands its address to every test file through provide/inject: tests call modelServer() from
 * in-tests.ts. Scripts are per model name, so files running at once never interfere.
 */
import type { TestProject } from "vitest/node";
import { startModelServer } from "./server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** http://127.0.0.1:<port> of the shared model server (no trailing slash). */
    modelServerUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startModelServer();
  project.provide("modelServerUrl", server.url);
  return () => server.close();
}
