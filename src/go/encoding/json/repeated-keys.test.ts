import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeGo, intOrStringHalves } from "./decode.js";
import { decodeFirstJsonValue } from "./stream.js";
import { hasRepeatedKeys, structuralColons } from "./repeated-keys.js";
import { repeatedMembers } from "./json-value.js";
import { markGoStrings, mayRepeatKeys } from "./go-strings.js";
import { GoTypeRegistry } from "./types.js";

const registry = new GoTypeRegistry(
  {
    "p.C": ["name string", "image string omitempty", "args []string omitempty"],
    "p.Spec": ["a string omitempty", "b string omitempty"],
    "p.P": ["port intstr.IntOrString", "q resource.Quantity"],
    "p.S": ["spec *p.Spec omitempty", "cs []p.C", "labels map[string]string omitempty", "any interface{}", "n int"],
  },
  {},
  { p: "v1" },
);
const S = registry.struct("p.S");

function decodeText(text: string): unknown {
  const parsed = decodeFirstJsonValue(text);
  if (!parsed.ok) throw new Error(parsed.error);
  const r = decodeGo(S, parsed.value);
  return r.ok ? r.value : r.error;
}

describe("repeated keys decode as Go's encoding/json decodes them", () => {
  // Each expectation is what `json.Unmarshal` into the Go struct above, then `json.Marshal`, printed (go1.22).
  const cases: ReadonlyArray<readonly [string, unknown]> = [
    ['{"spec":{"a":"1"},"spec":{"b":"2"}}', { spec: { a: "1", b: "2" }, cs: null, any: null, n: 0 }],
    [
      '{"cs":[{"name":"a","image":"i"},{"name":"b","image":"j"}],"cs":[{"name":"x"}],"cs":[{},null]}',
      { cs: [{ name: "x", image: "i" }, { name: "b", image: "j" }], any: null, n: 0 },
    ],
    ['{"cs":[{"name":"a"}],"cs":[],"cs":[{},{}]}', { cs: [{ name: "" }, { name: "" }], any: null, n: 0 }],
    ['{"labels":{"a":"1","b":"2"},"labels":{"b":"3"}}', { cs: null, labels: { a: "1", b: "3" }, any: null, n: 0 }],
    ['{"any":{"a":1,"b":2},"any":{"b":3}}', { cs: null, any: { b: 3 }, n: 0 }],
    ['{"n":"x","n":true}', "json: cannot unmarshal string into Go struct field S.n of type int"],
    ['{"spec":{"a":"1"},"spec":null,"spec":{"b":"2"}}', { spec: { b: "2" }, cs: null, any: null, n: 0 }],
    ['{"cs":[{"name":"a","args":["p","q"]}],"cs":[{"args":["r"]}],"cs":[{"args":["s",null]}]}', { cs: [{ name: "a", args: ["s", "q"] }], any: null, n: 0 }],
  ];
  for (const [text, want] of cases) {
    it(text, () => {
      expect(decodeText(text)).toEqual(want);
    });
  }

  it("keeps an IntOrString's other half where a repeated key set both (intstr.IntOrString.UnmarshalJSON)", () => {
    const P = registry.struct("p.P");
    const decoded = (text: string): Record<string, unknown> => (decodeGo(P, (decodeFirstJsonValue(text) as { value: unknown }).value) as { value: Record<string, unknown> }).value;
    const a = decoded('{"port":"x","port":0}');
    expect(a).toEqual({ port: 0, q: "0" });
    expect(intOrStringHalves(a, "port")).toEqual({ strVal: "x", intVal: 0 });
    expect(intOrStringHalves(decoded('{"port":7,"port":"h"}'), "port")).toEqual({ strVal: "h", intVal: 7 });
    expect(intOrStringHalves(decoded('{"port":"x","port":null}'), "port")).toEqual({ strVal: "x", intVal: 0 });
    expect(intOrStringHalves(decoded('{"port":0,"port":"h"}'), "port")).toBeUndefined();
    expect(intOrStringHalves(decoded('{"port":"h"}'), "port")).toBeUndefined();
  });

  it("reports an out-of-range number in an overwritten interface{} member, as Go converts every occurrence", () => {
    const big = "1" + "0".repeat(400);
    expect(decodeText(`{"any":{"a":${big},"a":1}}`)).toBe(`json: cannot unmarshal number ${big} into Go struct field S.any of type float64`);
    expect(decodeText(`{"any":{"a":1,"a":2}}`)).toEqual({ cs: null, any: { a: 2 }, n: 0 });
  });

  it("finds a repeated key nested deeper than the recursive walk goes", () => {
    const depth = 3000;
    const text = "[".repeat(depth) + '{"a":1,"a":2}' + "]".repeat(depth);
    expect(hasRepeatedKeys(text, JSON.parse(text))).toBe(true);
    const clean = "[".repeat(depth) + '{"a":1,"b":2}' + "]".repeat(depth);
    expect(hasRepeatedKeys(clean, JSON.parse(clean))).toBe(false);
  });

  it("keeps a Quantity's value where a repeated key is null (Quantity.UnmarshalJSON ignores null)", () => {
    const P = registry.struct("p.P");
    const decoded = (text: string): unknown => (decodeGo(P, (decodeFirstJsonValue(text) as { value: unknown }).value) as { value: unknown }).value;
    expect(decoded('{"q":"1Gi","q":null}')).toEqual({ port: 0, q: "1Gi" });
    expect(decoded('{"q":null}')).toEqual({ port: 0, q: "0" });
  });

  it("keeps JSON.parse's last-wins view as the object's own members", () => {
    const text = '{"a":{"x":1},"b":[{"k":1,"k":2}],"a":{"y":2}}';
    const parsed = decodeFirstJsonValue(text);
    expect(parsed.ok && JSON.stringify(parsed.value)).toBe(JSON.stringify(JSON.parse(text)));
    const value = (parsed as { value: Record<string, unknown> }).value;
    expect(repeatedMembers(value)?.map(([k]) => k)).toEqual(["a", "b", "a"]);
    expect(repeatedMembers((value.b as object[])[0]!)).toEqual([["k", 1], ["k", 2]]);
    expect(repeatedMembers(value.a as object)).toBeUndefined();
  });

  it("tells texts with repeated keys from those without, `:` in strings and escapes included", () => {
    const check = (text: string): boolean => hasRepeatedKeys(text, JSON.parse(text));
    expect(check('{"a:":"b:c","c":{"d":":"}}')).toBe(false);
    expect(check('{"a":"x","a":"y"}')).toBe(true);
    expect(check('{"a":"::::","a":"y","b":1,"c":2}')).toBe(true);
    expect(check('{"a\\u003a":"\\u003A","b":1}')).toBe(false);
    expect(check('{"a\\u003a":"\\u003A","a\\u003a":1}')).toBe(true);
    expect(check('[1,2,"::"]')).toBe(false);
  });
});

/** JSON text generator whose objects may repeat keys (and put `:` in strings). */
const key = fc.constantFrom("a", "b", "A", "c:", "__proto__", "x\\u003a", "1");
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom("null", "true", "1", "-2.5", "12345678901234567890", '"s"', '":x:"', '"\\u003a"'),
    fc.array(tie("value"), { maxLength: 4 }).map((xs) => `[${xs.join(",")}]`),
    fc.array(fc.tuple(key, tie("value")), { maxLength: 5 }).map((ms) => `{${ms.map(([k, v]) => `"${k}":${v}`).join(",")}}`),
  ),
})).value;

/** Strings made of the fragments that make a `:` hard to place: escaped quotes and backslashes, brackets, spaces. */
const trickyString = fc.array(fc.constantFrom("a", ":", "\\\"", "\\\\", ",", "[", "{", "}", " ", "\\u003a", "1"), { maxLength: 5 }).map((parts) => `"${parts.join("")}"`);
const space = fc.constantFrom("", "", "", " ", "\n ");
/** JSON text whose keys and strings hold those fragments, with optional whitespace around the separators. */
const trickyText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    trickyString,
    fc.constantFrom("null", "1", "-2.5"),
    fc.array(fc.tuple(space, tie("value")), { maxLength: 4 }).map((xs) => `[${xs.map(([w, v]) => w + v).join(",")}]`),
    fc.array(fc.tuple(fc.oneof(trickyString, fc.constantFrom('"a"', '"b"')), space, space, tie("value")), { maxLength: 5 }).map((ms) => `{${ms.map(([k, w1, w2, v]) => `${k}${w1}:${w2}${v}`).join(",")}}`),
  ),
})).value;

describe("trees known to repeat no key", () => {
  it("are decodeFirstJsonValue's values whose text repeats none", () => {
    const value = (text: string): unknown => (decodeFirstJsonValue(text) as { value: unknown }).value;
    expect(mayRepeatKeys(value('{"spec":{"a":"1"},"cs":[{"name":"x"}]}'))).toBe(false);
    expect(mayRepeatKeys(value('{"spec":{"a":"1"},"spec":{"b":"2"}}'))).toBe(true);
    expect(mayRepeatKeys(value('[{"k":1,"k":2}]'))).toBe(true);
    expect(mayRepeatKeys({})).toBe(true);
  });

  it("decode as before; a subtree marked as maybe repeating still merges its repeated keys", () => {
    const text = '{"spec":{"a":"1"},"spec":{"b":"2"},"labels":{"x":"1"}}';
    const marked = (decodeFirstJsonValue(`{"object":${text}}`) as { value: { object: unknown } }).value.object;
    markGoStrings(marked, mayRepeatKeys(marked));
    expect(decodeGo(S, marked)).toEqual({ ok: true, value: { spec: { a: "1", b: "2" }, cs: null, labels: { x: "1" }, any: null, n: 0 } });
    const clean = (decodeFirstJsonValue('{"object":{"spec":{"a":"1"},"labels":{"x":"1"}}}') as { value: { object: unknown } }).value.object;
    markGoStrings(clean, false);
    expect(decodeGo(S, clean)).toEqual({ ok: true, value: { spec: { a: "1" }, cs: null, labels: { x: "1" }, any: null, n: 0 } });
  });
});

describe("telling the `:` of a text apart", () => {
  it("counts the members of compact texts from the characters before each `:`", () => {
    expect(structuralColons('{"a":"b:c","c:d":{"d":"x\\":","e\\\\":1,"":2}}')).toBe(5);
    expect(structuralColons('{"k:{\\"name\\":\\"x\\"}":{},"t":"2024-01-01T00:00:00Z"}')).toBe(2);
    // A string that may start with `:`, a key that may end with `,`, whitespace before a `:`: not told.
    expect(structuralColons('{"a":":x"}')).toBe(-1);
    expect(structuralColons('{"a,":1}')).toBe(-1);
    expect(structuralColons('{"a" :1}')).toBe(-1);
    expect(structuralColons('":"')).toBe(-1);
    expect(structuralColons("[1]")).toBe(-1);
  });

  it("never miscounts: where it answers, the answer is the number of `:` outside strings", () => {
    fc.assert(
      fc.property(trickyText, (text) => {
        const n = structuralColons(text);
        const repeats = repeatsAKey(text);
        if (n !== -1 && !repeats) expect(n).toBe(membersOf(JSON.parse(text)));
        expect(hasRepeatedKeys(text, JSON.parse(text))).toBe(repeats);
      }),
      { numRuns: 3000 },
    );
  });
});

/** The member count of a text without repeated keys. */
function membersOf(v: unknown): number {
  if (typeof v !== "object" || v === null) return 0;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + membersOf(x), 0);
  return Object.values(v).reduce((n: number, x) => n + 1 + membersOf(x), 0);
}

describe("the duplicate-aware parse", () => {
  it("gives JSON.parse's value (exact integers aside) and flags exactly the texts that repeat a key", () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        const parsed = decodeFirstJsonValue(text);
        expect(parsed.ok).toBe(true);
        const value = (parsed as { value: unknown }).value;
        const plain = JSON.parse(text.replace(/12345678901234567890/g, '"big"')) as unknown;
        const ours = JSON.parse(JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? "big" : v))) as unknown;
        expect(ours).toEqual(plain);
        expect(hasRepeatedKeys(text, JSON.parse(text))).toBe(repeatsAKey(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("decodes a repeated map field into the map there: per key the last occurrence wins (Go's map merge)", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom("a", "b", "c"), fc.constantFrom("1", "2", "3")), { minLength: 1, maxLength: 6 }), fc.array(fc.tuple(fc.constantFrom("a", "b", "c"), fc.constantFrom("4", "5")), { maxLength: 6 }), (first, second) => {
        const text = `{"labels":{${first.map(([k, v]) => `"${k}":"${v}"`).join(",")}},"labels":{${second.map(([k, v]) => `"${k}":"${v}"`).join(",")}}}`;
        const r = decodeText(text);
        const model: Record<string, string> = {};
        for (const [k, v] of [...first, ...second]) model[k] = v;
        expect(r).toEqual({ cs: null, labels: model, any: null, n: 0 });
      }),
    );
  });
});

/** Whether some object in the (valid) text repeats a key: a reference scan with JSON.parse'd keys. */
function repeatsAKey(text: string): boolean {
  let found = false;
  // A tiny recursive-descent reader over the text's tokens.
  let i = 0;
  const ws = (): void => {
    while (/\s/.test(text[i] ?? "")) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      const seen = new Set<string>();
      while (text[i] !== "}") {
        ws();
        const k = str();
        if (seen.has(k)) found = true;
        seen.add(k);
        ws();
        i++; // :
        value();
        ws();
        if (text[i] === ",") i++;
        ws();
      }
      i++;
    } else if (c === "[") {
      i++;
      ws();
      while (text[i] !== "]") {
        value();
        ws();
        if (text[i] === ",") i++;
        ws();
      }
      i++;
    } else if (c === '"') str();
    else while (i < text.length && !/[,\]}\s]/.test(text[i]!)) i++;
  };
  value();
  return found;
}
