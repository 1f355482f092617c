import { describe, expect, it } from "vitest";
import { ConfigMapValidators } from "../config/validators.js";
import { knativeRegistry } from "../serving/kinds.js";
import { admitConfigMap } from "./config-validation.js";
import type { AdmissionDeps } from "./deps.js";
import { decodeAdmissionReview } from "./review.js";
import { configMapReview } from "../../test/support/webhook.js";

function request(name: string): Parameters<typeof admitConfigMap>[0] {
  const decoded = decodeAdmissionReview(JSON.parse(configMapReview({ name, namespace: "knative-serving", operation: "CREATE", data: { k: "v" } })));
  if (!decoded.ok || decoded.review.request === undefined) throw new Error("review does not decode");
  return decoded.review.request;
}

describe("admitConfigMap when a parser overflows the stack", () => {
  const deps = (thrown: Error): AdmissionDeps => ({
    kinds: knativeRegistry(),
    configMaps: new ConfigMapValidators([
      [
        "config-x",
        () => {
          throw thrown;
        },
      ],
    ]),
  });

  it("denies the ConfigMap with a clear error instead of failing the request", () => {
    expect(admitConfigMap(request("config-x"), deps(new RangeError("Maximum call stack size exceeded")))).toEqual({
      allowed: false,
      message: "validation failed: config-x: its values nest deeper than this webhook can parse (Maximum call stack size exceeded)",
    });
  });

  it("lets any other exception through (a fault, answered 500 by the server)", () => {
    expect(() => admitConfigMap(request("config-x"), deps(new TypeError("boom")))).toThrow("boom");
  });
});
