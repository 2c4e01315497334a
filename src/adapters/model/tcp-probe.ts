/**
 * A TCP connection attempt (cloudflare:sockets), made only after a model call failed with workerd's
 * "Network connection lost.", to say whether anything accepts connections at the endpoint's address
 * (openai-client.ts's ConnectionProbe). It sends nothing and closes at once. cloudflare:sockets is
 * imported when a probe runs, not at load, so Node code that reaches this module through the route
 * modules (the OpenAPI document's test) can still load it.
 */
import type { ConnectionProbe } from "./openai-client.js";

/** A probe never holds a failure report up for longer than this. */
const PROBE_TIMEOUT_MS = 3_000;

export const tcpProbe: ConnectionProbe = async (host, port) => {
  let socket: Socket;
  try {
    const { connect } = await import("cloudflare:sockets");
    socket = connect({ hostname: host, port });
  } catch {
    return "unknown";
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"unknown">((resolve) => (timer = setTimeout(() => resolve("unknown"), PROBE_TIMEOUT_MS)));
  try {
    return await Promise.race([
      socket.opened.then(
        () => "accepted" as const,
        () => "refused" as const,
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    socket.close().catch(() => undefined);
  }
};
