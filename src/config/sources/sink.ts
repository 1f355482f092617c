/**
 * What a configuration source tells the store. Sources only observe and report; the store decides what takes
 * effect (parse, keep last good, readiness), so the cluster and directory sources behave identically.
 */

/** One observed version of a ConfigMap: its data, or why it could not be read as a ConfigMap at all. */
export type ObservedConfigMap =
  | { readonly version: string; readonly data: Readonly<Record<string, string>>; readonly error?: undefined }
  | { readonly version: string; readonly error: string; readonly data?: undefined };

export interface ConfigMapSink {
  /**
   * A ConfigMap as it is now. `version` identifies the content (a resourceVersion, or a digest of a file's
   * contents): a version already seen is only a sign of life, not a change.
   */
  observe(name: string, observed: ObservedConfigMap): void;
  /** The ConfigMap does not exist (deleted, or not there at startup). */
  observeMissing(name: string): void;
  /** Every watched ConfigMap was just reported (a list or a full directory read): the view is complete. */
  synced(): void;
  /** The source proved it is current without any change (a bookmark or an unrelated event on the stream). */
  alive(): void;
  /** The source cannot reach its origin right now; shown by readiness until the first sync. */
  trouble(message: string): void;
}
