import { describe, expect, it } from "vitest";
import { newTenant } from "./helpers.js";
import { counterTool, createSimulation, dispatchJson } from "./simulation-helpers.js";

describe("smoke", () => {
  it("creates a simulation and dispatches", async () => {
    const tenant = await newTenant();
    const sim = await createSimulation(tenant, { tools: [{ inline: counterTool }], attempts: 2, lease_seconds: 600 });
    const attempt = sim.attempts[0]!;
    expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 3 } })).toEqual({ status: 200, body: { previous: 0 } });
    expect(await dispatchJson(attempt, { tool: "counter", arguments: { n: 4 } })).toEqual({ status: 200, body: { previous: 3 } });
  });
});
