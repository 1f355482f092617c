import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { applyDefaultContainerNames, childName, collectContainerNames } from "./container-names.js";

describe("childName (kmeta.ChildName)", () => {
  // Expected values from knative/pkg kmeta/names_test.go.
  it.each([
    ["concatenates when the result fits", "asdf", "-deployment", "asdf-deployment"],
    ["keeps exactly 63 characters", "a".repeat(60), "-12", `${"a".repeat(60)}-12`],
    ["hashes a long parent in front of the suffix", "f".repeat(63), "-deployment", "ffffffffffffffffffff105d7597f637e83cc711605ac3ea4957-deployment"],
    ["keeps more of the parent for a shorter suffix", "f".repeat(63), "-deploy", "ffffffffffffffffffffffff105d7597f637e83cc711605ac3ea4957-deploy"],
    ["hashes parent and suffix when the suffix is long", "f".repeat(63), "f".repeat(63), "fffffffffffffffffffffffffffffff0502661254f13c89973cb3a83e0cbec0"],
    ["pads a short parent with the start of a long suffix", "a", "f".repeat(63), "ab5cfd486935decbc0d305799f4ce4414ffffffffffffffffffffffffffffff"],
    ["hashes when a 32-byte suffix leaves no room", "b".repeat(32), "f".repeat(32), "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb329c7c81b9ab3ba71aa139066aa5625d"],
    ["strips trailing non-alphanumerics after padding", "aaaa", "b---a".repeat(20), "aaaa7a3f7966594e3f0849720eced8212c18b---ab---ab---ab---ab---ab"],
    ["strips a trailing run of dots and dashes", "a".repeat(17), "a.-.-.-.-.-.-.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "aaaaaaaaaaaaaaaaaa1eb10dc911444f8434af83b7225442da"],
  ])("%s", (_name, parent, suffix, want) => {
    expect(childName(parent, suffix)).toBe(want);
  });

  it("measures and cuts the parent in UTF-8 bytes, as Go does", () => {
    // 31 two-byte characters are 62 bytes: with "-0" that is 64 > 63, so the parent is cut to 29 bytes,
    // which splits a character; the stray byte becomes U+FFFD, as json.Marshal writes it.
    const parent = "é".repeat(31);
    const hash = createHash("md5").update(parent, "utf8").digest("hex");
    expect(childName(parent, "-0")).toBe(`${"é".repeat(14)}\uFFFD${hash}-0`);
  });
});

function containers(...names: Array<string | undefined>): Array<Record<string, unknown>> {
  return names.map((name) => (name === undefined ? {} : { name }));
}

function namesOf(list: ReadonlyArray<Record<string, unknown>>): unknown[] {
  return list.map((c) => c["name"]);
}

describe("applyDefaultContainerNames", () => {
  it("names a single unnamed container with the default", () => {
    const list = containers(undefined);
    applyDefaultContainerNames(list, collectContainerNames(list, []), "user-container");
    expect(namesOf(list)).toEqual(["user-container"]);
  });

  it("numbers unnamed containers when there are several", () => {
    const list = containers(undefined, undefined);
    applyDefaultContainerNames(list, collectContainerNames(list, []), "user-container");
    expect(namesOf(list)).toEqual(["user-container-0", "user-container-1"]);
  });

  it("skips suffixes the user already took (Go's table test)", () => {
    const list = containers("", "user-container-0", "user-container-3", "", "user-container-5", "", "", "user-container-4");
    applyDefaultContainerNames(list, collectContainerNames(list, []), "user-container");
    expect(namesOf(list)).toEqual([
      "user-container-1",
      "user-container-0",
      "user-container-3",
      "user-container-2",
      "user-container-5",
      "user-container-6",
      "user-container-7",
      "user-container-4",
    ]);
  });

  it("numbers a single container whose default name an init container already uses", () => {
    const regular = containers("");
    const init = containers("user-container");
    applyDefaultContainerNames(regular, collectContainerNames(regular, init), "user-container");
    expect(namesOf(regular)).toEqual(["user-container-0"]);
  });

  it("avoids regular container names when naming init containers", () => {
    const regular = containers("init-container-0", "init-container-1");
    const init = containers("init1", "init2", "", "");
    applyDefaultContainerNames(init, collectContainerNames(regular, init), "init-container");
    expect(namesOf(init)).toEqual(["init1", "init2", "init-container-2", "init-container-3"]);
  });

  it("leaves named containers alone", () => {
    const list = containers("a", "b");
    applyDefaultContainerNames(list, collectContainerNames(list, []), "user-container");
    expect(namesOf(list)).toEqual(["a", "b"]);
  });

  it("suffixes an empty rendered name, since the empty name counts as taken", () => {
    const list = containers("");
    applyDefaultContainerNames(list, collectContainerNames(list, []), "");
    expect(namesOf(list)).toEqual(["-0"]);
  });
});
