/** Shared pieces of the configuration-store tests: polling with a deadline, a log you can read, a store per test. */
import { Writable } from "node:stream";
import { pino, type Logger } from "pino";
import { Registry } from "prom-client";
import { createConfigStore, type ConfigStore, type ConfigStoreOptions } from "../../src/config/store.js";
import { within } from "../support/timing.js";

/** Polls `probe` until it returns something other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, what: string, timeoutMs = within(15_000)): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

export interface LogLine {
  level: string;
  msg: string;
  [key: string]: unknown;
}

/** A pino logger whose JSON lines are kept for assertions. */
export function capturedLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString("utf8").split("\n")) if (line !== "") lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const logger = pino({ level: "debug", formatters: { level: (label) => ({ level: label }) } }, sink);
  return { logger, lines };
}

export interface TestStore {
  readonly store: ConfigStore;
  readonly registry: Registry;
  readonly lines: LogLine[];
  /** The value of one sample of a metric, or undefined when it has none. */
  metric(name: string, labels?: Record<string, string>): Promise<number | undefined>;
}

/** A store on its own registry and captured log; closed by `closeAll`. */
export function testStore(opts: Omit<ConfigStoreOptions, "logger" | "registry">, opened: ConfigStore[]): TestStore {
  const registry = new Registry();
  const { logger, lines } = capturedLogger();
  const store = createConfigStore({ ...opts, logger, registry });
  opened.push(store);
  return {
    store,
    registry,
    lines,
    async metric(name, labels = {}) {
      const m = await registry.getSingleMetric(name)?.get();
      const sample = m?.values.find((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want));
      return sample?.value;
    },
  };
}

export async function closeAll(opened: ConfigStore[]): Promise<void> {
  await Promise.all(opened.splice(0).map((s) => s.close()));
}
