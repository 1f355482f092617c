import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEFAULT_LEADER_ELECTION } from "../config/configmaps/leader-election.js";
import { bucketNames, bucketOwner, leaseNameFor } from "./lease-buckets.js";

/** 300 answers of knative/pkg's own BucketSet.Owner (the Go program's output; the file's first line says which version). */
const ORACLE = readFileSync(join(import.meta.dirname, "testdata", "lease-owners.tsv"), "utf8")
  .split("\n")
  .filter((l) => l !== "" && !l.startsWith("#"))
  .map((l) => {
    const [prefix, buckets, key, owner] = l.split("\t") as [string, string, string, string];
    return { prefix, buckets: Number(buckets), key, owner };
  });

describe("knative/pkg's bucket ownership", () => {
  it("has the Go program's answers to check against", () => {
    expect(ORACLE).toHaveLength(300);
    // Not a degenerate table: with several buckets, owners differ between keys.
    expect(new Set(ORACLE.filter((r) => r.buckets === 10).map((r) => r.owner)).size).toBeGreaterThan(5);
  });

  it.each(ORACLE)("$prefix, $buckets buckets, key $key → $owner", ({ prefix, buckets, key, owner }) => {
    const names = Array.from({ length: buckets }, (_, i) => `${prefix}.${String(i).padStart(2, "0")}-of-${String(buckets).padStart(2, "0")}`);
    expect(bucketOwner(names, key)).toBe(owner);
    // The order the names come in does not matter.
    expect(bucketOwner([...names].reverse(), key)).toBe(owner);
  });
});

describe("Lease names", () => {
  it("are Knative's defaults with one bucket", () => {
    expect(leaseNameFor("webhook", "WebhookCertificates", "knative-serving/webhook-certs", DEFAULT_LEADER_ELECTION)).toBe("webhook.webhookcertificates.00-of-01");
    expect(leaseNameFor("webhook", "DefaultingWebhook", "/webhook.serving.knative.dev", DEFAULT_LEADER_ELECTION)).toBe("webhook.defaultingwebhook.00-of-01");
  });

  it("follow buckets and map-lease-prefix (the unmapped form is the key, as standardBucketName looks it up)", () => {
    const config = { buckets: 3, leasePrefixes: new Map([["webhook.WebhookCertificates", "My.Certs"]]) };
    expect(bucketNames("webhook", "WebhookCertificates", config)).toEqual(["my.certs.00-of-03", "my.certs.01-of-03", "my.certs.02-of-03"]);
    expect(bucketNames("webhook", "ValidationWebhook", config)).toEqual(["webhook.validationwebhook.00-of-03", "webhook.validationwebhook.01-of-03", "webhook.validationwebhook.02-of-03"]);
    // A lower-cased mapping key does not match, and an empty value keeps the natural prefix, as in Go.
    expect(bucketNames("webhook", "WebhookCertificates", { buckets: 1, leasePrefixes: new Map([["webhook.webhookcertificates", "x"]]) })).toEqual(["webhook.webhookcertificates.00-of-01"]);
    expect(bucketNames("webhook", "WebhookCertificates", { buckets: 1, leasePrefixes: new Map([["webhook.WebhookCertificates", ""]]) })).toEqual(["webhook.webhookcertificates.00-of-01"]);
  });
});
