/** The callback receiver (server.ts) from a test file, in Node or in workerd, through vitest's inject. */
import { inject } from "vitest";
import type { ReceivedRequest } from "./server.js";

export interface ReceiverControl {
  /** Where a receiver of this name takes deliveries. */
  urlOf(name: string): string;
  /** The next answers of that receiver (then 200), and an empty log. */
  script(name: string, statuses: number[]): Promise<void>;
  requests(name: string): Promise<ReceivedRequest[]>;
}

export function receiver(): ReceiverControl {
  const base = inject("receiverUrl");
  return {
    urlOf: (name) => `${base}/r/${name}`,
    async script(name, statuses) {
      const response = await fetch(`${base}/__receivers/${name}`, {
        method: "PUT",
        body: JSON.stringify({ statuses }),
      });
      if (!response.ok) throw new Error(`scripting receiver ${name}: ${response.status} ${await response.text()}`);
    },
    async requests(name) {
      const response = await fetch(`${base}/__receivers/${name}`);
      // SAFETY: server.ts answers {requests: ReceivedRequest[]}.
      return ((await response.json()) as { requests: ReceivedRequest[] }).requests;
    },
  };
}
