/** The local upstream (server.ts) from a test file, in Node or in workerd, through vitest's inject. */
import { inject } from "vitest";
import type { UpstreamRequest } from "./server.js";

export interface UpstreamControl {
  url: string;
  requests(): Promise<UpstreamRequest[]>;
  clear(): Promise<void>;
}

export function upstream(): UpstreamControl {
  const url = inject("upstreamUrl");
  return {
    url,
    async requests() {
      const response = await fetch(`${url}/__log`);
      // SAFETY: server.ts answers {requests: UpstreamRequest[]}.
      return ((await response.json()) as { requests: UpstreamRequest[] }).requests;
    },
    async clear() {
      await fetch(`${url}/__log`, { method: "DELETE" });
    },
  };
}
