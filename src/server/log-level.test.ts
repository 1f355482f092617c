import { describe, expect, it } from "vitest";
import { componentLogLevel } from "../config/configmaps/logging.js";
import { capturedLogger } from "../../test/config/store-harness.js";
import { followLogLevel, pinoLevelOfZap } from "./log-level.js";

describe("componentLogLevel", () => {
  it.each([
    [{}, undefined],
    [{ "loglevel.webhook": "" }, undefined],
    [{ "loglevel.controller": "debug" }, undefined],
    [{ "loglevel.webhook": "debug" }, "debug"],
    [{ "loglevel.webhook": "WARN" }, "warn"],
    [{ "loglevel.webhook": "Error" }, "error"],
    [{ "loglevel.webhook": "dpanic" }, "dpanic"],
  ] as const)("%j → %s", (data, level) => {
    expect(componentLogLevel(data, "webhook")).toEqual({ ok: true, level });
  });

  it("gives config-validation's error for a value that is not a level", () => {
    expect(componentLogLevel({ "loglevel.webhook": "verbose" }, "webhook")).toEqual({ ok: false, error: "invalid logging level: verbose" });
  });
});

describe("followLogLevel", () => {
  it("maps zap's levels to pino's", () => {
    expect(["debug", "info", "warn", "error", "dpanic", "panic", "fatal"].map((l) => pinoLevelOfZap(l as never))).toEqual(["debug", "info", "warn", "error", "fatal", "fatal", "fatal"]);
  });

  it("follows loglevel.webhook, reaches child loggers, and goes back to --log-level's when the key goes", () => {
    const { logger, lines } = capturedLogger();
    logger.level = "info";
    const child = logger.child({ subsystem: "x" });
    const follow = followLogLevel(logger, "info");
    follow({ "loglevel.webhook": "debug" });
    expect(logger.level).toBe("debug");
    expect(child.isLevelEnabled("debug")).toBe(true);
    follow({ "loglevel.webhook": "error" });
    expect(child.isLevelEnabled("info")).toBe(false);
    follow({ "loglevel.webhook": "error", "loglevel.controller": "debug" });
    follow({ "zap-logger-config": "{}" });
    expect(logger.level).toBe("info");
    // Each change said once at info, whichever side of it info is visible on; no line for a non-change.
    expect(lines.filter((l) => /^Updating logging level for webhook from \w+ to \w+\.$/.test(String(l.msg))).map((l) => [l.from, l.to])).toEqual([
      ["info", "debug"],
      ["debug", "error"],
      ["error", "info"],
    ]);
  });

  it("keeps the level in effect when the value is not a level, and says so as Knative does", () => {
    const { logger, lines } = capturedLogger();
    logger.level = "warn";
    followLogLevel(logger, "info")({ "loglevel.webhook": "loud" });
    expect(logger.level).toBe("warn");
    expect(lines).toEqual([expect.objectContaining({ level: "error", error: "invalid logging level: loud", msg: "Failed to parse the logging configmap. Previous config map will be used." })]);
  });
});

describe("followLogLevel with zap-logger-config", () => {
  it("takes zap-logger-config's level without loglevel.webhook, and its encoding and keys; a bad one keeps both", async () => {
    const { PassThrough } = await import("node:stream");
    const { createLogger, zapFormatOf } = await import("./logging.js");
    const out: string[] = [];
    const sink = new PassThrough();
    sink.on("data", (d: Buffer) => out.push(...d.toString("utf8").split("\n").filter((l) => l !== "")));
    const logger = createLogger("info", sink);
    const follow = followLogLevel(logger, "info");
    follow({ "zap-logger-config": JSON.stringify({ level: "debug", encoderConfig: { levelKey: "lvl", messageKey: "msg", levelEncoder: "capital", timeKey: "" } }) });
    expect(logger.level).toBe("debug");
    expect(zapFormatOf(logger)?.levelKey).toBe("lvl");
    follow({ "zap-logger-config": JSON.stringify({ encoding: "xml" }) });
    expect(zapFormatOf(logger)?.levelKey).toBe("lvl");
    await new Promise((r) => setImmediate(r));
    const last = JSON.parse(out.at(-1) ?? "{}") as Record<string, unknown>;
    expect(last).toMatchObject({ lvl: "ERROR", logger: "webhook", msg: "Failed to parse logger configuration. Previous log level retained for webhook", error: 'no encoder registered for name "xml"' });
    expect(Object.keys(last)).toEqual(["lvl", "logger", "caller", "msg", "error"]);
  });
});
