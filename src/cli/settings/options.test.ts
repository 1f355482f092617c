import { describe, expect, it } from "vitest";
import { ADMIT_OPTIONS, CHECK_OPTIONS, FEATURES_OPTIONS, IMPACT_OPTIONS, TEST_OPTIONS, VERSION_OPTIONS } from "./command-options.js";
import { deprecatedNames, optionsTable, parseArgsOptions, parseOptions, resolveSettings, SERVE_OPTIONS, settingOf, UPGRADE_CHECK_OPTIONS, type OptionSpec } from "./options.js";
import { parseServeSettings, readServeSettings } from "./serve-settings.js";
import { parseTlsMinVersion } from "./tls-settings.js";
import { parseBool, parseCount, parseDurationMs, parsePort } from "./values.js";

describe("resolveSettings", () => {
  it("takes a flag over the environment over the default", () => {
    expect(resolveSettings({}, {}).port).toBe("8443");
    expect(resolveSettings({}, { WEBHOOK_PORT: "9443" }).port).toBe("9443");
    expect(resolveSettings({ port: "10443" }, { WEBHOOK_PORT: "9443" }).port).toBe("10443");
  });

  it("treats an empty environment variable as unset", () => {
    expect(resolveSettings({}, { DUCKBILL_LOG_LEVEL: "" })["log-level"]).toBe("info");
  });

  it("still reads a deprecated variable, after the current one", () => {
    expect(resolveSettings({}, { LOG_LEVEL: "debug" })["log-level"]).toBe("debug");
    expect(resolveSettings({}, { LOG_LEVEL: "debug", DUCKBILL_LOG_LEVEL: "warn" })["log-level"]).toBe("warn");
    expect(resolveSettings({ "log-level": "error" }, { LOG_LEVEL: "debug" })["log-level"]).toBe("error");
  });

  it("still takes a deprecated flag name, after the current one", () => {
    expect(resolveSettings({ namespace: "old" }, {})["system-namespace"]).toBe("old");
    expect(resolveSettings({ namespace: "old", "system-namespace": "new" }, {})["system-namespace"]).toBe("new");
    expect(parseArgsOptions(SERVE_OPTIONS)).toMatchObject({ namespace: { type: "string" }, "system-namespace": { type: "string" } });
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

describe("deprecatedNames", () => {
  it("names each deprecated flag and variable given, with what to use instead", () => {
    expect(deprecatedNames(SERVE_OPTIONS, { namespace: "x" }, { CERT_DIR: "/c", LOG_LEVEL: "debug", DUCKBILL_LOG_LEVEL: "info" })).toEqual([
      "the environment variable CERT_DIR is deprecated: use DUCKBILL_CERT_DIR",
      "--namespace is deprecated: use --system-namespace",
      "the environment variable LOG_LEVEL is deprecated: use DUCKBILL_LOG_LEVEL (which is set too, and wins)",
    ]);
  });

  it("says nothing when only current names are used, or deprecated ones are empty", () => {
    expect(deprecatedNames(SERVE_OPTIONS, { "system-namespace": "x" }, { DUCKBILL_CERT_DIR: "/c", LOG_LEVEL: "" })).toEqual([]);
  });
});

/** The variables Knative's webhook (or client-go) reads, which keep their names: the file that reads each. */
const KNATIVE_VARIABLES: Readonly<Record<string, string>> = {
  WEBHOOK_PORT: "knative.dev/pkg webhook/env.go",
  WEBHOOK_NAME: "knative.dev/pkg webhook/env.go",
  WEBHOOK_SECRET_NAME: "knative.dev/pkg webhook/env.go",
  WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP: "knative.dev/pkg webhook/env.go",
  WEBHOOK_TLS_MIN_VERSION: "knative.dev/pkg network/tls/config.go (prefix WEBHOOK_)",
  WEBHOOK_TLS_MAX_VERSION: "knative.dev/pkg network/tls/config.go (prefix WEBHOOK_)",
  WEBHOOK_TLS_CIPHER_SUITES: "knative.dev/pkg network/tls/config.go (prefix WEBHOOK_)",
  WEBHOOK_TLS_CURVE_PREFERENCES: "knative.dev/pkg network/tls/config.go (prefix WEBHOOK_)",
  SYSTEM_NAMESPACE: "knative.dev/pkg system/env.go",
  POD_NAME: "knative.dev/pkg system/env.go",
  CLUSTER_DOMAIN: "knative.dev/pkg network/domain.go",
  CONFIG_LOGGING_NAME: "knative.dev/pkg logging/config.go",
  CONFIG_OBSERVABILITY_NAME: "knative.dev/pkg observability/configmap/parse.go",
  CONFIG_LEADERELECTION_NAME: "knative.dev/pkg leaderelection/config.go",
  DEFAULT_METRICS_BACKEND: "knative.dev/pkg metrics/config.go (1.17)",
  KUBE_API_QPS: "knative.dev/pkg environment/client_config.go",
  KUBE_API_BURST: "knative.dev/pkg environment/client_config.go",
  KUBECONFIG: "k8s.io/client-go tools/clientcmd loader.go",
};

/** Options whose variable is not DUCKBILL_ and the flag: upgrade-check's bare --to and --from name the command too. */
const NAMED_FOR_THE_COMMAND: Readonly<Record<string, string>> = { to: "DUCKBILL_UPGRADE_TO", from: "DUCKBILL_UPGRADE_FROM" };

describe("one naming scheme for variables", () => {
  const all: Array<[string, OptionSpec]> = Object.entries({ SERVE_OPTIONS, UPGRADE_CHECK_OPTIONS, ADMIT_OPTIONS, CHECK_OPTIONS, FEATURES_OPTIONS, IMPACT_OPTIONS, TEST_OPTIONS, VERSION_OPTIONS }).flatMap(([list, options]) =>
    (options as readonly OptionSpec[]).map((o): [string, OptionSpec] => [`${list} --${o.flag}`, o]),
  );
  it.each(all.filter(([, o]) => o.env !== ""))("%s: Knative's variable, or DUCKBILL_ and the flag", (_name, o) => {
    const scheme = NAMED_FOR_THE_COMMAND[o.flag] ?? `DUCKBILL_${o.flag.toUpperCase().replaceAll("-", "_")}`;
    expect(Object.hasOwn(KNATIVE_VARIABLES, o.env) ? o.env : scheme).toBe(o.env);
    for (const old of o.deprecatedEnv ?? []) expect(old).not.toBe(o.env);
  });

  it("gives one option the same variable in every command", () => {
    const byFlag = new Map<string, Set<string>>();
    for (const [, o] of all) if (o.env !== "") byFlag.set(o.flag, (byFlag.get(o.flag) ?? new Set()).add(o.env));
    expect([...byFlag].filter(([, vars]) => vars.size > 1)).toEqual([]);
  });
});

describe("parseOptions and parseServeSettings", () => {
  it("parses the defaults into typed settings", () => {
    const s = parseServeSettings(resolveSettings({}, {}));
    expect(s).toMatchObject({ port: 8443, "metrics-port": 9090, http2: false, "drain-timeout": 45_000, "max-buffered-bytes": 64 * 1024 ** 2, workers: "auto", "knative-version": "auto", "client-ca": undefined });
    expect(s).toMatchObject({ tls: { minVersion: "TLSv1.3" }, tlsSource: "generated", reconcileWebhooks: false, configMode: "defaults", inCluster: false });
  });

  it("names the flag and its variable in a parse error", () => {
    expect(() => parseOptions(SERVE_OPTIONS, { ...resolveSettings({}, {}), "drain-timeout": "soon" })).toThrow('--drain-timeout (DUCKBILL_DRAIN_TIMEOUT) must be a duration such as 45s or 1m30s, got "soon"');
    expect(() => parseOptions(SERVE_OPTIONS, { ...resolveSettings({}, {}), workers: "257" })).toThrow('--workers (DUCKBILL_WORKERS) must be auto or a whole number from 0 to 256, got "257"');
  });

  it("reads the pod's service account as a cluster: the Secret's certificate, reconciled webhooks, the cluster's ConfigMaps", () => {
    expect(readServeSettings({}, { KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" })).toMatchObject({ inCluster: true, tlsSource: "secret", reconcileWebhooks: true, configMode: "cluster" });
  });

  it("collects the deprecated names it was given", () => {
    expect(readServeSettings({ namespace: "ns" }, { WEBHOOK_WORKERS: "1" })).toMatchObject({ "system-namespace": "ns", workers: 1, deprecations: ["--namespace is deprecated: use --system-namespace", "the environment variable WEBHOOK_WORKERS is deprecated: use DUCKBILL_WORKERS"] });
  });
  it.each([
    { value: undefined, want: false },
    { value: "", want: false },
    { value: "true", want: true },
    { value: "T", want: true },
    { value: "0", want: false },
    { value: "yes", error: 'WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP: strconv.ParseBool: parsing "yes": invalid syntax' },
  ])("WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP=$value", ({ value, want, error }) => {
    const env = value === undefined ? {} : { WEBHOOK_DISABLE_NAMESPACE_OWNERSHIP: value };
    if (error !== undefined) expect(() => readServeSettings({}, env)).toThrow(error);
    else expect(readServeSettings({}, env)["disable-namespace-ownership"]).toBe(want);
  });
});
