/** A connection config for adapter tests against the model server: short timeouts, no retries unless asked. */
import type { ModelConnectionConfig } from "../../../src/adapters/model/openai-client.js";

export function testConnection(
  base_url: string,
  model: string,
  overrides: Partial<ModelConnectionConfig> = {},
): ModelConnectionConfig {
  return {
    name: "agent",
    base_url,
    model,
    api_key: "sk-test-0001",
    api_version: null,
    headers: {},
    timeout_ms: 5000,
    max_retries: 0,
    max_concurrency: 4,
    structured_output: true,
    ...overrides,
  };
}
