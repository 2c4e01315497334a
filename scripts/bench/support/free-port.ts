/** A loopback port nothing listens on now (the inspector needs a fixed one before the runtime starts). */
import net from "node:net";

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no loopback port");
  return address.port;
}
