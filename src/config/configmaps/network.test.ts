import { describe, expect, it } from "vitest";
import { parseNetworkConfig } from "./network.js";
import { PROFILES } from "../profile.js";

// Expected answers were confirmed against Knative's own Go code (serving 1.17 pins), so they are parsed as Knative 1.17
// parses them. Knative 1.24's texts: configmap-parse.test.ts, and index.test.ts runs each release's config_validation
// vectors.
const CASES: ReadonlyArray<readonly [data: Record<string, string>, error: string | undefined]> = [
  [{"rollout-duration": "-1"}, "rollout-duration must be a positive integer, but was -1"],
  [{"rolloutDuration": "x"}, "failed to parse \"rolloutDuration\": strconv.Atoi: parsing \"x\": invalid syntax"],
  [{"rollout-duration": "10s"}, "failed to parse \"rollout-duration\": strconv.Atoi: parsing \"10s\": invalid syntax"],
  [{"autocreate-cluster-domain-claims": "maybe"}, "strconv.ParseBool: parsing \"maybe\": invalid syntax"],
  [{"domain-template": "{{.Name}}.{{.Namespace}}.{{.Domain}}"}, undefined],
  [{"domain-template": "{{.Domain}}/{{.Namespace}}/{{.Name}}"}, "domain template has url path: /bar/foo"],
  [{"domain-template": "{{.Name}}?x"}, "domain template has url path: /?x"],
  [{"domain-template": "{{.Name}}?"}, "domain template has url path: /?"],
  [{"domain-template": "{{.Name}}#frag"}, undefined],
  [{"domain-template": ":8080"}, "empty hostname"],
  [{"domain-template": "{{.Name}}/%zz"}, "parse \"https://foo/%zz\": invalid URL escape \"%zz\""],
  [{"domain-template": "{{.Name}}/a b"}, "domain template has url path: /a%20b"],
  [{"domain-template": "a b"}, "parse \"https://a b\": invalid character \" \" in host name"],
  [{"domain-template": "{{.Nope}}"}, "template: domain-template:1:2: executing \"domain-template\" at <.Nope>: can't evaluate field Nope in type config.DomainTemplateValues"],
  [{"domain-template": "{{.Name}}.{{index .Annotations \"x\"}}.{{.Domain}}"}, undefined],
  [{"domainTemplate": "{{.Name}}.legacy.com"}, undefined],
  [{"tag-template": "{{.Tag"}, "template: tag-template:1: unclosed action"],
  [{"tag-template": "{{.Name.Foo}}"}, "template: tag-template:1:7: executing \"tag-template\" at <.Name.Foo>: can't evaluate field Foo in type string"],
  [{"http-protocol": "RED\u0130RECTED"}, undefined],
  [{"http-protocol": "maybe"}, "httpProtocol maybe in config-network ConfigMap is not supported"],
  [{"httpProtocol": "bad"}, "httpProtocol  in config-network ConfigMap is not supported"],
  [{"httpProtocol": "bad", "http-protocol": "enabled"}, undefined],
  [{"system-internal-tls": "ENABLED"}, undefined],
  [{"cluster-local-domain-tls": "on"}, "cluster-local-domain-tls with value: \"on\" in config-network ConfigMap is not supported"],
  [{"mesh-compatibility-mode": "sometimes"}, undefined],
  [{"namespace-wildcard-cert-selector": "matchLabels: [a]"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field LabelSelector.matchLabels of type map[string]string"],
  [{"namespace-wildcard-cert-selector": "matchExpressions:\n- key: [a]"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go struct field LabelSelectorRequirement.matchExpressions.key of type string"],
  [{"namespace-wildcard-cert-selector": "matchExpressions:\n- operator: {x: y}"}, "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal object into Go struct field LabelSelectorRequirement.matchExpressions.operator of type v1.LabelSelectorOperator"],
  [{"namespace-wildcard-cert-selector": "{"}, "error converting YAML to JSON: yaml: line 1: did not find expected node content"],
];

describe("parseNetworkConfig (Knative 1.17)", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseNetworkConfig(data, PROFILES["1.17"])).toBe(error);
  });
});

// Domain templates whose host is or holds brackets or colons, as Knative's own webhooks answered them (reference/
// builds of 1.17, 1.23 and 1.24, `--batch`): Go 1.23's url.Parse (1.17) takes what brackets hold as written, Go
// 1.26's (1.23, 1.24) checks it, and only 1.24's module (go 1.26) takes an https host's port from its first colon
// (src/go/net/url/url.ts UrlRules).
const HOSTS: ReadonlyArray<readonly [template: string, on117: string | undefined, on123: string | undefined, on124: string | undefined]> = [
  ["a:1:2", undefined, undefined, 'parse "https://a:1:2": invalid port ":1:2" after host'],
  ["a:1", undefined, undefined, undefined],
  ["[::1]:80", undefined, undefined, undefined],
  ["x[y]", undefined, 'parse "https://x[y]": invalid IP-literal', 'parse "https://x[y]": invalid IP-literal'],
  ["[1.2.3.4]", undefined, 'parse "https://[1.2.3.4]": invalid IP-literal', 'parse "https://[1.2.3.4]": invalid IP-literal'],
  ["[fe80::1%25en0]", undefined, undefined, undefined],
  ["{{.Name}}.{{.Namespace}}.[::1]", 'parse "https://foo.bar.[::1]": invalid port ":1]" after host', 'parse "https://foo.bar.[::1]": invalid IP-literal', 'parse "https://foo.bar.[::1]": invalid IP-literal'],
  ["a::1", undefined, undefined, 'parse "https://a::1": invalid port "::1" after host'],
  ["[]", "empty hostname", 'parse "https://[]": invalid host: ParseAddr(""): unable to parse IP', 'parse "https://[]": invalid host: ParseAddr(""): unable to parse IP'],
];

describe("parseNetworkConfig: domain templates with brackets and colons, per release's Go toolchain", () => {
  it.each(HOSTS)("%j", (template, on117, on123, on124) => {
    expect(parseNetworkConfig({ "domain-template": template }, PROFILES["1.17"])).toBe(on117);
    expect(parseNetworkConfig({ "domain-template": template }, PROFILES["1.23"])).toBe(on123);
    expect(parseNetworkConfig({ "domain-template": template }, PROFILES["1.24"])).toBe(on124);
  });
});
