import { describe, expect, it } from "vitest";
import { afterCompletion, afterHarnessError, afterLeaseEnd, mayPass, type AttemptStatus } from "../../../src/core/simulation/status.js";

const all: AttemptStatus[] = ["active", "completed", "harness_failed", "expired"];

describe("attempt status rules", () => {
  it("a harness error makes every status harness_failed, except the lease ending, which changes nothing", () => {
    expect(all.map((s) => afterHarnessError(s, "missing_reference"))).toEqual(["harness_failed", "harness_failed", "harness_failed", "harness_failed"]);
    expect(all.map((s) => afterHarnessError(s, "lease_expired"))).toEqual(all);
  });

  it("completion and lease end move only an active attempt", () => {
    expect(all.map(afterCompletion)).toEqual(["completed", "completed", "harness_failed", "expired"]);
    expect(all.map(afterLeaseEnd)).toEqual(["expired", "completed", "harness_failed", "expired"]);
  });

  it("harness_failed is sticky and never passes", () => {
    let status: AttemptStatus = afterHarnessError("active", "output_schema");
    status = afterCompletion(status);
    status = afterLeaseEnd(status);
    expect({ status, mayPass: mayPass(status) }).toEqual({ status: "harness_failed", mayPass: false });
    expect(all.map(mayPass)).toEqual([true, true, false, true]);
  });
});
