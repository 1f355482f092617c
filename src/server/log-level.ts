/**
 * The log level in a cluster follows `loglevel.webhook` in config-logging, as Knative's webhook does
 * (sharedmain's WatchLoggingConfigOrDie, knative.dev/pkg logging/config.go: UpdateLevelFromConfigMap); without that
 * key it is zap-logger-config's `level`, and without zap-logger-config --log-level's. pino's child loggers follow
 * their root's level, so one assignment reaches every component. A Knative-format logger also takes
 * zap-logger-config's encoding and keys (Knative reads them at startup only; Duckbill from the next line on).
 */
import type { Logger } from "pino";
import { componentLogLevel, type ZapLevel } from "../config/configmaps/logging.js";
import type { ConfigData } from "../config/snapshot.js";
import { DEFAULT_ZAP_FORMAT, setZapFormat, zapFormatOf, type LogLevel } from "./logging.js";
import { parseZapLoggerConfig } from "./zap-format.js";

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
  const knative = zapFormatOf(logger) !== undefined;
  return (data) => {
    const r = componentLogLevel(data, COMPONENT);
    if (!r.ok) {
      logger.error({ error: r.error }, "Failed to parse the logging configmap. Previous config map will be used.");
      return;
    }
    const zapConfig = data["zap-logger-config"];
    const z = parseZapLoggerConfig(zapConfig);
    if (!z.ok) {
      logger.error({ error: z.error }, `Failed to parse logger configuration. Previous log level retained for ${COMPONENT}`);
      return;
    }
    if (knative) setZapFormat(logger, zapConfig === undefined || zapConfig === "" ? DEFAULT_ZAP_FORMAT : z.format);
    const to = r.level !== undefined ? pinoLevelOfZap(r.level) : zapConfig !== undefined && zapConfig !== "" ? pinoLevelOfZap(z.format.level) : flagLevel;
    const from = logger.level;
    if (to === from) return;
    // Said at info, under whichever of the two levels shows it.
    const message = `Updating logging level for ${COMPONENT} from ${from} to ${to}.`;
    const shownBefore = logger.isLevelEnabled("info");
    if (shownBefore) logger.info({ from, to }, message);
    logger.level = to;
    if (!shownBefore && logger.isLevelEnabled("info")) logger.info({ from, to }, message);
  };
}
