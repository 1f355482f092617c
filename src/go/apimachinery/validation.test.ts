import { describe, expect, it } from "vitest";
import {
  goStringList,
  isCIdentifier,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isFullyQualifiedDomainName,
  isLabelKey,
  isQualifiedName,
  nameIsDNS1035Label,
  utf8ByteLength,
} from "./validation.js";

// Texts copied byte for byte from the conformance vectors (Knative 1.17, apimachinery v0.31.4).
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const QUALIFIED_NAME_MSG =
  "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const C_IDENTIFIER_MSG =
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";
const MAX63 = "must be no more than 63 characters";
const MAX253 = "must be no more than 253 characters";
const NAME_PART_MAX = "name part must be no more than 63 characters";

const rep = (s: string, n: number): string => s.repeat(n);

describe("isDNS1035Label", () => {
  // apimachinery validation_test.go TestIsDNS1035Label.
  it.each(["a", "ab", "abc", "a1", "a-1", "a--1--2--b", rep("a", 63)])("accepts %j", (v) => {
    expect(isDNS1035Label(v)).toEqual([]);
  });

  it.each([
    "0", "01", "012", "1a", "1-a", "1--a--b--2", "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1",
    "_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ", " a", "a b", "1 ",
    " 1", "1 2", "1hello", "hello-V1", "Canary", "a\n",
  ])("rejects %j with the regex message only", (v) => {
    expect(isDNS1035Label(v)).toEqual([DNS1035_MSG]);
  });

  it("reports only the length when a long name is otherwise well formed", () => {
    expect(isDNS1035Label(rep("a", 64))).toEqual([MAX63]);
  });

  it("reports length and regex together, length first", () => {
    expect(isDNS1035Label(rep("A", 64))).toEqual([MAX63, DNS1035_MSG]);
  });

  it("measures length in UTF-8 bytes, as Go's len does", () => {
    expect(isDNS1035Label(rep("é", 31))).toEqual([DNS1035_MSG]); // 62 bytes
    expect(isDNS1035Label(rep("é", 32))).toEqual([MAX63, DNS1035_MSG]); // 64 bytes, 32 UTF-16 units
    expect(isDNS1035Label(rep("€", 22))).toEqual([MAX63, DNS1035_MSG]); // 66 bytes
  });
});

describe("isDNS1123Label", () => {
  // apimachinery validation_test.go TestIsDNS1123Label.
  it.each([
    "a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2", rep("a", 63),
  ])("accepts %j", (v) => {
    expect(isDNS1123Label(v)).toEqual([]);
  });

  it.each([
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2",
    ".", "a.", ".a", "1.", ".1", " ", "a ", " a", "a b", "1 ", " 1", "1 2", "Bad_Name", "Hello_00001",
  ])("rejects %j with the regex message", (v) => {
    expect(isDNS1123Label(v)).toEqual([DNS1123_LABEL_MSG]);
  });

  it.each(["a.b", "1.2", "app.example.com"])("says %j must not contain dots when it is a valid subdomain", (v) => {
    expect(isDNS1123Label(v)).toEqual(["must not contain dots"]);
  });

  it("reports the length of a long label", () => {
    expect(isDNS1123Label(rep("a", 64))).toEqual([MAX63]);
  });

  it("reports length and dots for a long dotted name", () => {
    expect(isDNS1123Label(rep("a", 32) + "." + rep("b", 32))).toEqual([MAX63, "must not contain dots"]);
  });
});

describe("isDNS1123Subdomain", () => {
  // apimachinery validation_test.go TestIsDNS1123Subdomain.
  it.each([
    "a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2", "a.a", "ab.a", "abc.a",
    "a1.a", "a-1.a", "a--1--2--b.a", "a.1", "ab.1", "abc.1", "a1.1", "a-1.1", "a--1--2--b.1", "0.a", "01.a", "012.a",
    "1a.a", "1-a.a", "1--a--b--2", "0.1", "01.1", "012.1", "1a.1", "1-a.1", "1--a--b--2.1", "a.b.c.d.e",
    "aa.bb.cc.dd.ee", "1.2.3.4.5", "11.22.33.44.55", rep("a", 253),
  ])("accepts %j", (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([]);
  });

  it.each([
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2",
    ".", "a.", ".a", "a..b", "1.", ".1", "1..2", " ", "a ", " a", "a b", "1 ", " 1", "1 2", "A.a", "aB.a", "ab.A",
    "A1.a", "a1.A", "A.1", "aB.1", "A1.1", "1A.1", "0.A", "01.A", "012.A", "1A.a", "1a.A", "A.B.C.D.E",
    "AA.BB.CC.DD.EE", "a.B.c.d.e", "aa.bB.cc.dd.ee", "a@b", "a,b", "a_b", "a;b", "a:b", "a%b", "a?b", "a$b",
    "Payments_Runtime", "Not_A_Class",
  ])("rejects %j", (v) => {
    expect(isDNS1123Subdomain(v)).toEqual([DNS1123_SUBDOMAIN_MSG]);
  });

  it("reports the length of a long subdomain", () => {
    expect(isDNS1123Subdomain(rep("a", 254))).toEqual([MAX253]);
  });

  it("reports length and regex together", () => {
    expect(isDNS1123Subdomain(rep("A", 254))).toEqual([MAX253, DNS1123_SUBDOMAIN_MSG]);
  });
});

describe("isQualifiedName", () => {
  // apimachinery validation_test.go TestIsQualifiedName.
  it.each([
    "simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple", "now-with-dashes/simple",
    "now-with-dashes/now-with-dashes", "now.with.dots/simple", "now-with.dashes-and.dots/simple", "1-num.2-num/3-num",
    "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo",
    rep("a", 63), rep("a", 253) + "/" + rep("b", 63),
  ])("accepts %j", (v) => {
    expect(isQualifiedName(v)).toEqual([]);
  });

  it.each([
    ["nospecialchars%^=@", [NAME_PART_MSG]],
    ["cantendwithadash-", [NAME_PART_MSG]],
    ["-cantstartwithadash-", [NAME_PART_MSG]],
    ["Web 00001", [NAME_PART_MSG]],
    ["web_config!", [NAME_PART_MSG]],
    ["only/one/slash", [QUALIFIED_NAME_MSG]],
    ["apps/v1/extra", [QUALIFIED_NAME_MSG]],
    ["Example.com/abc", ["prefix part " + DNS1123_SUBDOMAIN_MSG]],
    ["example_com/abc", ["prefix part " + DNS1123_SUBDOMAIN_MSG]],
    ["example.com/", ["name part must be non-empty", NAME_PART_MSG]],
    ["", ["name part must be non-empty", NAME_PART_MSG]],
    ["/simple", ["prefix part must be non-empty"]],
    ["/", ["prefix part must be non-empty", "name part must be non-empty", NAME_PART_MSG]],
    [rep("a", 64), [NAME_PART_MAX]],
    [rep("r", 64), [NAME_PART_MAX]],
    [rep("a", 254) + "/abc", ["prefix part " + MAX253]],
    ["Bad_/" + rep("-", 64), ["prefix part " + DNS1123_SUBDOMAIN_MSG, NAME_PART_MAX, NAME_PART_MSG]],
  ] as const)("rejects %j", (v, want) => {
    expect(isQualifiedName(v)).toEqual(want);
  });
});

describe("isCIdentifier", () => {
  // apimachinery validation_test.go TestIsCIdentifier.
  it.each([
    "a", "ab", "abc", "a1", "_a", "a_", "a_b", "a_1", "_1", "__", "___", "A", "AB", "AbC", "A1", "_A", "A_", "A_B",
    "A_1", "__1__2__b", "__1__2__B", "AbcD_EF_12",
  ])("accepts %j", (v) => {
    expect(isCIdentifier(v)).toEqual([]);
  });

  it.each([
    "", "1", "123", "1a", "-", "a-", "-a", "1-", "-1", "1_", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ",
    "a ", " a", "a b", "1 ", " 1", "1 2", "#a#", "Deploy-ment",
  ])("rejects %j", (v) => {
    expect(isCIdentifier(v)).toEqual([C_IDENTIFIER_MSG]);
  });
});

describe("nameIsDNS1035Label", () => {
  it("checks the name as is without prefix mode", () => {
    expect(nameIsDNS1035Label("hello-", false)).toEqual([DNS1035_MSG]);
    expect(nameIsDNS1035Label("hello", false)).toEqual([]);
  });

  it.each([
    ["hello-", []], // masked to "hella"
    ["a-", []], // masked to "a"
    ["ab-", []], // masked to "aa"
    ["-", [DNS1035_MSG]], // too short to mask
    ["Hello-", [DNS1035_MSG]],
    ["9lives-", [DNS1035_MSG]],
    ["hello.", [DNS1035_MSG]],
    ["a.-", []], // the quirk drops the character before the dash too: masked to "aa"
    ["hello--", []], // masked to "helloa"
    [rep("a", 64) + "-", [MAX63]], // 64 - 1 + 1 = 64 characters after masking
    [rep("a", 63) + "-", []],
  ] as const)("masks a trailing dash of generateName %j the way Go does", (v, want) => {
    expect(nameIsDNS1035Label(v, true)).toEqual(want);
  });

  it("keeps Go's byte slicing when the dash follows a multi-byte character", () => {
    // Go: "abé-"[:len-2] leaves half of é, which never matches; JS slicing would have produced "aba".
    expect(nameIsDNS1035Label("abé-", true)).toEqual([DNS1035_MSG]);
    // 31 é (62 bytes) + "a" + "é-" (3 bytes) = 66 bytes; masked to 65 bytes.
    expect(nameIsDNS1035Label(rep("é", 31) + "aé-", true)).toEqual([MAX63, DNS1035_MSG]);
    expect(nameIsDNS1035Label("é-", true)).toEqual([DNS1035_MSG]);
  });
});

describe("isFullyQualifiedDomainName", () => {
  it.each(["example.com", "app.example.com", "example.com.", "a.b", "1.2.3.4", rep("a", 63) + ".com"])(
    "accepts %j",
    (v) => {
      expect(isFullyQualifiedDomainName(v, "name")).toEqual([]);
    },
  );

  it("requires a value", () => {
    expect(isFullyQualifiedDomainName("", "name")).toEqual(["name: Required value"]);
  });

  // Texts from the DomainMapping conformance vectors (`invalid name "<n>": <this>: metadata.name`).
  it.each([
    ["localhost", 'name: Invalid value: "localhost": should be a domain with at least two segments separated by dots'],
    ["app-5z4n9", 'name: Invalid value: "app-5z4n9": should be a domain with at least two segments separated by dots'],
    ["App.Example.com", `name: Invalid value: "App.Example.com": ${DNS1123_SUBDOMAIN_MSG}`],
    ["app..example.com", `name: Invalid value: "app..example.com": ${DNS1123_SUBDOMAIN_MSG}`],
    ["my_app.example.com", `name: Invalid value: "my_app.example.com": ${DNS1123_SUBDOMAIN_MSG}`],
    ["-app.example.com", `name: Invalid value: "-app.example.com": ${DNS1123_SUBDOMAIN_MSG}`],
    ["Bad_Domain", `name: Invalid value: "Bad_Domain": ${DNS1123_SUBDOMAIN_MSG}`],
    [rep("a", 64) + ".example.com", `name: Invalid value: "${rep("a", 64)}": ${MAX63}`],
  ])("rejects %j", (v, want) => {
    expect(isFullyQualifiedDomainName(v, "name")).toEqual([want]);
  });

  it("reports a name over 253 characters", () => {
    const label = rep("abcdefghij", 6);
    const name = `${label}.${label}.${label}.${label}.example.com`;
    expect(isFullyQualifiedDomainName(name, "name")).toEqual([`name: Invalid value: "${name}": ${MAX253}`]);
  });

  it("strips one trailing dot before checking and quotes the stripped value", () => {
    expect(isFullyQualifiedDomainName("localhost.", "name")).toEqual([
      'name: Invalid value: "localhost": should be a domain with at least two segments separated by dots',
    ]);
    expect(isFullyQualifiedDomainName(".", "name")).toEqual([`name: Invalid value: "": ${DNS1123_SUBDOMAIN_MSG}`]);
    expect(isFullyQualifiedDomainName("a..", "name")).toEqual([`name: Invalid value: "a.": ${DNS1123_SUBDOMAIN_MSG}`]);
  });

  it("joins several subdomain messages with a comma", () => {
    const name = rep("A", 254);
    expect(isFullyQualifiedDomainName(name, "name")).toEqual([
      `name: Invalid value: "${name}": ${MAX253},${DNS1123_SUBDOMAIN_MSG}`,
    ]);
  });

  it("quotes the value like Go's %q", () => {
    expect(isFullyQualifiedDomainName('a"b\n', "spec.name")).toEqual([
      `spec.name: Invalid value: "a\\"b\\n": ${DNS1123_SUBDOMAIN_MSG}`,
    ]);
  });
});

describe("goStringList", () => {
  it("prints a []string the way %v does", () => {
    expect(goStringList([])).toBe("[]");
    expect(goStringList([MAX63])).toBe("[must be no more than 63 characters]");
    expect(goStringList(["a b", "c"])).toBe("[a b c]");
  });

  it("renders the vectors' DNS-1035 texts", () => {
    expect("not a DNS 1035 label: " + goStringList(isDNS1035Label("1hello"))).toBe(
      `not a DNS 1035 label: [${DNS1035_MSG}]`,
    );
    expect("not a DNS 1035 label prefix: " + goStringList(nameIsDNS1035Label("Hello-", true))).toBe(
      `not a DNS 1035 label prefix: [${DNS1035_MSG}]`,
    );
  });
});

describe("utf8ByteLength", () => {
  it.each([
    ["", 0],
    ["abc", 3],
    ["é", 2],
    ["€", 3],
    ["😀", 4],
    ["\uD800", 3], // a lone surrogate reaches Go as U+FFFD
    ["\uDC00x", 4],
  ] as const)("counts %j as %i bytes", (s, n) => {
    expect(utf8ByteLength(s)).toBe(n);
  });
});

describe("isLabelKey (apimachinery v0.35 content.IsLabelKey's wording)", () => {
  it("words what IsQualifiedName says as a label key, and counts the parts in bytes", () => {
    expect(isLabelKey("a/b/c")[0]?.startsWith("a valid label key must consist of alphanumeric characters")).toBe(true);
    expect(isLabelKey("r".repeat(64))).toEqual(["name part must be no more than 63 bytes"]);
    expect(isLabelKey(`${"p".repeat(254)}/web`)).toEqual(["prefix part must be no more than 253 bytes"]);
    expect(isLabelKey("example.com/web-00001")).toEqual([]);
    // The other messages are IsQualifiedName's.
    expect(isLabelKey("-x")).toEqual(isQualifiedName("-x"));
  });
});
