import { describe, expect, it } from "vitest";
import {
  afterCompletion,
  afterHarnessError,
  afterLeaseEnd,
  mayPass,
  objectStorageLost,
  statusWithoutObject,
  type AttemptStatus,
} from "../../../src/core/simulation/status.js";

const all: AttemptStatus[] = ["active", "completed", "harness_failed", "expired"];

describe("attempt status rules", () => {
  it("a harness error makes every status harness_failed, except the lease ending, which changes nothing", () => {
    expect(all.map((s) => afterHarnessError(s, "missing_reference"))).toEqual([
      "harness_failed",
      "harness_failed",
      "harness_failed",
      "harness_failed",
    ]);
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
    expect(all.map(mayPass)).toEqual([true, true, false, false]);
  });

  it("an attempt whose lease ended before the agent completed can never pass", () => {
    const status = afterLeaseEnd("active");
    expect({ status, mayPass: mayPass(status), afterLateCompletion: mayPass(afterCompletion(status)) }).toEqual({
      status: "expired",
      mayPass: false,
      afterLateCompletion: false,
    });
  });

  it("without the object, D1's status stands only once the object could have retired itself", () => {
    const expires = 1_000_000;
    const retention = 500;
    expect(all.map((s) => statusWithoutObject(s, expires, retention, expires + retention))).toEqual(all);
    expect(statusWithoutObject("mystery", expires, retention, expires + retention)).toBe("harness_failed");
    // Storage gone during the lease or the retention time after it: lost, so it can no longer pass.
    expect(all.map((s) => statusWithoutObject(s, expires, retention, expires + retention - 1))).toEqual(
      all.map(() => "harness_failed"),
    );
    expect(statusWithoutObject("active", expires, retention, expires - 60_000)).toBe("harness_failed");
    expect([
      objectStorageLost(expires, retention, expires - 1),
      objectStorageLost(expires, retention, expires + retention - 1),
      objectStorageLost(expires, retention, expires + retention),
    ]).toEqual([true, true, false]);
  });
});
