import { describe, expect, it } from "vitest";
import type { AdmittedSummary } from "../admission/http.js";
import { admissionLogFields, clip, MAX_LOGGED_MESSAGE_CHARS, MAX_LOGGED_NAME_CHARS, rejectionLogFields } from "./log-fields.js";

function summary(name: string, denial?: string): AdmittedSummary {
  return {
    type: "validation",
    request: {
      uid: "u",
      kind: { group: "serving.knative.dev", version: "v1", kind: "Service" },
      resource: { group: "serving.knative.dev", version: "v1", resource: "services" },
      subResource: "",
      name,
      namespace: "default",
      operation: "CREATE",
      userInfo: { username: "alice", uid: "", groups: [], extra: {} },
      object: undefined,
      oldObject: undefined,
      dryRun: false,
    },
    response: denial === undefined ? { uid: "u", allowed: true } : { uid: "u", allowed: false, status: { metadata: {}, status: "Failure", message: denial, reason: "BadRequest", code: 400 } },
  };
}

describe("log fields", () => {
  it("keeps ordinary values as they are, without a truncated flag", () => {
    const f = admissionLogFields(summary("hello", "validation failed: x"), 12);
    expect(f).toMatchObject({ name: "hello", denial: "validation failed: x", allowed: false, latencyMicros: 12 });
    expect(f.truncated).toBeUndefined();
  });

  it("cuts a 3 MiB name and a 50 MB denial to a bounded line, and says so", () => {
    const f = admissionLogFields(summary("n".repeat(3 * 1024 * 1024), "d".repeat(50_000_000)), 1);
    expect(f.truncated).toBe(true);
    expect((f.name as string).startsWith("n".repeat(MAX_LOGGED_NAME_CHARS) + "…")).toBe(true);
    expect((f.name as string).length).toBeLessThan(MAX_LOGGED_NAME_CHARS + 32);
    expect((f.denial as string).length).toBeLessThan(MAX_LOGGED_MESSAGE_CHARS + 32);
    expect(JSON.stringify(f).length).toBeLessThan(MAX_LOGGED_MESSAGE_CHARS + 8 * (MAX_LOGGED_NAME_CHARS + 32) + 512);
  });

  it("bounds rejection reasons", () => {
    const f = rejectionLogFields("/defaulting", 400, `could not decode body:${"x".repeat(100_000)}\n`, 5);
    expect(f.truncated).toBe(true);
    expect((f.reason as string).length).toBeLessThan(MAX_LOGGED_MESSAGE_CHARS + 32);
  });

  it("never cuts a surrogate pair in half", () => {
    const s = "a".repeat(9) + "😀" + "b".repeat(10);
    expect(clip(s, 10)).toBe("a".repeat(9) + `… (${s.length} chars)`);
  });
});
