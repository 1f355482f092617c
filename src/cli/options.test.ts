import { describe, expect, it } from "vitest";
import { optionsTable, parseBool, parseCount, parseDurationMs, parsePort, resolveSettings, settingOf, UPGRADE_CHECK_OPTIONS } from "./options.js";
import { parseTlsMinVersion } from "./serve/tls-settings.js";

describe("resolveSettings", () => {
  it("takes a flag over the environment over the default", () => {
    expect(resolveSettings({}, {}).port).toBe("8443");
    expect(resolveSettings({}, { WEBHOOK_PORT: "9443" }).port).toBe("9443");
    expect(resolveSettings({ port: "10443" }, { WEBHOOK_PORT: "9443" }).port).toBe("10443");
  });

  it("treats an empty environment variable as unset", () => {
    expect(resolveSettings({}, { LOG_LEVEL: "" })["log-level"]).toBe("info");
  });

  it("turns a boolean flag into a string setting", () => {
    expect(resolveSettings({ http2: true }, {}).http2).toBe("true");
  });
});

describe("settingOf", () => {
  it("takes a flag over the option's environment variable over the default", () => {
    expect(settingOf(UPGRADE_CHECK_OPTIONS, "to", {}, {})).toBe("1.24");
    expect(settingOf(UPGRADE_CHECK_OPTIONS, "to", {}, { DUCKBILL_UPGRADE_TO: "1.23" })).toBe("1.23");
    expect(settingOf(UPGRADE_CHECK_OPTIONS, "to", { to: "1.17" }, { DUCKBILL_UPGRADE_TO: "1.23" })).toBe("1.17");
  });

  it("reads no environment for an option without a variable", () => {
    expect(settingOf(UPGRADE_CHECK_OPTIONS, "output", {}, { "": "json" })).toBe("text");
  });
});

describe("optionsTable", () => {
  it("shows short flags and options without a variable", () => {
    const table = optionsTable(UPGRADE_CHECK_OPTIONS);
    expect(table).toContain("| `-f`, `--filename` | — | (none) | manifests to check");
    expect(table).toContain("| `--from` | `DUCKBILL_UPGRADE_FROM` | `auto` |");
  });
});

describe("parseDurationMs", () => {
  it.each([
    ["45s", 45_000],
    ["1m30s", 90_000],
    ["500ms", 500],
    ["1.5s", 1500],
    ["1h", 3_600_000],
    ["0", 0],
    ["10", 10_000],
  ])("reads %s as %d ms", (s, ms) => {
    expect(parseDurationMs(s, "--drain-timeout")).toBe(ms);
  });

  it.each(["", "abc", "10x", "s", "5s junk"])("rejects %j with a message that says what is expected", (s) => {
    expect(() => parseDurationMs(s, "--drain-timeout")).toThrow(`--drain-timeout must be a duration such as 45s or 1m30s, got "${s}"`);
  });
});

describe("parsePort", () => {
  it("accepts 1..65535, and 0 only where allowed", () => {
    expect(parsePort("8443", "--port")).toBe(8443);
    expect(parsePort("0", "--metrics-port", true)).toBe(0);
    expect(() => parsePort("0", "--port")).toThrow("--port must be a port number from 1 to 65535");
    expect(() => parsePort("70000", "--port")).toThrow(/must be a port number/);
    expect(() => parsePort("-1", "--port")).toThrow(/must be a port number/);
  });
});

describe("parseCount", () => {
  it("accepts whole numbers from 0 and rejects anything else with a message that says what is wanted", () => {
    expect(parseCount("0", "--max-connections")).toBe(0);
    expect(parseCount("1000", "--max-connections")).toBe(1000);
    for (const bad of ["", "-1", "1.5", "ten", "1e3", "99999999999999999999"]) {
      expect(() => parseCount(bad, "--max-connections")).toThrow(`--max-connections must be a whole number (0 or more), got "${bad}"`);
    }
  });
});

describe("parseTlsMinVersion", () => {
  it("maps Knative's values and rejects others with Knative's startup error", () => {
    expect(parseTlsMinVersion("1.2")).toBe("TLSv1.2");
    expect(parseTlsMinVersion("1.3")).toBe("TLSv1.3");
    expect(() => parseTlsMinVersion("1.0")).toThrow('invalid WEBHOOK_TLS_MIN_VERSION "1.0": unsupported TLS version "1.0": must be "1.2" or "1.3"');
  });
});

describe("parseBool", () => {
  it("accepts Go's ParseBool spellings", () => {
    for (const t of ["1", "t", "T", "TRUE", "true", "True"]) expect(parseBool(t, "x")).toBe(true);
    for (const f of ["0", "f", "F", "FALSE", "false", "False"]) expect(parseBool(f, "x")).toBe(false);
    expect(() => parseBool("yes", "--http2")).toThrow('--http2 must be true or false, got "yes"');
  });
});
