import { describe, expect, it } from "vitest";
import { defaultRouteTraffic, defaultServiceTraffic } from "./traffic-defaults.js";

type JsonObject = Record<string, unknown>;

describe("defaultServiceTraffic", () => {
  it.each<[string, JsonObject]>([
    ["absent", {}],
    ["null", { traffic: null }],
    ["empty", { traffic: [] }],
  ])("sends all traffic to the latest revision when traffic is %s", (_name, spec) => {
    defaultServiceTraffic(spec);
    expect(spec["traffic"]).toEqual([{ percent: 100, latestRevision: true }]);
  });

  it("defaults each given target and adds none", () => {
    const spec: JsonObject = { traffic: [{ revisionName: "svc-00001", percent: 90 }, { tag: "latest" }] };
    defaultServiceTraffic(spec);
    expect(spec["traffic"]).toEqual([
      { revisionName: "svc-00001", percent: 90, latestRevision: false },
      { tag: "latest", percent: 0, latestRevision: true },
    ]);
  });
});

describe("defaultRouteTraffic", () => {
  it.each<[string, JsonObject, JsonObject]>([
    ["a configuration target follows the latest revision", { configurationName: "c", percent: 100 }, { configurationName: "c", percent: 100, latestRevision: true }],
    ["a revision target is pinned", { revisionName: "r", percent: 100 }, { revisionName: "r", percent: 100, latestRevision: false }],
    ["an empty revision name counts as none", { revisionName: "", percent: 100 }, { revisionName: "", percent: 100, latestRevision: true }],
    ["an explicit latestRevision is kept", { revisionName: "r", latestRevision: true, percent: 5 }, { revisionName: "r", latestRevision: true, percent: 5 }],
    ["a missing percent becomes 0", { configurationName: "c" }, { configurationName: "c", latestRevision: true, percent: 0 }],
    ["an explicit percent of 0 is kept", { configurationName: "c", percent: 0 }, { configurationName: "c", latestRevision: true, percent: 0 }],
  ])("%s", (_name, target, want) => {
    const spec: JsonObject = { traffic: [target] };
    defaultRouteTraffic(spec);
    expect(spec["traffic"]).toEqual([want]);
  });

  it.each<[string, JsonObject]>([
    ["absent", {}],
    ["empty", { traffic: [] }],
  ])("adds no traffic when it is %s (a Route has no default configuration)", (_name, spec) => {
    const before = structuredClone(spec);
    defaultRouteTraffic(spec);
    expect(spec).toEqual(before);
  });
});
