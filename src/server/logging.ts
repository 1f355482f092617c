import { pino, type Logger } from "pino";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** pino JSON logs on stderr-free stdout, one line per admission request at info. */
export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  return pino(
    { level, base: { component: "duckbill" }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    destination ?? pino.destination({ fd: 1, sync: false }),
  );
}
