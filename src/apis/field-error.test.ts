import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { also, applySteps, applyStepsPieceByPiece, at, isFull, withUncheckedEntries, MAX_HELD_ERROR_PATHS, MAX_RENDERED_ERROR_PATH_CHARS, MAX_RENDERED_ERROR_PATHS, moreErrorsLine, CURRENT_FIELD, errDisallowedFields, errDisallowedUpdateDeprecatedFields, errGeneric, errInvalidArrayValue, errInvalidKeyName, errInvalidValue, errMissingField, errMissingOneOf, errMultipleOneOf, errOutOfBoundsValue, FieldError, filter, renderFieldError, viaField, viaFieldIndex, viaFieldKey, viaIndex, viaKey, type DiagnosticLevel } from "./field-error.js";
import { compareByteOrder } from "../go/strings/compare.js";
import { goFloat64, goSprint, type GoStringer } from "../go/fmt/print.js";
import { goFormatFloat } from "../go/strconv/ftoa.js";
import { goQuote } from "../go/strconv/quote.js";

/** Stand-in for a Go time.Duration value (its String() form is all FieldError needs). */
const duration = (s: string): GoStringer => ({ goString: () => s });

const fe = (message: string, paths: string[] = [], details = "", level: DiagnosticLevel = "Error") =>
  new FieldError({ message, paths, details, level });

/** Apply a Go test's `prefixes` the way its harness does: one ViaField call per inner list. */
function propagate(err: FieldError | undefined, prefixes: string[][]): FieldError | undefined {
  let out = err;
  for (const p of prefixes) out = viaField(out, ...p);
  return out;
}

/** The op mini-language of Go's TestViaIndexOrKeyFieldError: INDEX:n, KEY:k, FIELDINDEX:f,n, FIELDKEY:f,k. */
function propagateOps(err: FieldError | undefined, prefixes: string[][]): FieldError | undefined {
  let out = err;
  for (const group of prefixes) {
    for (const p of group) {
      const arg = p.slice(p.indexOf(":") + 1);
      const [a = "", b = ""] = arg.split(",");
      if (p.startsWith("INDEX")) out = viaIndex(out, Number(a));
      else if (p.startsWith("FIELDINDEX")) out = viaFieldIndex(out, a, Number(b));
      else if (p.startsWith("KEY")) out = viaKey(out, a);
      else if (p.startsWith("FIELDKEY")) out = viaFieldKey(out, a, b);
      else out = viaField(out, p);
    }
  }
  return out;
}

describe("FieldError rendering — ported from knative.dev/pkg apis TestFieldError", () => {
  const cases: Array<{ name: string; err: () => FieldError | undefined; prefixes?: string[][]; want: string }> = [
    { name: "simple single no propagation", err: () => fe("hear me roar", ["foo.bar"]), want: "hear me roar: foo.bar" },
    {
      name: "simple single propagation",
      err: () => fe(`invalid value "blah"`, ["foo"]),
      prefixes: [["bar"], ["baz", "ugh"], ["hoola"]],
      want: `invalid value "blah": hoola.baz.ugh.bar.foo`,
    },
    {
      name: "simple multiple propagation",
      err: () => fe("invalid field(s)", ["foo", "bar"]),
      prefixes: [["baz", "ugh"]],
      want: "invalid field(s): baz.ugh.bar, baz.ugh.foo",
    },
    {
      name: "multiple propagation with details",
      err: () => fe("invalid field(s)", ["foo", "bar"], "I am a long\nlong\nloooong\nBody."),
      prefixes: [["baz", "ugh"]],
      want: "invalid field(s): baz.ugh.bar, baz.ugh.foo\nI am a long\nlong\nloooong\nBody.",
    },
    {
      name: "single propagation, empty start",
      err: () => fe("invalid field(s)", [CURRENT_FIELD]),
      prefixes: [["baz", "ugh"]],
      want: "invalid field(s): baz.ugh",
    },
    {
      name: "single propagation, no paths",
      err: () => fe("invalid field(s)"),
      prefixes: [["baz", "ugh"]],
      want: "invalid field(s): ",
    },
    {
      name: "missing field propagation",
      err: () => errMissingField("foo", "bar"),
      prefixes: [["baz"]],
      want: "missing field(s): baz.bar, baz.foo",
    },
    {
      name: "internal error (CheckDisallowedFields failure) propagation",
      err: () => errGeneric("Internal Error", CURRENT_FIELD),
      prefixes: [["baz"]],
      want: "Internal Error: baz",
    },
    {
      name: "missing disallowed propagation",
      err: () => errDisallowedFields("foo", "bar"),
      prefixes: [["baz"]],
      want: "must not set the field(s): baz.bar, baz.foo",
    },
    {
      name: "invalid value propagation",
      err: () => errInvalidValue("foo", "bar"),
      prefixes: [["baz"]],
      want: "invalid value: foo: baz.bar",
    },
    {
      name: "invalid value propagation (int)",
      err: () => errInvalidValue(5, "bar"),
      prefixes: [["baz"]],
      want: "invalid value: 5: baz.bar",
    },
    {
      name: "invalid value propagation (duration)",
      err: () => errInvalidValue(duration("5s"), "bar"),
      prefixes: [["baz"]],
      want: "invalid value: 5s: baz.bar",
    },
    {
      name: "invalid value with details",
      err: () => errInvalidValue("foo", "bar", "qux"),
      prefixes: [["baz"]],
      want: "invalid value: foo: baz.bar\nqux",
    },
    {
      name: "missing mutually exclusive fields",
      err: () => errMissingOneOf("foo", "bar"),
      prefixes: [["baz"]],
      want: "expected exactly one, got neither: baz.bar, baz.foo",
    },
    {
      name: "multiple mutually exclusive fields",
      err: () => errMultipleOneOf("foo", "bar"),
      prefixes: [["baz"]],
      want: "expected exactly one, got both: baz.bar, baz.foo",
    },
    {
      name: "invalid key name",
      err: () => errInvalidKeyName("b@r", "foo[0].name", "can not use @", "do not try"),
      prefixes: [["baz"]],
      want: `invalid key name "b@r": baz.foo[0].name\ncan not use @, do not try`,
    },
    {
      name: "disallowed update deprecated fields",
      err: () => errDisallowedUpdateDeprecatedFields("foo", "bar"),
      prefixes: [["baz"]],
      want: "must not update deprecated field(s): baz.bar, baz.foo",
    },
    {
      name: "very complex to simple",
      err: () => {
        let e = also(fe("First", ["A", "B", "C"]));
        const first = e;
        for (let i = 0; i < 4; i++) e = also(e, first);
        e = also(e, fe("Second", ["Z", "X", "Y"]));
        const both = e;
        for (let i = 0; i < 4; i++) e = also(e, both);
        return e;
      },
      want: "First: A, B, C\nSecond: X, Y, Z",
    },
    {
      name: "exponentially grows",
      err: () => {
        let e: FieldError | undefined = fe("Top", ["A", "B", "C"]);
        for (const p of ["3", "2", "1"]) {
          for (let i = 0; i < 3; i++) e = also(e, e);
          e = viaField(e, p);
        }
        return e;
      },
      want: "Top: 1.2.3.A, 1.2.3.B, 1.2.3.C",
    },
    {
      name: "path grows but details are different",
      err: () => {
        let e: FieldError | undefined = fe("Top", ["A", "B", "C"]);
        for (const p of ["3", "2", "1"]) {
          const d = (e as FieldError).viaField(p).withDetails(`here at ${p}`);
          for (let i = 0; i < 3; i++) e = also(e, d);
        }
        return e;
      },
      want: [
        "Top: A, B, C",
        "Top: 1.A, 1.B, 1.C",
        "here at 1",
        "Top: 1.2.A, 1.2.B, 1.2.C, 2.A, 2.B, 2.C",
        "here at 2",
        "Top: 1.2.3.A, 1.2.3.B, 1.2.3.C, 1.3.A, 1.3.B, 1.3.C, 2.3.A, 2.3.B, 2.3.C, 3.A, 3.B, 3.C",
        "here at 3",
      ].join("\n"),
    },
    {
      name: "very complex to complex",
      err: () => {
        const first = fe("First", ["A", "B", "C"]);
        let e = also(first.viaField("one"), first);
        e = also(viaField(e, "two"), first);
        e = also(viaField(e, "three"), first);
        return also(e, fe("Second", ["Z", "X", "Y"]));
      },
      want:
        "First: A, B, C, three.A, three.B, three.C, three.two.A, three.two.B, three.two.C, three.two.one.A, three.two.one.B, three.two.one.C\n" +
        "Second: X, Y, Z",
    },
    {
      name: "out of bound value",
      err: () => errOutOfBoundsValue("a", "b", "c", "string"),
      prefixes: [["spec"]],
      want: "expected b <= a <= c: spec.string",
    },
    {
      name: "out of bound value (int)",
      err: () => errOutOfBoundsValue(-1, 0, 5, "timeout"),
      prefixes: [["spec"]],
      want: "expected 0 <= -1 <= 5: spec.timeout",
    },
    {
      name: "out of bound value (time.Duration)",
      err: () => errOutOfBoundsValue(duration("1s"), duration("2s"), duration("5s"), "timeout"),
      prefixes: [["spec"]],
      want: "expected 2s <= 1s <= 5s: spec.timeout",
    },
  ];

  it.each(cases)("$name", ({ err, prefixes, want }) => {
    expect(renderFieldError(propagate(err(), prefixes ?? []))).toBe(want);
  });

  it("keeps nil nil through propagation", () => {
    expect(propagate(undefined, [["baz", "ugh"]])).toBeUndefined();
    expect(renderFieldError(undefined)).toBe("");
  });
});

describe("FieldError index and key propagation — ported from TestViaIndexOrKeyFieldError", () => {
  const cases: Array<{ name: string; err: () => FieldError | undefined; prefixes: string[][]; want: string }> = [
    {
      name: "simple single no propagation",
      err: () => fe("hear me roar", ["bar"]),
      prefixes: [["INDEX:3", "INDEX:2", "INDEX:1", "foo"]],
      want: "hear me roar: foo[1][2][3].bar",
    },
    {
      name: "simple key",
      err: () => fe("hear me roar", ["bar"]),
      prefixes: [["KEY:C", "KEY:B", "KEY:A", "foo"]],
      want: "hear me roar: foo[A][B][C].bar",
    },
    {
      name: "missing field propagation",
      err: () => errMissingField("foo", "bar"),
      prefixes: [["[2]", "baz"]],
      want: "missing field(s): baz[2].bar, baz[2].foo",
    },
    {
      name: "invalid key name",
      err: () => errInvalidKeyName("b@r", "name", "can not use @", "do not try"),
      prefixes: [["baz", "INDEX:0", "foo"]],
      want: `invalid key name "b@r": foo[0].baz.name\ncan not use @, do not try`,
    },
    {
      name: "invalid key name with keys",
      err: () => errInvalidKeyName("b@r", "name", "can not use @", "do not try"),
      prefixes: [
        ["baz", "INDEX:0", "foo"],
        ["bar", "KEY:A", "boo"],
      ],
      want: `invalid key name "b@r": boo[A].bar.foo[0].baz.name\ncan not use @, do not try`,
    },
    {
      name: "multi prefixes provided",
      err: () => fe("invalid field(s)", ["foo"]),
      prefixes: [["INDEX:2"], ["bee"], ["INDEX:0"], ["baa", "baz", "ugh"]],
      want: "invalid field(s): ugh.baz.baa[0].bee[2].foo",
    },
    {
      name: "use helper viaFieldIndex",
      err: () => fe("invalid field(s)", ["foo"]),
      prefixes: [["FIELDINDEX:bee,2"], ["FIELDINDEX:baa,0"], ["baz", "ugh"]],
      want: "invalid field(s): ugh.baz.baa[0].bee[2].foo",
    },
    {
      name: "use helper viaFieldKey",
      err: () => fe("invalid field(s)", ["foo"]),
      prefixes: [["FIELDKEY:bee,AAA"], ["FIELDKEY:baa,BBB"], ["baz", "ugh"]],
      want: "invalid field(s): ugh.baz.baa[BBB].bee[AAA].foo",
    },
    {
      name: "bypass helpers",
      err: () => fe("invalid field(s)", ["foo"]),
      prefixes: [["[2]"], ["[1]"], ["bar"]],
      want: "invalid field(s): bar[1][2].foo",
    },
    {
      name: "multi paths provided",
      err: () => fe("invalid field(s)", ["foo", "bar"]),
      prefixes: [["INDEX:0"], ["index"], ["KEY:A"], ["map"]],
      want: "invalid field(s): map[A].index[0].bar, map[A].index[0].foo",
    },
    {
      name: "manual index",
      err: () =>
        fe("invalid field(s)", ["foo"])
          .viaIndex(0)
          .viaField("bar")
          .viaIndex(2)
          .viaIndex(1)
          .viaField("baz")
          .viaIndex(3)
          .viaIndex(4)
          .viaField("boof"),
      prefixes: [],
      want: "invalid field(s): boof[4][3].baz[1][2].bar[0].foo",
    },
    {
      name: "manual multiple index",
      err: () => fe("invalid field(s)", ["foo"]).viaField("bear", "[1]", "[2]", "[3]", "baz", "]xxx[").viaField("bar"),
      prefixes: [],
      want: "invalid field(s): bar.bear[1][2][3].baz.]xxx[.foo",
    },
    {
      name: "manual keys",
      err: () =>
        fe("invalid field(s)", ["foo"])
          .viaKey("A")
          .viaField("bar")
          .viaKey("CCC")
          .viaKey("BB")
          .viaField("baz")
          .viaKey("E")
          .viaKey("F")
          .viaField("jar"),
      prefixes: [],
      want: "invalid field(s): jar[F][E].baz[BB][CCC].bar[A].foo",
    },
    {
      name: "manual index and keys",
      err: () =>
        fe("invalid field(s)", ["foo", "faa"])
          .viaKey("A")
          .viaField("bar")
          .viaIndex(1)
          .viaField("baz")
          .viaKey("E")
          .viaIndex(0)
          .viaField("jar"),
      prefixes: [],
      want: "invalid field(s): jar[0][E].baz[1].bar[A].faa, jar[0][E].baz[1].bar[A].foo",
    },
    {
      name: "leaf field error with index",
      err: () => errInvalidArrayValue("kapot", "indexed", 5),
      prefixes: [],
      want: "invalid value: kapot: indexed[5]",
    },
    {
      name: "leaf field error with index (int)",
      err: () => errInvalidArrayValue(42, "indexed", 5),
      prefixes: [],
      want: "invalid value: 42: indexed[5]",
    },
  ];

  it.each(cases)("$name", ({ err, prefixes, want }) => {
    expect(renderFieldError(propagateOps(err(), prefixes))).toBe(want);
  });

  it("keeps nil nil through every via helper", () => {
    const out = propagateOps(undefined, [["INDEX:2"], ["KEY:B"], ["FIELDINDEX:AAA,6"], ["FIELDKEY:bee,AAA"], ["baz"]]);
    expect(out).toBeUndefined();
  });
});

describe("also — ported from TestAlso, TestMergeFieldErrors and TestAlsoStaysNil", () => {
  const cases: Array<{ name: string; err?: FieldError; also: FieldError[]; prefixes?: string[][]; want: string }> = [
    { name: "nil receiver", also: [fe("also this", ["woo"])], prefixes: [["foo"]], want: "also this: foo.woo" },
    {
      name: "simple",
      err: fe("hear me roar", ["bar"]),
      also: [fe("also this", ["woo"])],
      prefixes: [["foo", "[A]", "[B]", "[C]"]],
      want: "also this: foo[A][B][C].woo\nhear me roar: foo[A][B][C].bar",
    },
    {
      name: "lots of also",
      err: fe("knock knock", ["foo"]),
      also: [fe("also this", ["A"]), fe("and this", ["B"]), fe("not without this", ["C"])],
      prefixes: [["bar"]],
      want: "also this: bar.A\nand this: bar.B\nknock knock: bar.foo\nnot without this: bar.C",
    },
    {
      name: "merge simple",
      err: fe("A simple error message", ["bar"]),
      also: [fe("A simple error message", ["foo"])],
      want: "A simple error message: bar, foo",
    },
    {
      name: "merge conflict",
      err: fe("A simple error message", ["bar", "foo"]),
      also: [fe("A simple error message", ["foo"])],
      want: "A simple error message: bar, foo",
    },
    {
      name: "merge lots of also",
      err: also(fe("this error", ["bar", "foo"]), fe("another", ["right", "left"]))?.viaField("head"),
      also: [
        fe("An alpha error message", ["A"]),
        ...Array.from({ length: 6 }, () => fe("An alpha error message", ["B"])),
        fe("An alpha error message", ["C"]),
        fe("An alpha error message", ["D"]),
        fe("this error", ["foo"], "devil is in the details"),
        fe("this error", ["foo"], "more details"),
      ],
      prefixes: [["this"]],
      want: [
        "An alpha error message: this.A, this.B, this.C, this.D",
        "another: this.head.left, this.head.right",
        "this error: this.head.bar, this.head.foo",
        "this error: this.foo",
        "devil is in the details",
        "this error: this.foo",
        "more details",
      ].join("\n"),
    },
  ];

  it.each(cases)("$name", ({ err, also: more, prefixes, want }) => {
    let out = err;
    for (const m of more) out = also(out, m);
    expect(renderFieldError(propagate(out, prefixes ?? []))).toBe(want);
  });

  it("stays nil when only nil or empty errors are added", () => {
    expect(also(undefined)).toBeUndefined();
    expect(also(undefined, undefined)).toBeUndefined();
    expect(also(viaField(undefined, "nil"), undefined)).toBeUndefined();
    expect(also(undefined, new FieldError())).toBeUndefined();
    expect(also(undefined, undefined, new FieldError())).toBeUndefined();
  });

  it("returns the receiver itself when there is nothing to add", () => {
    const base = errMissingField("x");
    expect(also(base)).toBe(base);
    expect(also(base, undefined)).toBe(base);
    expect(also(base, new FieldError(), undefined)).toBe(base);
  });

  it("keeps a path-only error as non-empty but never renders it", () => {
    const pathOnly = new FieldError({ paths: ["x"] });
    expect(pathOnly.isEmpty()).toBe(false);
    const out = also(pathOnly, errMissingField("y"));
    expect(out?.errors).toHaveLength(1);
    expect(renderFieldError(out)).toBe("missing field(s): y");
  });

  it("never mutates its arguments", () => {
    const base = errMissingField("a");
    const extra = errMissingField("b");
    const combined = also(base, extra);
    expect(base.errors).toHaveLength(0);
    expect(combined?.errors).toEqual([extra]);
    expect(base.error()).toBe("missing field(s): a");
    expect(combined?.viaField("x").error()).toBe("missing field(s): x.a, x.b");
    expect(combined?.error()).toBe("missing field(s): a, b");
  });
});

describe("flatten — ported from TestFlatten (observed through ViaField on a CurrentField path)", () => {
  const flatten = (parts: string[]) => errGeneric("m", CURRENT_FIELD).viaField(...parts).paths[0];
  it.each([
    { indices: ["foo", "[1]"], want: "foo[1]" },
    { indices: ["foo", "bar"], want: "foo.bar" },
    { indices: ["foo", "bar", "[0]"], want: "foo.bar[0]" },
    { indices: ["foo", "[0]", "bar"], want: "foo[0].bar" },
    { indices: ["[0]", "foo", "bar"], want: "[0].foo.bar" },
    { indices: ["foo", "[1]", "[0]", "bar"], want: "foo[1][0].bar" },
    { indices: ["foo", "bar.[0].baz"], want: "foo.bar[0].baz" },
    { indices: ["a..b", "", ".c."], want: "a.b.c" },
  ])("$indices → $want", ({ indices, want }) => {
    expect(flatten(indices)).toBe(want);
  });

  it("applies each ViaField as its own flatten step (Go's flatten is not associative)", () => {
    // Go: ViaKey("k") → "[k].x"; ViaField("[a") → "[a[k].x"; ViaField("f") sees "[a[k]" as an index.
    const stepwise = errGeneric("m", "x").viaKey("k").viaField("[a").viaField("f");
    expect(stepwise.paths).toEqual(["f[a[k].x"]);
    expect(errGeneric("m", "x").viaField("f", "[a", "[k]").paths).toEqual(["f.[a[k].x"]);
  });
});

describe("path rules (knative.dev/pkg apis/field_error.go: flatten; docs/knative-behavior.md#paths)", () => {
  it("re-splits dotted field names: ViaField('metadata.annotations') ≡ two ViaField calls", () => {
    const a = errInvalidValue("x", "autoscaling.knative.dev/min-scale").viaField("metadata.annotations");
    const b = errInvalidValue("x", "autoscaling.knative.dev/min-scale").viaField("annotations").viaField("metadata");
    expect(a.error()).toBe("invalid value: x: metadata.annotations.autoscaling.knative.dev/min-scale");
    expect(a.error()).toBe(b.error());
  });

  it("puts a dot before a dotted ViaKey key (docs/knative-behavior.md#paths)", () => {
    const err = errInvalidValue("x", CURRENT_FIELD)
      .viaKey("queue.sidecar.serving.knative.dev/x")
      .viaField("annotations")
      .viaField("metadata");
    expect(err.paths).toEqual(["metadata.annotations.[queue.sidecar.serving.knative.dev/x]"]);
  });

  it("glues an undotted ViaKey key onto its field", () => {
    expect(errGeneric("m", CURRENT_FIELD).viaKey("cpu").viaField("limits").paths).toEqual(["limits[cpu]"]);
  });

  it("keeps path-less errors path-less forever (docs/knative-behavior.md#paths)", () => {
    const err = errGeneric("pod spec support for init-containers is off, but found 2 init containers")
      .viaField("spec")
      .viaIndex(3)
      .viaKey("k");
    expect(err.paths).toEqual([]);
    expect(err.error()).toBe("pod spec support for init-containers is off, but found 2 init containers: ");
  });

  it("turns CurrentField into the prefix: ErrInvalidValue(v, '').ViaField('x') → x", () => {
    expect(errInvalidValue(3, CURRENT_FIELD).viaField("x").error()).toBe("invalid value: 3: x");
  });

  it("exposes paths of nested children with every enclosing prefix applied", () => {
    const tree = also(errMissingField("a"), errMissingField("b").viaIndex(0))?.viaField("spec");
    expect(tree?.paths).toEqual(["spec.a"]);
    expect(tree?.errors.map((e) => e.paths)).toEqual([["spec[0].b"]]);
  });
});

describe("rendering (apis/field_error.go: (*FieldError).Error; docs/knative-behavior.md#rendering-and-merging)", () => {
  it("renders the multi-error example of docs/knative-behavior.md#worked-examples sorted by message", () => {
    let errs: FieldError | undefined;
    errs = also(errs, errInvalidValue("never", "autoscaling.knative.dev/max-scale"));
    errs = also(errs, errInvalidValue("fifty", "autoscaling.knative.dev/panic-threshold-percentage"));
    errs = also(errs, errOutOfBoundsValue(-11, 1, 100, "autoscaling.knative.dev/panic-window-percentage"));
    errs = also(errs, errOutOfBoundsValue(-4, 0, 2147483647, "autoscaling.knative.dev/min-scale"));
    expect(renderFieldError(errs)).toBe(
      "expected 0 <= -4 <= 2147483647: autoscaling.knative.dev/min-scale\n" +
        "expected 1 <= -11 <= 100: autoscaling.knative.dev/panic-window-percentage\n" +
        "invalid value: fifty: autoscaling.knative.dev/panic-threshold-percentage\n" +
        "invalid value: never: autoscaling.knative.dev/max-scale",
    );
  });

  it("merges same (level, message, details) and sorts the merged paths", () => {
    const errs = also(
      errInvalidValue("bar", "autoscaling.knative.dev/min-scale"),
      errInvalidValue("bar", "autoscaling.knative.dev/max-scale"),
    );
    expect(renderFieldError(errs)).toBe(
      "invalid value: bar: autoscaling.knative.dev/max-scale, autoscaling.knative.dev/min-scale",
    );
  });

  it("does not merge leaves that differ in details or level", () => {
    const errs = also(
      errGeneric("m", "b"),
      errGeneric("m", "a").withDetails("d"),
      errGeneric("m", "c").at("Warning"),
      errGeneric("m", "d"),
    );
    // Sorted by message, then details ("" < "d"), then level ("Error" < "Warning").
    expect(renderFieldError(errs)).toBe("m: b, d\nm: c\nm: a\nd");
  });

  it("keeps duplicate paths of a single unmerged leaf, as Go does", () => {
    expect(errMissingField("x", "x").error()).toBe("missing field(s): x, x");
    expect(also(errMissingField("x", "x"), errMissingField("y", "x"))?.error()).toBe("missing field(s): x, x, y");
  });

  it("sorts messages and paths in byte order, not locale order (docs/knative-behavior.md#rendering-and-merging)", () => {
    const errs = also(
      errGeneric("must not set the field(s)", "spec.traffic[1].url"),
      errGeneric("expected 0 <= -1 <= 100", "spec.traffic[1].percent"),
      errGeneric("Traffic targets sum to 119, want 100", "spec.traffic"),
      errGeneric("Multiple definitions for \"X\"", "spec.traffic[1].tag", "spec.traffic[0].tag"),
      errGeneric("invalid", "b", "B", "a", "_", "Z"),
    );
    expect(renderFieldError(errs)).toBe(
      'Multiple definitions for "X": spec.traffic[0].tag, spec.traffic[1].tag\n' +
        "Traffic targets sum to 119, want 100: spec.traffic\n" +
        "expected 0 <= -1 <= 100: spec.traffic[1].percent\n" +
        "invalid: B, Z, _, a, b\n" +
        "must not set the field(s): spec.traffic[1].url",
    );
  });

  it("renders details on the line after the paths (docs/knative-behavior.md#worked-examples, example 3)", () => {
    const err = new FieldError({
      message: "more than one container port is set",
      paths: ["containers[*].ports"],
      details: "Only a single port is allowed across all containers",
    }).viaField("spec.template.spec");
    expect(err.error()).toBe(
      "more than one container port is set: spec.template.spec.containers[*].ports\n" +
        "Only a single port is allowed across all containers",
    );
  });

  it("renders docs/knative-behavior.md#worked-examples example 1 (service-level autoscaling annotation + concurrency)", () => {
    const meta = errInvalidKeyName(
      "autoscaling.knative.dev/min-scale",
      "annotations",
      'autoscaling annotations must be put under "spec.template.metadata.annotations" to work',
    ).viaField("metadata");
    const spec = errOutOfBoundsValue(2000, 0, 1000, "containerConcurrency").viaField("spec").viaField("template").viaField("spec");
    expect(renderFieldError(also(meta, spec))).toBe(
      "expected 0 <= 2000 <= 1000: spec.template.spec.containerConcurrency\n" +
        'invalid key name "autoscaling.knative.dev/min-scale": metadata.annotations\n' +
        'autoscaling annotations must be put under "spec.template.metadata.annotations" to work',
    );
  });

  it("renders docs/knative-behavior.md#worked-examples example 2 (duration bounds on a dotted annotation key)", () => {
    const err = errOutOfBoundsValue(duration("1s"), duration("6s"), duration("1h0m0s"), "autoscaling.knative.dev/window")
      .viaField("annotations")
      .viaField("metadata")
      .viaField("template")
      .viaField("spec");
    expect(err.error()).toBe(
      "expected 6s <= 1s <= 1h0m0s: spec.template.metadata.annotations.autoscaling.knative.dev/window",
    );
  });

  it("renders docs/knative-behavior.md#worked-examples example 4 (path-less message sorts after 'must…')", () => {
    const errs = also(
      errDisallowedFields("initContainers"),
      errGeneric("pod spec support for init-containers is off, but found 2 init containers"),
    )?.viaField("spec.template.spec");
    expect(renderFieldError(errs)).toBe(
      "must not set the field(s): spec.template.spec.initContainers\n" +
        "pod spec support for init-containers is off, but found 2 init containers: ",
    );
  });

  it("renders the queue-sidecar resource-percentage vector", () => {
    const err = errOutOfBoundsValue(0.01982, 0.1, 100, CURRENT_FIELD)
      .viaKey("queue.sidecar.serving.knative.dev/resource-percentage")
      .viaField("annotations")
      .viaField("metadata")
      .viaField("spec.template");
    expect(err.error()).toBe(
      "expected 0.1 <= 0.01982 <= 100: spec.template.metadata.annotations.[queue.sidecar.serving.knative.dev/resource-percentage]",
    );
  });

  it("renders an empty string for trees with no message anywhere", () => {
    expect(new FieldError().error()).toBe("");
    expect(new FieldError({ paths: ["a"], details: "d" }).error()).toBe("");
  });

  it("treats hostile strings as plain data", () => {
    const errs = also(
      errGeneric("__proto__", "constructor"),
      errGeneric("__proto__", "__proto__"),
      errInvalidValue("toString", CURRENT_FIELD).viaKey("__proto__").viaField("hasOwnProperty"),
    );
    expect(renderFieldError(errs)).toBe("__proto__: __proto__, constructor\ninvalid value: toString: hasOwnProperty[__proto__]");
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });
});

describe("levels: at, filter, wrappedErrors", () => {
  const insecure = "Kubernetes default value is insecure, Knative may default this to secure in a future release";
  const warnings = () =>
    ["runAsNonRoot", "allowPrivilegeEscalation", "seccompProfile", "capabilities"]
      .map((f) => errGeneric(insecure, `securityContext.${f}`).at("Warning"))
      .reduce<FieldError | undefined>((acc, w) => also(acc, w), undefined);

  it("at() sets the level on the whole tree", () => {
    const tree = also(errMissingField("a"), errMissingField("b"))?.at("Warning");
    expect(tree?.level).toBe("Warning");
    expect(tree?.errors.map((e) => e.level)).toEqual(["Warning"]);
  });

  it("filter() keeps only diagnostics of the requested level", () => {
    const tree = also(
      errOutOfBoundsValue(1001, 0, 1000, "containerConcurrency"),
      warnings()?.viaIndex(0).viaField("containers"),
    )?.viaField("spec");
    expect(filter(tree, "Error")?.error()).toBe("expected 0 <= 1001 <= 1000: spec.containerConcurrency");
    expect(filter(tree, "Warning")?.error()).toBe(
      `${insecure}: spec.containers[0].securityContext.allowPrivilegeEscalation, ` +
        "spec.containers[0].securityContext.capabilities, spec.containers[0].securityContext.runAsNonRoot, " +
        "spec.containers[0].securityContext.seccompProfile",
    );
  });

  it("filter() returns undefined when nothing of that level exists", () => {
    expect(filter(errMissingField("a"), "Warning")).toBeUndefined();
    expect(filter(warnings(), "Error")).toBeUndefined();
    expect(filter(undefined, "Error")).toBeUndefined();
  });

  it("filter() drops a warning parent but keeps its error child", () => {
    const tree = also(errGeneric("w", "a").at("Warning"), errGeneric("e", "b"));
    expect(tree?.filter("Error")?.error()).toBe("e: b");
    expect(tree?.filter("Warning")?.error()).toBe("w: a");
  });

  it("wrappedErrors() yields one merged leaf per warning, details included", () => {
    const tree = also(
      warnings(),
      errInvalidValue("all", "securityContext.capabilities.drop", "Must be spelled as 'ALL'").at("Warning"),
    )?.viaField("spec.template.spec.containers[0]");
    const leaves = tree?.filter("Warning")?.wrappedErrors() ?? [];
    expect(leaves.map((l) => l.error())).toEqual([
      `${insecure}: spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation, ` +
        "spec.template.spec.containers[0].securityContext.capabilities, " +
        "spec.template.spec.containers[0].securityContext.runAsNonRoot, " +
        "spec.template.spec.containers[0].securityContext.seccompProfile",
      "invalid value: all: spec.template.spec.containers[0].securityContext.capabilities.drop\nMust be spelled as 'ALL'",
    ]);
    expect(leaves.every((l) => l.level === "Warning" && l.errors.length === 0)).toBe(true);
  });

  it("wrappedErrorTexts() renders each merged leaf", () => {
    const tree = also(warnings(), errGeneric("m", "b", "a", "b"))?.viaField("spec");
    expect(tree?.filter("Warning")?.wrappedErrorTexts()).toEqual([
      `${insecure}: spec.securityContext.allowPrivilegeEscalation, spec.securityContext.capabilities, ` +
        "spec.securityContext.runAsNonRoot, spec.securityContext.seccompProfile",
    ]);
    // A single leaf keeps a repeated path (Go merges paths only across leaves) and sorts them.
    expect(tree?.filter("Error")?.wrappedErrorTexts()).toEqual(["m: spec.a, spec.b, spec.b"]);
  });

  it("wrappedErrors() keeps warnings and errors of the same message apart", () => {
    const tree = also(errGeneric("m", "a"), errGeneric("m", "b").at("Warning"));
    expect(tree?.wrappedErrors().map((l) => [l.level, l.paths])).toEqual([
      ["Error", ["a"]],
      ["Warning", ["b"]],
    ]);
  });
});

describe("goSprint (Go fmt.Sprint of one value)", () => {
  it.each<[unknown, string]>([
    ["plain", "plain"],
    ["", ""],
    [5, "5"],
    [-4, "-4"],
    [2147483648, "2147483648"],
    [0, "0"],
    [-0, "0"],
    [0.5, "0.5"],
    [0.01982, "0.01982"],
    [1e-5, "1e-05"],
    [0.0001, "0.0001"],
    [1.5e-7, "1.5e-07"],
    [123456.5, "123456.5"],
    [1234567.5, "1.2345675e+06"],
    [1e21, "1e+21"],
    [1.7976931348623157e308, "1.7976931348623157e+308"],
    [5e-324, "5e-324"],
    [NaN, "NaN"],
    [Infinity, "+Inf"],
    [-Infinity, "-Inf"],
    [true, "true"],
    [false, "false"],
    [null, "<nil>"],
    [undefined, "<nil>"],
    [10n, "10"],
    [["a", "b", "c"], "[a b c]"],
    [[1, [2, 3], []], "[1 [2 3] []]"],
    [duration("1h0m0s"), "1h0m0s"],
    [new Map([["b", 1], ["a", 2]]), "map[a:2 b:1]"],
  ])("%o → %s", (value, want) => {
    expect(goSprint(value)).toBe(want);
  });

  it.each<[number, string]>([
    [1, "1"],
    [100, "100"],
    [1e6, "1e+06"],
    [2147483647, "2.147483647e+09"],
    [-0, "-0"],
    [999999, "999999"],
    [0.1, "0.1"],
  ])("goFloat64(%d) prints as a Go float64: %s", (value, want) => {
    expect(goSprint(goFloat64(value))).toBe(want);
    expect(goFormatFloat(value)).toBe(want);
  });
});

describe("goQuote (Go %q)", () => {
  it.each<[string, string]>([
    ["b@r", '"b@r"'],
    ["", '""'],
    ['say "hi"\\', '"say \\"hi\\"\\\\"'],
    ["\n\t\r\x07\b\f\v", '"\\n\\t\\r\\a\\b\\f\\v"'],
    ["\x00\x1f\x7f", '"\\x00\\x1f\\x7f"'],
    ["héllo ☃ 😀", '"héllo ☃ 😀"'],
    ["\u00a0\u0085\u200b", '"\\u00a0\\u0085\\u200b"'],
    ["\u{e0001}", '"\\U000e0001"'],
    ["\ud800", '"\ufffd"'],
  ])("%j → %s", (value, want) => {
    expect(goQuote(value)).toBe(want);
  });
});

describe("compareByteOrder", () => {
  it("orders by UTF-8 bytes (astral code points after U+FFFF)", () => {
    const words = ["b", "a", "\uffff", "😀", "B", "ab", "", "\ue000"];
    expect([...words].sort(compareByteOrder)).toEqual(["", "B", "a", "ab", "b", "\ue000", "\uffff", "😀"]);
    const utf8 = (s: string) => Buffer.from(s, "utf8");
    expect([...words].sort(compareByteOrder)).toEqual([...words].sort((x, y) => Buffer.compare(utf8(x), utf8(y))));
  });

  it("agrees with code point order on strings with and without units from U+D800, sharing prefixes", () => {
    // Code point order, written out: what the native comparison must not replace where both strings have such units.
    const byCodePoints = (x: string, y: string): number => {
      const a = [...x].map((c) => c.codePointAt(0) as number);
      const b = [...y].map((c) => c.codePointAt(0) as number);
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
      return a.length - b.length;
    };
    const units = ["a", "z", "é", "\ud7ff", "\ue000", "\uffff", "😀", "𐀀"];
    // xorshift32: a fixed sequence of pairs.
    let seed = 2463534242;
    const next = (n: number): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    const word = (): string => Array.from({ length: next(4) }, () => units[next(units.length)]).join("");
    for (let i = 0; i < 2000; i++) {
      const prefix = word();
      const x = prefix + word();
      const y = prefix + word();
      expect(Math.sign(compareByteOrder(x, y)), `${JSON.stringify(x)} vs ${JSON.stringify(y)}`).toBe(Math.sign(byCodePoints(x, y)));
    }
  });
});

// ---------------------------------------------------------------------------------------------
// A direct, eager transcription of knative.dev/pkg apis/field_error.go, used as the oracle for
// the lazily-prefixed implementation above.

interface GoFE {
  message: string;
  paths: string[];
  level: DiagnosticLevel;
  details: string;
  errors: GoFE[];
}

const goIsEmpty = (e: GoFE | undefined) =>
  e === undefined || (e.message === "" && e.details === "" && e.errors.length === 0 && e.paths.length === 0);

function goFlatten(path: string[]): string {
  const out: string[] = [];
  for (const part of path) {
    for (const p of part.split(".")) {
      if (p === "") continue;
      if (out.length > 0 && p.startsWith("[") && p.endsWith("]")) out[out.length - 1] += p;
      else out.push(p);
    }
  }
  return out.join(".");
}

function goAlso(fe: GoFE | undefined, ...errs: Array<GoFE | undefined>): GoFE | undefined {
  if (errs.length === 0 || (errs.length === 1 && goIsEmpty(errs[0]))) return fe;
  const n: GoFE = !goIsEmpty(fe)
    ? { ...(fe as GoFE), errors: [...(fe as GoFE).errors] }
    : { message: "", paths: [], level: "Error", details: "", errors: [] };
  for (const e of errs) if (!goIsEmpty(e)) n.errors.push(e as GoFE);
  return goIsEmpty(n) ? undefined : n;
}

function goVia(fe: GoFE | undefined, prefix: string[]): GoFE | undefined {
  if (fe === undefined) return undefined;
  let n: GoFE | undefined = {
    message: fe.message,
    level: fe.level,
    details: fe.details,
    paths: fe.paths.map((p) => goFlatten([...prefix, p])),
    errors: [],
  };
  for (const e of fe.errors) n = goAlso(n, goVia(e, prefix));
  return n;
}

function goAt(fe: GoFE | undefined, l: DiagnosticLevel): GoFE | undefined {
  if (fe === undefined) return undefined;
  let n: GoFE | undefined = { message: fe.message, level: l, details: fe.details, paths: fe.paths, errors: [] };
  for (const e of fe.errors) n = goAlso(n, goAt(e, l));
  return n;
}

function goFilter(fe: GoFE | undefined, l: DiagnosticLevel): GoFE | undefined {
  if (fe === undefined) return undefined;
  let n: GoFE | undefined =
    fe.level === l ? { message: fe.message, level: fe.level, details: fe.details, paths: fe.paths, errors: [] } : undefined;
  for (const e of fe.errors) n = goAlso(n, goFilter(e, l));
  return goIsEmpty(n) ? undefined : n;
}

function goError(fe: GoFE | undefined): string {
  const leaves: GoFE[] = [];
  const walk = (e: GoFE) => {
    if (e.message !== "") leaves.push({ ...e, errors: [] });
    e.errors.forEach(walk);
  };
  if (fe !== undefined) walk(fe);
  const m = new Map<string, GoFE>();
  for (const e of leaves) {
    const k = `${e.level}-${e.message}-${e.details}`;
    const v = m.get(k);
    if (v === undefined) m.set(k, e);
    else {
      const merged = [...v.paths];
      for (const p of e.paths) if (!merged.includes(p)) merged.push(p);
      v.paths = merged;
    }
  }
  const groups = [...m.values()].map((v) => ({ ...v, paths: [...v.paths].sort(compareByteOrder) }));
  groups.sort(
    (a, b) =>
      compareByteOrder(a.message, b.message) || compareByteOrder(a.details, b.details) || compareByteOrder(a.level, b.level),
  );
  return groups.map((e) => `${e.message}: ${e.paths.join(", ")}${e.details === "" ? "" : "\n" + e.details}`).join("\n");
}

type Op =
  | { kind: "via"; prefix: string[] }
  | { kind: "index"; i: number }
  | { kind: "key"; k: string }
  | { kind: "fieldIndex"; f: string; i: number }
  | { kind: "fieldKey"; f: string; k: string }
  | { kind: "at"; level: DiagnosticLevel }
  | { kind: "filter"; level: DiagnosticLevel }
  | { kind: "alsoLeaf"; message: string; paths: string[]; details: string; level: DiagnosticLevel }
  | { kind: "alsoSelf" }
  | { kind: "selfAlso" };

describe("lazy prefixes agree with an eager transcription of the Go code", () => {
  const segment = fc.constantFrom("a", "b", "spec", "[0]", "[k]", "x.y", "[a", "b]", "", ".", "[1].c", "[", "]", "q.[2]");
  const level = fc.constantFrom<DiagnosticLevel>("Error", "Warning");
  const op: fc.Arbitrary<Op> = fc.oneof(
    fc.record({ kind: fc.constant("via" as const), prefix: fc.array(segment, { maxLength: 3 }) }),
    fc.record({ kind: fc.constant("index" as const), i: fc.nat(3) }),
    fc.record({ kind: fc.constant("key" as const), k: segment }),
    fc.record({ kind: fc.constant("fieldIndex" as const), f: segment, i: fc.nat(3) }),
    fc.record({ kind: fc.constant("fieldKey" as const), f: segment, k: segment }),
    fc.record({ kind: fc.constant("at" as const), level }),
    fc.record({ kind: fc.constant("filter" as const), level }),
    fc.record({
      kind: fc.constant("alsoLeaf" as const),
      message: fc.constantFrom("", "m", "n", "M"),
      paths: fc.array(segment, { maxLength: 3 }),
      details: fc.constantFrom("", "d"),
      level,
    }),
    fc.constant({ kind: "alsoSelf" as const }),
    fc.constant({ kind: "selfAlso" as const }),
  );

  function run(ops: Op[]): { ours: FieldError | undefined; theirs: GoFE | undefined } {
    let ours: FieldError | undefined;
    let theirs: GoFE | undefined;
    for (const o of ops) {
      switch (o.kind) {
        case "via":
          ours = viaField(ours, ...o.prefix);
          theirs = goVia(theirs, o.prefix);
          break;
        case "index":
          ours = viaIndex(ours, o.i);
          theirs = goVia(theirs, [`[${o.i}]`]);
          break;
        case "key":
          ours = viaKey(ours, o.k);
          theirs = goVia(theirs, [`[${o.k}]`]);
          break;
        case "fieldIndex":
          ours = viaFieldIndex(ours, o.f, o.i);
          theirs = goVia(goVia(theirs, [`[${o.i}]`]), [o.f]);
          break;
        case "fieldKey":
          ours = viaFieldKey(ours, o.f, o.k);
          theirs = goVia(goVia(theirs, [`[${o.k}]`]), [o.f]);
          break;
        case "at":
          ours = ours?.at(o.level);
          theirs = goAt(theirs, o.level);
          break;
        case "filter":
          ours = filter(ours, o.level);
          theirs = goFilter(theirs, o.level);
          break;
        case "alsoLeaf":
          ours = also(ours, new FieldError(o));
          theirs = goAlso(theirs, { ...o, paths: [...o.paths], errors: [] });
          break;
        case "alsoSelf":
          ours = also(ours, ours);
          theirs = goAlso(theirs, theirs);
          break;
        case "selfAlso":
          ours = also(errGeneric("s", "p"), ours);
          theirs = goAlso({ message: "s", paths: ["p"], level: "Error", details: "", errors: [] }, theirs);
          break;
      }
    }
    return { ours, theirs };
  }

  const shape = (e: FieldError | undefined): unknown =>
    e === undefined
      ? null
      : { m: e.message, p: e.paths, l: e.level, d: e.details, c: e.errors.map(shape) };
  const goShape = (e: GoFE | undefined): unknown =>
    e === undefined ? null : { m: e.message, p: e.paths, l: e.level, d: e.details, c: e.errors.map(goShape) };

  it("wrappedErrorTexts() is wrappedErrors() rendered one by one, and filter() keeps the rendering", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 14 }), level, (ops, l) => {
        const { ours, theirs } = run(ops);
        if (ours === undefined) return;
        expect(ours.wrappedErrorTexts()).toEqual(ours.wrappedErrors().map((e) => e.error()));
        expect(ours.wrappedErrorTexts().join("\n")).toBe(goError(theirs));
        expect(renderFieldError(ours.filter(l))).toBe(goError(goFilter(theirs, l)));
      }),
      { numRuns: 1500, seed: 20_261_125 },
    );
  });

  it("wrappedErrorTextsAt and errorAt answer as filter then wrappedErrorTexts and error", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 14 }), level, (ops, l) => {
        const { ours } = run(ops);
        if (ours === undefined) return;
        expect(ours.wrappedErrorTextsAt(l)).toEqual(ours.filter(l)?.wrappedErrorTexts());
        expect(ours.errorAt(l)).toBe(ours.filter(l)?.error());
      }),
      { numRuns: 1500, seed: 20_261_128 },
    );
  });

  it("renders and structures every random operation sequence identically", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 14 }), (ops) => {
        const { ours, theirs } = run(ops);
        expect(renderFieldError(ours)).toBe(goError(theirs));
        expect(shape(ours)).toEqual(goShape(theirs));
      }),
      { numRuns: 1500, seed: 20_261_126 },
    );
  });
});

describe("also appends like Go's slices: in place when it can, never into a sibling's view", () => {
  const a = errMissingField("a");
  const b = errMissingField("b");
  it("keeps every earlier error unchanged when two errors grow from the same base", () => {
    const base = also(undefined, a, errGeneric("one", "x"));
    const left = also(base, errGeneric("left", "l"));
    const right = also(base, errGeneric("right", "r"));
    const leftAgain = also(left, b);
    expect(renderFieldError(base)).toBe("missing field(s): a\none: x");
    expect(renderFieldError(left)).toBe("left: l\nmissing field(s): a\none: x");
    expect(renderFieldError(right)).toBe("missing field(s): a\none: x\nright: r");
    expect(renderFieldError(leftAgain)).toBe("left: l\nmissing field(s): a, b\none: x");
    expect(base?.errors.length).toBe(2);
    expect(left?.errors.length).toBe(3);
  });
  it("keeps a prefixed base's view when it grows (a via* step copies, as in Go)", () => {
    const base = viaField(also(undefined, a, b), "spec");
    const grown = also(base, errGeneric("c", "c"));
    expect(renderFieldError(grown)).toBe("c: c\nmissing field(s): spec.a, spec.b");
    expect(renderFieldError(viaField(grown, "x"))).toBe("c: x.c\nmissing field(s): x.spec.a, x.spec.b");
    expect(renderFieldError(base)).toBe("missing field(s): spec.a, spec.b");
  });
  it("accumulates 200,000 errors in a loop (linear: this took minutes when every also copied)", () => {
    let errs: FieldError | undefined;
    for (let i = 0; i < 200_000; i++) errs = also(errs, viaFieldIndex(errMissingField("image"), "containers", i));
    const text = renderFieldError(errs);
    // The first MAX_RENDERED_ERROR_PATHS in Go's order are rendered (sorted as Go sorts), the rest counted.
    expect(text.startsWith("missing field(s): containers[0].image, containers[1000].image, ")).toBe(true);
    // Byte order: "]" sorts after "9", so containers[9] comes last.
    expect(text).toContain(", containers[9].image\n");
    expect(text.split(", ").length).toBe(MAX_RENDERED_ERROR_PATHS);
    expect(text.endsWith(`\n${moreErrorsLine(200_000 - MAX_RENDERED_ERROR_PATHS)}`)).toBe(true);
  });
});

describe("bounded rendering (MAX_RENDERED_ERROR_PATHS, MAX_HELD_ERROR_PATHS)", () => {
  const many = (n: number, make: (i: number) => FieldError): FieldError | undefined => {
    let errs: FieldError | undefined;
    for (let i = 0; i < n; i++) errs = also(errs, make(i));
    return errs;
  };
  it("renders exactly as Go up to the bound, with no extra line", () => {
    const errs = many(MAX_RENDERED_ERROR_PATHS, (i) => errMissingField("name").viaIndex(i).viaField("env"));
    const text = renderFieldError(errs);
    expect(text.split(", ").length).toBe(MAX_RENDERED_ERROR_PATHS);
    expect(text).not.toContain("too many errors");
  });
  it("counts one past the bound", () => {
    const errs = many(MAX_RENDERED_ERROR_PATHS + 1, (i) => errMissingField("name").viaIndex(i).viaField("env"));
    expect(renderFieldError(errs).endsWith(`\n${moreErrorsLine(1)}`)).toBe(true);
  });
  it("counts dropped errors once they reach a parent, through via* steps", () => {
    const inner = many(MAX_HELD_ERROR_PATHS + 500, (i) => errMissingField("name").viaIndex(i));
    const outer = also(errGeneric("other", "x"), viaField(inner, "env"), errGeneric("late", "y"));
    const text = renderFieldError(outer);
    // "other" (first in Go's order) and 9,999 held env paths fill the budget; the last held env path, the 500
    // dropped ones and "late" are counted.
    expect(text.startsWith("missing field(s): env[0].name, ")).toBe(true);
    expect(text).toContain("\nother: x");
    expect(text).not.toContain("late: y");
    expect(text.endsWith(moreErrorsLine(502))).toBe(true);
  });
  it("keeps the count of each level through filter and at", () => {
    const warnings = many(MAX_HELD_ERROR_PATHS + 7, (i) => errGeneric("w", "p").viaIndex(i).at("Warning"));
    const mixed = also(warnings, errMissingField("e"));
    // The tree was full of warnings: the error is dropped, and still counted, so an error is never lost.
    expect(renderFieldError(filter(mixed, "Error"))).toBe(moreErrorsLine(1));
    const warned = filter(mixed, "Warning") as FieldError;
    const texts = warned.wrappedErrorTexts();
    // MAX held warnings, plus the 7 dropped, plus the error that was dropped with them (mixed was already full).
    expect(texts.at(-1)).toBe(moreErrorsLine(7));
    expect(renderFieldError(at(mixed, "Error"))).toContain(moreErrorsLine(8));
    // The level views without a filtered tree count alike.
    expect(mixed?.errorAt("Error")).toBe(moreErrorsLine(1));
    expect(mixed?.wrappedErrorTextsAt("Warning")).toEqual(texts);
  });
  it("takes the first paths of a single leaf with more paths than the bound", () => {
    const paths = Array.from({ length: MAX_RENDERED_ERROR_PATHS + 3 }, (_, i) => `p${String(i).padStart(6, "0")}`);
    const text = renderFieldError(errMissingField(...paths));
    expect(text.startsWith("missing field(s): p000000, p000001, ")).toBe(true);
    expect(text.endsWith(`p009999\n${moreErrorsLine(3)}`)).toBe(true);
  });
  it("a million errors render in bounded memory", () => {
    const errs = many(1_000_000, (i) => errMissingField("name").viaIndex(i).viaField("volumes"));
    const text = renderFieldError(errs);
    expect(text.length).toBeLessThan(MAX_RENDERED_ERROR_PATHS * 40);
    expect(text.endsWith(moreErrorsLine(1_000_000 - MAX_RENDERED_ERROR_PATHS))).toBe(true);
  });
});

describe("loops that stop checking once the tree is full (isFull, withUncheckedEntries)", () => {
  it("says how many list entries were not checked, in the errors' view only", () => {
    let errs: FieldError | undefined;
    let i = 0;
    for (; i < 1_000_000 && !isFull(errs); i++) errs = also(errs, errMissingField("name").viaIndex(i));
    expect(i).toBe(MAX_HELD_ERROR_PATHS);
    const done = viaField(withUncheckedEntries(errs, 1_000_000 - i), "env");
    const all = also(done, errGeneric("w", "x").at("Warning"));
    expect(renderFieldError(filter(all, "Error")).endsWith(`\n${moreErrorsLine(0, 990_000)}`)).toBe(true);
    expect(moreErrorsLine(0, 990_000)).toBe("too many errors: 990000 more list entries not checked");
    expect(moreErrorsLine(3, 990_000)).toBe("too many errors: 3 more not shown, 990000 more list entries not checked");
    // Dropped into a full parent, the count still arrives.
    const parent = also(also(undefined, done), errGeneric("later", "y"));
    expect(renderFieldError(parent)).toContain("990000 more list entries not checked");
    // The warning came when the tree was full: counted in the warnings' view, without the unchecked entries.
    expect(filter(all, "Warning")?.wrappedErrorTexts()).toEqual([moreErrorsLine(1)]);
    expect(all?.wrappedErrorTextsAt("Warning")).toEqual([moreErrorsLine(1)]);
    expect(all?.errorAt("Error")).toBe(renderFieldError(filter(all, "Error")));
  });
  it("a tree full of warnings that stopped checking has an errors' view of the unchecked entries alone", () => {
    let warns: FieldError | undefined;
    for (let i = 0; !isFull(warns); i++) warns = also(warns, errGeneric("w", "p").viaIndex(i).at("Warning"));
    const stopped = withUncheckedEntries(warns, 5) as FieldError;
    expect(renderFieldError(filter(stopped, "Error"))).toBe(moreErrorsLine(0, 5));
    expect(stopped.errorAt("Error")).toBe(moreErrorsLine(0, 5));
    expect(stopped.wrappedErrorTextsAt("Warning")).toEqual(filter(stopped, "Warning")?.wrappedErrorTexts());
  });
});

describe("MAX_RENDERED_ERROR_PATH_CHARS", () => {
  it("renders paths while their characters fit, and counts the rest", () => {
    const long = "p".repeat(Math.floor(MAX_RENDERED_ERROR_PATH_CHARS * 0.4));
    const errs = also(errGeneric("a", `${long}1`), errGeneric("b", `${long}2`), errGeneric("c", `${long}3`), errGeneric("d", "short"));
    const text = renderFieldError(errs);
    expect(text).toContain(`a: ${long}1`);
    expect(text).toContain(`b: ${long}2`);
    // The third long path does not fit; nothing after it is rendered either.
    expect(text).not.toContain("c: ");
    expect(text).not.toContain("d: short");
    expect(text.endsWith(`\n${moreErrorsLine(2)}`)).toBe(true);
  });
});

describe("applySteps (Go's repeated flatten)", () => {
  const part = fc.constantFrom("a", "spec", "b.c", "[0]", "[12]", "[a", "b]", "", "[x.y]", ".", "[]", "[", "]", "a[0]", "[k]x", "..", "x.[0]");
  it("glues plain names and whole indices in one pass as step by step", () => {
    expect(applySteps("image", [["[0]"], ["containers"], ["spec"]])).toBe("spec.containers[0].image");
    expect(applySteps("[k]", [[""], ["[0]"], ["a", "b"]])).toBe("a.b[0][k]");
    expect(applySteps("", [["x"]])).toBe("x");
  });

  it("writes what the step-by-step flatten writes for any parts", () => {
    fc.assert(
      fc.property(part, fc.array(fc.array(part, { maxLength: 3 }), { maxLength: 4 }), (path, steps) => {
        expect(applySteps(path, steps)).toBe(applyStepsPieceByPiece(path, steps));
      }),
      { numRuns: 5000 },
    );
  });
});
