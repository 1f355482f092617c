import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CALLER, createLogger, setZapFormat } from "./logging.js";
import { parseZapLoggerConfig } from "./zap-format.js";

// The fields of a Knative-format line, by kind of value (zapcore/json_encoder.go; pino's `err` is zap.Error's).
describe("Knative-format line fields", () => {
  afterEach(() => vi.useRealTimers());

  it.each<[string, Record<string, unknown>, string]>([
    ["strings, numbers, booleans, null and nested objects", { s: 'a"b\u2028', n: -0, big: 1e21, t: true, nil: null, o: { k: [1, "x"], d: new Date(0) } }, '"s":"a\\"b\u2028","n":0,"big":1e+21,"t":true,"nil":null,"o":{"k":[1,"x"],"d":"1970-01-01T00:00:00.000Z"}'],
    ["undefined, function and symbol values left out", { a: undefined, f: () => 1, y: Symbol("s"), b: "kept" }, '"b":"kept"'],
    ["err as zap.Error's error", { err: new Error("boom"), after: 1 }, '"error":"boom","after":1'],
    ["an Error under another key as its message", { cause: new Error("why") }, '"cause":"why"'],
    ["an infinite number as a string", { inf: -Infinity }, '"inf":"-Infinity"'],
    ["NaN as a string", { nan: NaN }, '"nan":"NaN"'],
    ["a bigint as its digits", { n: 12345678901234567890n }, '"n":12345678901234567890'],
    ["a value JSON cannot serialise as <unserializable>, the others as they are", { bad: { n: 1n }, ok: "x" }, '"bad":"<unserializable>","ok":"x"'],
    ["integer-like keys first, as JSON and for-in order them", { b: 1, 2: "two", a: 3 }, '"2":"two","b":1,"a":3'],
    ["a key the line already has written again, as zap writes it", { message: "again", commit: "mine" }, '"message":"again","commit":"mine"'],
    ["an own __proto__ key as a field", JSON.parse('{"__proto__":"x","a":1}') as Record<string, unknown>, '"__proto__":"x","a":1'],
  ])("renders a line's fields as zap's JSON encoder does: %s", async (_name, fields, want) => {
    vi.useFakeTimers({ now: Date.parse("2026-11-22T10:00:00.123Z"), toFake: ["Date"] });
    const stream = new PassThrough();
    let text = "";
    stream.on("data", (c: Buffer) => (text += c.toString()));
    const logger = createLogger("info", stream, {}, { commit: "abc" });
    logger.info({ ...fields, [CALLER]: "c.go:F" }, "m");
    await new Promise((r) => setImmediate(r));
    expect(text).toBe(`{"severity":"info","timestamp":"2026-11-22T10:00:00.123Z","logger":"webhook","caller":"c.go:F","message":"m","commit":"abc",${want}}\n`);
  });

  function written(log: (logger: ReturnType<typeof createLogger>) => void, zapConfig?: object): Promise<string> {
    vi.useFakeTimers({ now: Date.parse("2026-11-22T10:00:00.123Z"), toFake: ["Date"] });
    const stream = new PassThrough();
    let text = "";
    stream.on("data", (c: Buffer) => (text += c.toString()));
    const logger = createLogger("info", stream, {}, { commit: "abc" });
    if (zapConfig !== undefined) {
      const parsed = parseZapLoggerConfig(JSON.stringify(zapConfig));
      if (!parsed.ok) throw new Error(parsed.error);
      setZapFormat(logger, parsed.format);
    }
    log(logger);
    return new Promise((r) => setImmediate(() => r(text)));
  }

  it("writes a child logger's bindings after the logger's own, before the line's fields", async () => {
    const text = await written((l) => l.child({ worker: 2 }).info({ a: 1, [CALLER]: "c.go:F" }, "m"));
    expect(text).toBe('{"severity":"info","timestamp":"2026-11-22T10:00:00.123Z","logger":"webhook","caller":"c.go:F","message":"m","commit":"abc","worker":2,"a":1}\n');
  });

  it("writes a binding a child logger repeats twice, as zap's With does", async () => {
    const text = await written((l) => l.child({ commit: "child" }).info({ a: 1 }, "m"));
    expect(text).toBe('{"severity":"info","timestamp":"2026-11-22T10:00:00.123Z","logger":"webhook","caller":"duckbill","message":"m","commit":"abc","commit":"child","a":1}\n');
  });

  it("writes a nanosecond time with all its digits, and an initial field the line repeats twice", async () => {
    const encoderConfig = { levelKey: "level", timeKey: "ts", nameKey: "", callerKey: "", messageKey: "msg", levelEncoder: "lowercase", timeEncoder: "nanos" };
    const text = await written((l) => l.info({ z: false }, "m"), { encoderConfig, initialFields: { z: true } });
    expect(text).toBe(`{"level":"info","ts":${Date.parse("2026-11-22T10:00:00.123Z")}000000,"msg":"m","z":true,"commit":"abc","z":false}\n`);
  });
});
