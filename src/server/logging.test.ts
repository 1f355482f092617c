import { execFileSync, spawn } from "node:child_process";
import { constants, existsSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { PassThrough } from "node:stream";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { pino } from "pino";
import { CALLER, createLogger, droppedLogLines, setZapFormat } from "./logging.js";
import { parseZapLoggerConfig } from "./zap-format.js";
import { within } from "../../test/support/timing.js";

function capture(): { stream: PassThrough; lines: () => Record<string, unknown>[] } {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (c: Buffer) => (text += c.toString()));
  return { stream, lines: () => text.trim().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>) };
}

describe("createLogger", () => {
  afterEach(() => vi.useRealTimers());

  it("with --log-format pino, writes the level as a label and the time as ISO 8601, formatted anew each millisecond", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-11-22T10:00:00.123Z"), toFake: ["Date"] });
    const out = capture();
    const logger = createLogger("info", out.stream, {}, { format: "pino" });
    logger.info({ uid: "a" }, "first");
    logger.info("second");
    vi.setSystemTime(Date.parse("2026-11-22T10:00:00.124Z"));
    logger.info("third");
    logger.debug("below the level");
    await new Promise((r) => setImmediate(r));
    expect(out.lines().map((l) => [l.msg, l.level, l.time, l.component])).toEqual([
      ["first", "info", "2026-11-22T10:00:00.123Z", "duckbill"],
      ["second", "info", "2026-11-22T10:00:00.123Z", "duckbill"],
      ["third", "info", "2026-11-22T10:00:00.124Z", "duckbill"],
    ]);
  });

  it("by default writes Knative's keys (severity, timestamp, logger, message), the time formatted anew each millisecond", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-11-22T10:00:00.123Z"), toFake: ["Date"] });
    const out = capture();
    const logger = createLogger("info", out.stream);
    logger.info("first");
    vi.setSystemTime(Date.parse("2026-11-22T10:00:00.124Z"));
    logger.info("second");
    logger.debug("below the level");
    await new Promise((r) => setImmediate(r));
    expect(out.lines().map((l) => [l.message, l.severity, l.timestamp, l.logger])).toEqual([
      ["first", "info", "2026-11-22T10:00:00.123Z", "webhook"],
      ["second", "info", "2026-11-22T10:00:00.124Z", "webhook"],
    ]);
  });

  it.each([
    [{}, '{"level":"info","ts":"2026-11-22T10:00:00.123Z","logger":"webhook","caller":"c.go:F","msg":"hi","a":"x","n":1}'],
    [{ levelKey: "" }, '{"ts":"2026-11-22T10:00:00.123Z","logger":"webhook","caller":"c.go:F","msg":"hi","a":"x","n":1}'],
    [{ timeKey: "" }, '{"level":"info","logger":"webhook","caller":"c.go:F","msg":"hi","a":"x","n":1}'],
    [{ nameKey: "", callerKey: "" }, '{"level":"info","ts":"2026-11-22T10:00:00.123Z","msg":"hi","a":"x","n":1}'],
    [{ messageKey: "", levelEncoder: "capital" }, '{"level":"INFO","ts":"2026-11-22T10:00:00.123Z","logger":"webhook","caller":"c.go:F","a":"x","n":1}'],
    [{ levelKey: "", timeKey: "", nameKey: "", callerKey: "", messageKey: "" }, '{"a":"x","n":1}'],
  ])("writes a Knative-format line with the keys zap-logger-config's encoderConfig %j names, in zap's order", async (keys, want) => {
    vi.useFakeTimers({ now: Date.parse("2026-11-22T10:00:00.123Z"), toFake: ["Date"] });
    const out = capture();
    const logger = createLogger("info", out.stream);
    const encoderConfig = { levelKey: "level", timeKey: "ts", nameKey: "logger", callerKey: "caller", messageKey: "msg", levelEncoder: "lowercase", timeEncoder: "rfc3339nano", ...keys };
    const parsed = parseZapLoggerConfig(JSON.stringify({ encoderConfig, initialFields: { z: true, b: 2 } }));
    if (!parsed.ok) throw new Error(parsed.error);
    logger.info({ a: "x", n: 1, [CALLER]: "c.go:F" }, "before");
    setZapFormat(logger, parsed.format);
    logger.info({ a: "x", skipped: undefined, n: 1, [CALLER]: "c.go:F" }, "hi");
    await new Promise((r) => setImmediate(r));
    const lines = out.lines();
    expect(lines[0]).toMatchObject({ severity: "info", message: "before", caller: "c.go:F" });
    // initialFields come first among the fields, sorted by key (zap.Config.buildOptions).
    const withInitial = want.replace(/(,?)"a":"x"/, (_m, comma: string) => `${comma}"b":2,"z":true,"a":"x"`);
    expect(JSON.stringify(lines[1])).toBe(withInitial);
  });

  it("on stdout, a buffered line reaches the reader within the flush interval while the process keeps running", async () => {
    // The compiled module (`npm test` builds first): a plain node child cannot load TypeScript on Node 20.
    const module = resolve(import.meta.dirname, "../../dist/server/logging.js");
    if (!existsSync(module)) throw new Error("dist/ is missing: run npm run build");
    // The child logs one short line (far below the buffer size) and stays alive for 10 s. The wait is measured from
    // the line's own timestamp, so the child's start-up (slow on a loaded machine) does not count.
    const script = `const { createLogger } = await import(${JSON.stringify(module)}); createLogger("info").info("hello"); setTimeout(() => {}, 10000);`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const [line, arrived] = await new Promise<[string, number]>((done, reject) => {
        child.stdout.once("data", (c: Buffer) => done([c.toString(), Date.now()]));
        child.once("exit", (code) => reject(new Error(`child exited with ${code} before logging`)));
      });
      const parsed = JSON.parse(line) as { message: string; severity: string; timestamp: string };
      expect(parsed).toMatchObject({ message: "hello", severity: "info" });
      // The flush interval is 250 ms; without it the line would wait for 4 KiB more or for the exit, 10 s later.
      expect(arrived - Date.parse(parsed.timestamp)).toBeLessThan(within(2000));
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill("SIGKILL");
    }
  });
});

describe("createLogger's stdout destination", () => {
  it("writes every line of the turn in progress, in order, when the process exits right after logging them", () => {
    const module = resolve(import.meta.dirname, "../../dist/server/logging.js");
    if (!existsSync(module)) throw new Error("dist/ is missing: run npm run build");
    // 3 lines handed over whole by size (64 KiB), then 50 short ones still gathered for the turn when exit() comes.
    const script = `const { createLogger } = await import(${JSON.stringify(module)}); const l = createLogger("info"); for (let i = 0; i < 3; i++) l.info({ pad: "p".repeat(30000) }, "big " + i); for (let i = 0; i < 50; i++) l.info("line " + i); process.exit(0);`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", maxBuffer: 4 * 1024 * 1024 });
    const messages = out
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { message: string }).message);
    expect(messages).toEqual([...[0, 1, 2].map((i) => `big ${i}`), ...Array.from({ length: 50 }, (_, i) => `line ${i}`)]);
  });

  it("drops and counts lines once the backlog limit waits for a stdout that does not keep up, instead of holding them", async () => {
    // A FIFO opened read-write and non-blocking: writes fill its 64 KiB and then meet EAGAIN, as a stalled log
    // consumer would; nothing ever reads it. The limit is 1 MiB here (16 MiB in production) to keep the work small.
    const dir = mkdtempSync(join(tmpdir(), "duckbill-log-"));
    const fifo = join(dir, "stdout");
    execFileSync("mkfifo", [fifo]);
    const fd = openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    const logger = createLogger("info", undefined, { fd, maxBufferedBytes: 1024 * 1024 });
    try {
      const before = droppedLogLines();
      const line = { uid: "x".repeat(4000) };
      for (let i = 0; i < 600; i++) logger.info(line, "admission"); // ≈ 2.44 MB of lines, ≈ 4.06 kB each
      const dropped = droppedLogLines() - before;
      // ≈ 2.44 MB offered, 1 MiB held, the pipe took 64 KiB: the rest (≈ 330 lines) is dropped, not buffered.
      expect(dropped).toBeGreaterThan(250);
      expect(dropped).toBeLessThan(420);
    } finally {
      // The destination closes the fd itself (and stops its pending writes).
      (logger as unknown as Record<symbol, { destroy(): void }>)[pino.symbols.streamSym]?.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
