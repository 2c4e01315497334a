/** Starts the local upstream (HTTP tool + MCP server) once per vitest run and provides its address to tests. */
import type { TestProject } from "vitest/node";
import { startUpstream } from "./server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** http://127.0.0.1:<port> of the local upstream (no trailing slash). */
    upstreamUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const upstream = await startUpstream();
  project.provide("upstreamUrl", upstream.url);
  return () => upstream.close();
}
