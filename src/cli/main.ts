import { parseArgs } from "node:util";
import { argsProblem } from "./suggest.js";
import { knativeProfile } from "../config/profile.js";
import { defaultSnapshot } from "../config/snapshot.js";
import { isAdmissionPath } from "../admission/http.js";
import { ADMIT_OPTIONS, HELP_OPTION, VERSION_OPTIONS } from "./settings/command-options.js";
import { defaultDeps } from "./deps.js";
import { wantsHelp } from "./help.js";
import { deprecatedNames, parseArgsOptions, settingOf, SERVE_OPTIONS, type Environment } from "./settings/options.js";
import { readServeSettings } from "./settings/serve-settings.js";
import { HELP_BY_COMMAND, helpText } from "./usage.js";
import { formatVersion, versionInfo } from "./version.js";

export { defaultDeps } from "./deps.js";

/** A mistake in how a command was called: the message, a pointer to the command's help, exit 2. */
function usageError(command: string, message: string): number {
  console.error(`duckbill ${command}: ${message}\nRun "duckbill ${command} --help" for usage.`);
  return 2;
}

function parseOrUsage(command: string, argv: string[], options: NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>["options"]>, positionals = false): ReturnType<typeof parseArgs> | number {
  const all = { ...options, ...HELP_OPTION };
  try {
    return parseArgs({ args: argv, options: all, strict: true, allowPositionals: positionals });
  } catch (e) {
    return usageError(command, argsProblem(e as Error & { code?: string }, all));
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function serve(argv: string[], env: Environment): Promise<number> {
  const parsed = parseOrUsage("serve", argv, parseArgsOptions(SERVE_OPTIONS));
  if (typeof parsed === "number") return parsed;
  // Read and checked once, before anything starts: a bad setting fails the start with a clear message.
  const settings = readServeSettings(parsed.values as Record<string, string | boolean | undefined>, env);
  const { answerRebalancing, workerCount, reportServing, runPrimary, serveWorkerMetrics } = await import("./serve/workers.js");
  const workers = workerCount(settings.workers);
  const { default: cluster } = await import("node:cluster");
  const { serveLogger } = await import("./serve/serve.js");
  const logger = serveLogger(settings);
  // Workers read the same flags and environment: the primary (or the single process) warns once.
  if (!cluster.isWorker) for (const w of settings.deprecations) logger.warn(w);
  if (workers > 1 && cluster.isPrimary) return runPrimary(settings, workers, logger);
  // Commands load what they need only: `admit` never loads the HTTP stack.
  const { startWebhook } = await import("./serve/serve.js");
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
    running = await startWebhook({ ...settings, "metrics-port": 0 }, defaultDeps(), {
      logger: logger.child({ worker: cluster.worker?.id }),
      onRegistry: serveWorkerMetrics,
      servingMessage: "worker serving",
    });
    answerRebalancing(running.server);
    reportServing(running.port);
  } else {
    process.on("SIGINT", () => onSignal("SIGINT"));
    running = await startWebhook(settings, defaultDeps(), { logger });
  }
  if (stopping !== undefined) shutdown(running, stopping);
  return new Promise<number>(() => undefined);
}

async function admit(argv: string[], env: Environment): Promise<number> {
  const parsed = parseOrUsage("admit", argv, parseArgsOptions(ADMIT_OPTIONS));
  if (typeof parsed === "number") return parsed;
  const values = parsed.values as Record<string, unknown>;
  const setting = (flag: string): string => settingOf(ADMIT_OPTIONS, flag, values, env);
  for (const w of deprecatedNames(ADMIT_OPTIONS, values, env)) console.error(`duckbill admit: warning: ${w}`);
  const configDir = setting("config-dir");
  const profile = knativeProfile(setting("knative-version"));
  // The YAML parser loads only when a directory is read (`serve` does not need it at startup).
  const config = configDir !== "" ? await (await import("../config/dir.js")).loadConfigDir(configDir, profile) : defaultSnapshot(profile);
  const deps = defaultDeps();
  const { admitBatch, admitOne } = await import("./admit/admit.js");
  if (values.batch === true) {
    const bad = await admitBatch(process.stdin, process.stdout, deps, config);
    return bad === 0 ? 0 : 2;
  }
  const path = setting("path");
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

function version(argv: string[], env: Environment): number {
  const parsed = parseOrUsage("version", argv, parseArgsOptions(VERSION_OPTIONS));
  if (typeof parsed === "number") return parsed;
  const output = settingOf(VERSION_OPTIONS, "output", parsed.values, env);
  if (output !== "text" && output !== "json") return usageError("version", `--output must be text or json, got "${output}"`);
  const info = versionInfo();
  process.stdout.write(output === "json" ? JSON.stringify(info, null, 2) + "\n" : formatVersion(info));
  return 0;
}

/**
 * Runs one command. `env` is the process environment: this is where it is read (src/cli/index.ts passes
 * process.env), and the settings table (./settings/options.ts) is what reads variables out of it.
 */
export async function main(argv: string[], env: Environment = process.env): Promise<number> {
  const [command, ...rest] = argv;
  // Every command answers -h and --help before looking at its other arguments (`features` per subcommand).
  if (command !== undefined && command !== "features" && Object.hasOwn(HELP_BY_COMMAND, command) && wantsHelp(rest)) {
    process.stdout.write(helpText(command));
    return 0;
  }
  switch (command) {
    case "serve":
      return serve(rest, env);
    case "admit":
      return admit(rest, env);
    case "check":
      return (await import("./check/check-command.js")).runCheck(rest, undefined, undefined, env);
    case "test":
      return (await import("./test-suites/test-command.js")).runTest(rest, undefined, undefined, env);
    case "features":
      return (await import("./features/features-command.js")).runFeatures(rest, undefined, undefined, env);
    case "upgrade-check":
      return (await import("./upgrade/upgrade-check.js")).runUpgradeCheck(rest, undefined, undefined, env);
    case "version":
    case "--version":
      return version(rest, env);
    case undefined:
      process.stderr.write(helpText("help"));
      return 2;
    case "help":
    case "--help":
    case "-h": {
      const topic = rest[0];
      if (topic !== undefined && !Object.hasOwn(HELP_BY_COMMAND, topic)) {
        console.error(`duckbill help: unknown command "${topic}"; run "duckbill help"`);
        return 2;
      }
      process.stdout.write(helpText(topic ?? "help"));
      return 0;
    }
    default:
      console.error(`duckbill: unknown command "${command}"; run "duckbill help"`);
      return 2;
  }
}
