/**
 * The log level in a cluster follows `loglevel.webhook` in config-logging, as Knative's webhook does
 * (sharedmain's WatchLoggingConfigOrDie); without that key it is --log-level's. pino's child loggers follow
 * their root's level, so one assignment reaches every component.
 */
import type { Logger } from "pino";
import { componentLogLevel, type ZapLevel } from "../config/configmaps/logging.js";
import type { ConfigData } from "../config/snapshot.js";
import type { LogLevel } from "./logging.js";

/** Knative Serving's webhook runs as component "webhook": its key is `loglevel.webhook`. */
const COMPONENT = "webhook";

/** pino's level for a zap level: pino has nothing between error and fatal. */
export function pinoLevelOfZap(level: ZapLevel): LogLevel {
  return level === "dpanic" || level === "panic" ? "fatal" : level;
}

/**
 * What to do with every version of config-logging. An invalid value keeps the level in effect (config-validation
 * rejects such a change; a ConfigMap written past the webhook gets a warning).
 */
export function followLogLevel(logger: Logger, flagLevel: LogLevel): (data: ConfigData) => void {
  return (data) => {
    const r = componentLogLevel(data, COMPONENT);
    if (!r.ok) {
      logger.warn({ err: r.error, level: logger.level }, "config-logging: loglevel.webhook is not a level; the log level stays");
      return;
    }
    const to = r.level === undefined ? flagLevel : pinoLevelOfZap(r.level);
    const from = logger.level;
    if (to === from) return;
    // Said at info, under whichever of the two levels shows it.
    const shownBefore = logger.isLevelEnabled("info");
    if (shownBefore) logger.info({ from, to }, "log level changed by config-logging");
    logger.level = to;
    if (!shownBefore && logger.isLevelEnabled("info")) logger.info({ from, to }, "log level changed by config-logging");
  };
}
