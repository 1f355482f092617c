/**
 * RouteSpec defaulting (knative.dev/serving pkg/apis/serving/v1/route_defaults.go: (*RouteSpec).SetDefaults,
 * (*TrafficTarget).SetDefaults, v0.44.2; docs/knative-behavior.md#service-configuration-and-route-defaults), on the
 * Go-round-tripped `spec` of a Service or Route, changed in place.
 */
import { type JsonObject } from "../go/encoding/json/json-value.js";


/** A Service's traffic: none at all means "everything to the latest revision", then per-target defaults. */
export function defaultServiceTraffic(spec: JsonObject): void {
  const traffic = spec["traffic"];
  if (!Array.isArray(traffic) || traffic.length === 0) {
    spec["traffic"] = [{ percent: 100, latestRevision: true }];
    return;
  }
  defaultTargets(traffic);
}

/** A Route's traffic: per-target defaults only (a Route has no default configuration to point at). */
export function defaultRouteTraffic(spec: JsonObject): void {
  const traffic = spec["traffic"];
  if (Array.isArray(traffic)) defaultTargets(traffic);
}

/**
 * TrafficTarget.SetDefaults: `latestRevision` follows from whether a revision is pinned, and a missing
 * `percent` becomes an explicit 0 so that later checks need not handle nil.
 */
function defaultTargets(traffic: readonly unknown[]): void {
  for (const target of traffic) {
    if (typeof target !== "object" || target === null || Array.isArray(target)) continue;
    const t = target as JsonObject;
    if (t["latestRevision"] === undefined || t["latestRevision"] === null) {
      const revisionName = t["revisionName"];
      t["latestRevision"] = revisionName === undefined || revisionName === null || revisionName === "";
    }
    if (t["percent"] === undefined || t["percent"] === null) t["percent"] = 0;
  }
}
