import { describe, expect, it } from "vitest";
import { clusterDomainFrom } from "../../src/kube/cluster-domain.js";

describe("clusterDomainFrom (knative.dev/pkg network.GetClusterDomainName)", () => {
  it.each([
    ["the svc. search entry of resolv.conf", "nameserver 10.96.0.10\nsearch knative-serving.svc.corp.example svc.corp.example corp.example\noptions ndots:5\n", "", "corp.example"],
    ["a trailing dot removed", "search svc.corp.example.\n", "", "corp.example"],
    ["resolv.conf before CLUSTER_DOMAIN", "search svc.from-file\n", "from-env", "from-file"],
    ["CLUSTER_DOMAIN without a svc. entry", "search example.com\n", "from-env", "from-env"],
    ["CLUSTER_DOMAIN without resolv.conf", undefined, "from-env", "from-env"],
    ["cluster.local otherwise", undefined, "", "cluster.local"],
    ["cluster.local when the line is tab-separated (Go splits on spaces)", "search\tsvc.tabbed\n", "", "cluster.local"],
  ])("takes %s", (_what, resolvConf, setting, want) => {
    expect(clusterDomainFrom(resolvConf, setting)).toBe(want);
  });
});
