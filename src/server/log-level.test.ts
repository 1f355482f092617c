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
    expect(lines.filter((l) => l.msg === "log level changed by config-logging").map((l) => [l.from, l.to])).toEqual([
      ["info", "debug"],
      ["debug", "error"],
      ["error", "info"],
    ]);
  });

  it("keeps the level in effect when the value is not a level, and says so", () => {
    const { logger, lines } = capturedLogger();
    logger.level = "warn";
    followLogLevel(logger, "info")({ "loglevel.webhook": "loud" });
    expect(logger.level).toBe("warn");
    expect(lines).toEqual([expect.objectContaining({ level: "warn", err: "invalid logging level: loud", msg: "config-logging: loglevel.webhook is not a level; the log level stays" })]);
  });
});
