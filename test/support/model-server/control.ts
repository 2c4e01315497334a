/**
 * The model server's control endpoints as functions, over fetch: the same calls work from Node
 * tests, from tests inside workerd and from the benchmark script.
 */
import type { LoggedRequest, ModelScript, ModelServerStats } from "./script.js";

export interface ModelServerControl {
  /** The server's root, e.g. http://127.0.0.1:43121. */
  url: string;
  /** The OpenAI base URL for connections and clients: `${url}/v1`. */
  openaiBaseUrl: string;
  /** Registers (replaces) the script of `model`, resetting its faults, judge counters and log. */
  script(model: string, script: ModelScript): Promise<void>;
  /** Every request received for `model` since its script was registered (or the log cleared), in the order they were answered. */
  log(model: string): Promise<LoggedRequest[]>;
  clearLog(model: string): Promise<void>;
  /** The whole server's counters, or one model's. */
  stats(model?: string): Promise<ModelServerStats>;
  /** Resets requests_total and max_in_flight (to the requests in flight now). */
  resetStats(model?: string): Promise<void>;
}

export function modelServerControl(url: string): ModelServerControl {
  const root = url.replace(/\/+$/, "");
  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${root}${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    const parsed: unknown = await response.json();
    if (!response.ok)
      throw new Error(`model server ${method} ${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
    return parsed;
  };
  const model = (name: string) => encodeURIComponent(name);
  const stats = (name?: string) => (name === undefined ? "/__stats" : `/__stats/${model(name)}`);
  return {
    url: root,
    openaiBaseUrl: `${root}/v1`,
    script: async (name, script) => {
      await call("PUT", `/__scripts/${model(name)}`, script);
    },
    log: async (name) => ((await call("GET", `/__log/${model(name)}`)) as { requests: LoggedRequest[] }).requests,
    clearLog: async (name) => {
      await call("DELETE", `/__log/${model(name)}`);
    },
    stats: async (name) => (await call("GET", stats(name))) as ModelServerStats,
    resetStats: async (name) => {
      await call("DELETE", stats(name));
    },
  };
}

/** A model name no other test uses: `${label}-<random>`. */
export function uniqueModel(label: string): string {
  return `${label}-${crypto.randomUUID().slice(0, 8)}`;
}
