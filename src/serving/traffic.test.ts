import { describe, expect, it } from "vitest";
import { renderFieldError } from "../apis/field-error.js";
import { validateTraffic } from "./traffic.js";

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, " +
  "and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character " +
  "(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

interface Case {
  readonly name: string;
  readonly traffic: unknown;
  readonly want?: string;
}

const routeCases: Case[] = [
  { name: "single configuration target", traffic: [{ configurationName: "web", percent: 100 }] },
  { name: "single revision target", traffic: [{ revisionName: "web-00001", percent: 100 }] },
  { name: "latest revision explicit", traffic: [{ configurationName: "web", latestRevision: true, percent: 100 }] },
  { name: "pinned with latestRevision false", traffic: [{ revisionName: "web-00001", latestRevision: false, percent: 100 }] },
  {
    name: "three-way split with tags",
    traffic: [
      { revisionName: "web-00001", percent: 50, tag: "old" },
      { revisionName: "web-00002", percent: 40, tag: "new" },
      { configurationName: "web", percent: 10, tag: "latest" },
    ],
  },
  {
    name: "tagged target without percent",
    traffic: [{ configurationName: "web", percent: 100 }, { revisionName: "web-00001", tag: "candidate" }],
  },
  { name: "qualified revision name", traffic: [{ revisionName: "example.com/web", percent: 100 }] },
  { name: "sum below 100", traffic: [{ configurationName: "web", percent: 90 }], want: "Traffic targets sum to 90, want 100: traffic" },
  {
    name: "sum above 100",
    traffic: [
      { configurationName: "web", percent: 60 },
      { revisionName: "web-00001", percent: 50 },
    ],
    want: "Traffic targets sum to 110, want 100: traffic",
  },
  { name: "empty list", traffic: [], want: "Traffic targets sum to 0, want 100: traffic" },
  { name: "no traffic field", traffic: undefined, want: "Traffic targets sum to 0, want 100: traffic" },
  { name: "missing percent counts as 0", traffic: [{ configurationName: "web" }], want: "Traffic targets sum to 0, want 100: traffic" },
  {
    name: "percent out of bounds on both sides",
    traffic: [
      { configurationName: "web", percent: -10 },
      { revisionName: "web-00001", percent: 110 },
    ],
    want: "expected 0 <= -10 <= 100: traffic[0].percent\nexpected 0 <= 110 <= 100: traffic[1].percent",
  },
  {
    name: "percent above 100 also breaks the sum",
    traffic: [{ configurationName: "web", percent: 101 }],
    want: "Traffic targets sum to 101, want 100: traffic\nexpected 0 <= 101 <= 100: traffic[0].percent",
  },
  {
    name: "both names",
    traffic: [{ configurationName: "web", revisionName: "web-00001", percent: 100 }],
    want: "expected exactly one, got both: traffic[0].configurationName, traffic[0].revisionName",
  },
  {
    name: "neither name",
    traffic: [{ percent: 100 }],
    want: "expected exactly one, got neither: traffic[0].configurationName, traffic[0].revisionName",
  },
  {
    name: "invalid revision name",
    traffic: [{ revisionName: "Web 00001", percent: 100 }],
    want: `invalid key name "Web 00001": traffic[0].revisionName\n${NAME_PART}`,
  },
  {
    name: "revision name too long",
    traffic: [{ revisionName: "r".repeat(64), percent: 100 }],
    want: `invalid key name "${"r".repeat(64)}": traffic[0].revisionName\nname part must be no more than 63 characters`,
  },
  {
    name: "invalid configuration name",
    traffic: [{ configurationName: "web_config!", percent: 100 }],
    want: `invalid key name "web_config!": traffic[0].configurationName\n${NAME_PART}`,
  },
  {
    name: "latestRevision true with a revision",
    traffic: [{ revisionName: "web-00001", latestRevision: true, percent: 100 }],
    want: 'may not set revisionName "web-00001" when latestRevision is true: traffic[0].latestRevision',
  },
  {
    name: "latestRevision false without a revision",
    traffic: [{ configurationName: "web", latestRevision: false, percent: 100 }],
    want: 'may not set revisionName "" when latestRevision is false: traffic[0].latestRevision',
  },
  {
    name: "duplicate tag",
    traffic: [
      { configurationName: "web", percent: 50, tag: "stable" },
      { revisionName: "web-00001", percent: 50, tag: "stable" },
    ],
    want: 'Multiple definitions for "stable": traffic[0].tag, traffic[1].tag',
  },
  {
    name: "triplicate tag merges into one line",
    traffic: [
      { configurationName: "web", percent: 50, tag: "a" },
      { revisionName: "web-00001", percent: 25, tag: "a" },
      { revisionName: "web-00002", percent: 25, tag: "a" },
    ],
    want: 'Multiple definitions for "a": traffic[0].tag, traffic[1].tag, traffic[2].tag',
  },
  {
    name: "invalid tag reports traffic.tag[i]",
    traffic: [{ configurationName: "web", percent: 100, tag: "Stable" }],
    want: `invalid value: not a DNS 1035 label: [${DNS1035}]: traffic.tag[0]`,
  },
  {
    name: "tag too long",
    traffic: [{ configurationName: "web", percent: 100, tag: "t".repeat(64) }],
    want: "invalid value: not a DNS 1035 label: [must be no more than 63 characters]: traffic.tag[0]",
  },
  {
    name: "url in spec with a tag",
    traffic: [{ configurationName: "web", percent: 100, tag: "t", url: "http://t-web.default.example.com" }],
    want: "must not set the field(s): traffic[0].url",
  },
  {
    name: "url in spec without a tag merges into one path",
    traffic: [{ configurationName: "web", percent: 100, url: "http://web.default.example.com" }],
    want: "must not set the field(s): traffic[0].url",
  },
  { name: "empty url is unset", traffic: [{ configurationName: "web", percent: 100, url: "" }] },
  {
    name: "null targets are zero targets",
    traffic: [null, { configurationName: "web", percent: 100 }],
    want: "expected exactly one, got neither: traffic[0].configurationName, traffic[0].revisionName",
  },
  {
    name: "many errors at once",
    traffic: [
      { configurationName: "web", revisionName: "web-00001", percent: 120, tag: "X" },
      { percent: -1, tag: "X", url: "http://x" },
      { revisionName: "web-00002", latestRevision: true },
    ],
    want:
      'Multiple definitions for "X": traffic[0].tag, traffic[1].tag\n' +
      "Traffic targets sum to 119, want 100: traffic\n" +
      "expected 0 <= -1 <= 100: traffic[1].percent\n" +
      "expected 0 <= 120 <= 100: traffic[0].percent\n" +
      "expected exactly one, got both: traffic[0].configurationName, traffic[0].revisionName\n" +
      "expected exactly one, got neither: traffic[1].configurationName, traffic[1].revisionName\n" +
      `invalid value: not a DNS 1035 label: [${DNS1035}]: traffic.tag[0], traffic.tag[1]\n` +
      'may not set revisionName "web-00002" when latestRevision is true: traffic[2].latestRevision\n' +
      "must not set the field(s): traffic[1].url",
  },
];

const serviceCases: Case[] = [
  { name: "latest at 100", traffic: [{ latestRevision: true, percent: 100 }] },
  { name: "pinned only", traffic: [{ revisionName: "hello-00001", latestRevision: false, percent: 100 }] },
  { name: "neither name is the implied configuration", traffic: [{ percent: 100 }] },
  {
    name: "configuration name is not allowed",
    traffic: [{ configurationName: "hello", latestRevision: true, percent: 100 }],
    want: "must not set the field(s): traffic[0].configurationName",
  },
  {
    name: "both names report only the configuration name",
    traffic: [{ configurationName: "hello", revisionName: "hello-00001", latestRevision: false, percent: 100 }],
    want: "must not set the field(s): traffic[0].configurationName",
  },
  { name: "empty list still sums to 0", traffic: [], want: "Traffic targets sum to 0, want 100: traffic" },
  {
    name: "invalid revision name is still checked",
    traffic: [{ revisionName: "a/b/c", latestRevision: false, percent: 100 }],
    want:
      'invalid key name "a/b/c": traffic[0].revisionName\n' +
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric " +
      "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') " +
      "with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
  },
];

describe("validateTraffic in a Route", () => {
  it.each(routeCases)("$name", ({ traffic, want }) => {
    const spec = traffic === undefined ? {} : { traffic };
    expect(renderFieldError(validateTraffic(spec, { serviceContext: false }))).toBe(want ?? "");
  });
});

describe("validateTraffic in a Service", () => {
  it.each(serviceCases)("$name", ({ traffic, want }) => {
    expect(renderFieldError(validateTraffic({ traffic }, { serviceContext: true }))).toBe(want ?? "");
  });
});

describe("validateTraffic sums like Go's int64", () => {
  it("stays exact beyond 2^53", () => {
    const traffic = [
      { configurationName: "a", percent: 2 ** 53 },
      { configurationName: "b", percent: 2 ** 53 },
      { configurationName: "c", percent: 100 },
    ];
    const got = renderFieldError(validateTraffic({ traffic }, { serviceContext: false }));
    expect(got).toContain("Traffic targets sum to 18014398509482084, want 100: traffic");
  });
});
