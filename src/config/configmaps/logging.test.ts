import { describe, expect, it } from "vitest";
import { parseLoggingConfig } from "./logging.js";

// Expected answers were confirmed against Knative's own Go code (serving 1.17 pins).
const CASES: ReadonlyArray<readonly [data: Record<string, string>, error: string | undefined]> = [
  [{"loglevel.controller": "debug"}, undefined],
  [{"loglevel.controller": "DEBUG"}, undefined],
  [{"loglevel.controller": "Debug"}, undefined],
  [{"loglevel.controller": "\u0130NFO"}, undefined],
  [{"loglevel.controller": "verbose"}, "invalid logging level: verbose"],
  [{"loglevel.controller": ""}, undefined],
  [{"loglevel.": "verbose"}, undefined],
  [{"loglevel": "verbose"}, undefined],
  [{"zap-logger-config": "{bad json"}, undefined],
  [{"loglevel.webhook": "warning"}, "invalid logging level: warning"],
];

describe("parseLoggingConfig", () => {
  it.each(CASES)("%j → %s", (data, error) => {
    expect(parseLoggingConfig(data)).toBe(error);
  });
});
