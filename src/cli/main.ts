import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { DEFAULT_KNATIVE_VERSION, KNATIVE_VERSIONS, PROFILES, resolveKnativeProfile } from "../config/profile.js";
import { defaultSnapshot } from "../config/snapshot.js";
import type { LogLevel } from "../server/logging.js";
import { isAdmissionPath } from "../admission/http.js";
import { defaultDeps } from "./deps.js";
import { optionsTable, parseArgsOptions, resolveSettings, SERVE_OPTIONS } from "./options.js";

const USAGE = `Usage: duckbill <command> [options]

Commands:
  serve                 run the HTTPS admission webhook (see options below)
  admit [--path P]      answer one AdmissionReview read from stdin (default path /resource-validation)
  admit --batch         answer JSON lines {name, path, configs?, contentType?, review} from stdin
  check [-f FILE]...    run manifests through defaulting and validation as the API server would, without a
                        cluster; prints what kubectl apply prints (see "duckbill check --help")
  upgrade-check         what upgrading Knative (--from 1.17 --to 1.24) changes for manifests or a cluster's
                        objects and ConfigMaps (see "duckbill upgrade-check --help")
  features              list config-features flags; "features explain <flag|field>", "features impact
                        --disable <flag> -f FILE" (see "duckbill features --help")
  version               print the version
  help                  print this text

admit options:
  --path P              /defaulting, /resource-validation or /config-validation
  --config-dir DIR      standalone configuration directory (as for serve)
  --batch               JSON-lines mode
  --knative-version V   the Knative release to answer as: 1.24, 1.23 or 1.17 (env KNATIVE_VERSION;
                        default auto, which offline is 1.24)

serve options (flag, environment variable, default):
`;

export { defaultDeps } from "./deps.js";

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function serve(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: parseArgsOptions(SERVE_OPTIONS), strict: true, allowPositionals: false });
  const settings = resolveSettings(values as Record<string, string | boolean | undefined>, process.env);
  const { parseWorkers, reportServing, runPrimary, serveWorkerMetrics } = await import("./workers.js");
  const workers = parseWorkers(settings.workers);
  const { default: cluster } = await import("node:cluster");
  if (workers > 1 && cluster.isPrimary) {
    const { createLogger } = await import("../server/logging.js");
    return runPrimary(settings, workers, createLogger(settings["log-level"] as LogLevel));
  }
  // Commands load what they need only: `admit` never loads the HTTP stack.
  const { startWebhook } = await import("./serve.js");
  // Signals are handled from before the server starts: a SIGTERM that arrives while it starts (or right after the
  // "serving" line) drains it once it is up instead of killing the process on Node's default action.
  let running: Awaited<ReturnType<typeof startWebhook>> | undefined;
  let stopping: string | undefined;
  const shutdown = (r: NonNullable<typeof running>, signal: string): void => {
    void r.shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(`duckbill: shutdown after ${signal} failed: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: string): void => {
    if (stopping !== undefined) {
      // A second signal means "now" (Knative: os.Exit(1)).
      process.exit(1);
    }
    stopping = signal;
    if (running !== undefined) shutdown(running, signal);
  };
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  if (cluster.isWorker) {
    // The primary serves the summed metrics and forwards SIGTERM; a terminal's Ctrl-C reaches it too.
    process.on("SIGINT", () => undefined);
    const { createLogger } = await import("../server/logging.js");
    const logger = createLogger(settings["log-level"] as LogLevel).child({ worker: cluster.worker?.id });
    running = await startWebhook({ ...settings, "metrics-port": "0" }, defaultDeps(), {
      logger,
      onRegistry: serveWorkerMetrics,
      servingMessage: "worker serving",
    });
    reportServing(running.port);
  } else {
    process.on("SIGINT", () => onSignal("SIGINT"));
    running = await startWebhook(settings, defaultDeps());
  }
  if (stopping !== undefined) shutdown(running, stopping);
  return new Promise<number>(() => undefined);
}

async function admit(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { path: { type: "string", default: "/resource-validation" }, "config-dir": { type: "string" }, "knative-version": { type: "string" }, batch: { type: "boolean", default: false } },
    strict: true,
  });
  const configDir = values["config-dir"] ?? process.env.CONFIG_DIR;
  const profile = resolveKnativeProfile(values["knative-version"]);
  // The YAML parser loads only when a directory is read (`serve` does not need it at startup).
  const config = configDir !== undefined && configDir !== "" ? await (await import("../config/dir.js")).loadConfigDir(configDir, profile) : defaultSnapshot(profile);
  const deps = defaultDeps();
  const { admitBatch, admitOne } = await import("./admit.js");
  if (values.batch) {
    const bad = await admitBatch(process.stdin, process.stdout, deps, config);
    return bad === 0 ? 0 : 2;
  }
  const path = values.path;
  if (!isAdmissionPath(path.split("?")[0] ?? "")) {
    console.error(`duckbill admit: --path must be /defaulting, /resource-validation or /config-validation, got "${path}"`);
    return 2;
  }
  const answer = await admitOne(await readStdin(), path, deps, config);
  if (answer.status !== 200) {
    process.stderr.write(`HTTP ${answer.status}: ${answer.body}`);
    return 1;
  }
  process.stdout.write(answer.body + "\n");
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "serve":
      return serve(rest);
    case "admit":
      return admit(rest);
    case "check":
      return (await import("./check.js")).runCheck(rest);
    case "features":
      return (await import("./features-command.js")).runFeatures(rest);
    case "upgrade-check":
      return (await import("./upgrade-check.js")).runUpgradeCheck(rest);
    case "version":
    case "--version":
      console.log(version());
      // The Knative releases it answers as (--knative-version), the default first.
      for (const v of KNATIVE_VERSIONS) {
        const p = PROFILES[v];
        console.log(`knative ${v}${v === DEFAULT_KNATIVE_VERSION ? " (default without a cluster)" : ""}: ${p.servingModule}`);
      }
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE + optionsTable() + "\n");
      return command === undefined ? 2 : 0;
    default:
      console.error(`duckbill: unknown command "${command}"; run "duckbill help"`);
      return 2;
  }
}
