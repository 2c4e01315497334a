/** Starts the callback receiver once per vitest run (root globalSetup) and provides its address to tests. */
import type { TestProject } from "vitest/node";
import { startReceiver } from "./server.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** http://127.0.0.1:<port> of the callback receiver (no trailing slash). */
    receiverUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const receiver = await startReceiver();
  project.provide("receiverUrl", receiver.url);
  return () => receiver.close();
}
