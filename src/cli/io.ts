import { parseArgs } from "node:util";
import { deprecatedNames, type Environment, type OptionSpec } from "./settings/options.js";
import { loadConfigDir } from "../config/dir.js";
import { knativeProfile } from "../config/profile.js";
import { defaultSnapshot, type ConfigSnapshot } from "../config/snapshot.js";
import { ManifestError, NoObjectsError } from "./kubectl/manifests.js";
import { argsProblem } from "./suggest.js";

/** Where a command writes, so tests can capture it. */
export interface CliIO {
  write(text: string): void;
  error(text: string): void;
  readStdin(): Promise<string>;
}

export const PROCESS_IO: CliIO = {
  write: (t) => void process.stdout.write(t),
  error: (t) => void process.stderr.write(t),
  readStdin: async () => {
    const chunks: Buffer[] = [];
    for await (const c of process.stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString("utf8");
  },
};

/** A mistake in how a command was called: exit 2 with the message. */
export class UsageError extends Error {}

/** A failure reading the cluster (credentials, API errors): exit 2 with its message. */
export class ClusterError extends Error {}

/** Runs one call of ./features-cluster.js, turning its failures into ClusterError. */
export function clusterCall<T>(fn: () => T): T {
  const wrap = (e: unknown): never => {
    throw new ClusterError(e instanceof Error ? e.message : String(e));
  };
  try {
    const r = fn();
    return (r instanceof Promise ? r.catch(wrap) : r) as T;
  } catch (e) {
    return wrap(e);
  }
}

/**
 * Loads `--config-dir` (or Knative's defaults), for the commands that answer without a server, as the Knative
 * release `--knative-version` names (as resolved: flag, else DUCKBILL_KNATIVE_VERSION, else auto).
 */
export async function loadConfig(configDir: string | undefined, knativeVersion: string): Promise<ConfigSnapshot> {
  try {
    const profile = knativeProfile(knativeVersion);
    if (configDir === undefined || configDir === "") return defaultSnapshot(profile);
    return await loadConfigDir(configDir, profile);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

type ParseOptions = NonNullable<NonNullable<Parameters<typeof parseArgs>[0]>["options"]>;

/** node:util parseArgs (strict, positionals allowed) with `-h`/`--help`, its errors as UsageError. */
export function parseOrUsage(argv: string[], options: ParseOptions, positionals = true): { values: Record<string, string | boolean | string[] | undefined>; positionals: string[] } {
  const all = { ...options, help: { type: "boolean", short: "h" } } as const satisfies ParseOptions;
  try {
    const r = parseArgs({ args: argv, options: all, allowPositionals: positionals, strict: true });
    return { values: r.values as Record<string, string | boolean | string[] | undefined>, positionals: r.positionals };
  } catch (e) {
    throw new UsageError(argsProblem(e as Error & { code?: string }, all));
  }
}


/**
 * How a command ends on an error it expects: a usage error (exit 2, with a pointer to the command's help), a manifest
 * that cannot be read or a cluster that cannot be read (exit 2 with the message). Anything else is rethrown.
 */
export function exitOnError(command: string, e: unknown, io: CliIO): number {
  if (e instanceof UsageError) {
    io.error(`duckbill ${command}: ${e.message}\nRun "duckbill ${command} --help" for usage.\n`);
    return 2;
  }
  if (e instanceof ClusterError || e instanceof ManifestError || e instanceof NoObjectsError) {
    io.error(`duckbill ${command}: ${e.message}\n`);
    return 2;
  }
  throw e;
}

/** One stderr line per setting given under a deprecated name (src/cli/settings/options.ts: deprecatedNames). */
export function warnDeprecated(command: string, options: readonly OptionSpec[], env: Environment, io: CliIO): void {
  for (const w of deprecatedNames(options, {}, env)) io.error(`duckbill ${command}: warning: ${w}\n`);
}
