/**
 * The `_example` guard of knative/pkg's ConfigMap webhook (knative.dev/pkg webhook/configmaps/configmaps.go:
 * validate; configmap/example.go: Checksum; docs/knative-behavior.md#config-validation): a ConfigMap whose `_example`
 * no longer matches the checksum annotation written at release time was probably edited in the wrong place.
 */
import { crc32 } from "node:zlib";
import { goTrimSpace } from "../go/strings/trim.js";

export const EXAMPLE_KEY = "_example";
export const EXAMPLE_CHECKSUM_ANNOTATION = "knative.dev/example-checksum";

/** The denial text (without the `validation failed: ` prefix). */
export const EXAMPLE_EDITED_ERROR =
  'the update modifies a key in "_example" which is probably not what you want. Instead, copy the respective setting to the top-level of the ConfigMap, directly below "data"';

const LINE_BREAKS = /(?:\r?\n)+/g;

/** configmap.Checksum: CRC-32 (IEEE) of the trimmed text with each run of line breaks replaced by `\n`, as %08x. */
export function exampleChecksum(example: string): string {
  // strings.TrimSpace from both ends (a regex anchored at the end would be tried at every position of the text).
  const canonical = goTrimSpace(example).replace(LINE_BREAKS, "\\n");
  return crc32(Buffer.from(canonical, "utf8")).toString(16).padStart(8, "0");
}

function own(map: Readonly<Record<string, string>>, key: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(map, key) ? map[key] : undefined;
}

/** The guard: the denial text when `_example` and the checksum annotation are both present and disagree. */
export function checkExample(data: Readonly<Record<string, string>>, annotations: Readonly<Record<string, string>>): string | undefined {
  const example = own(data, EXAMPLE_KEY);
  if (example === undefined) return undefined;
  const checksum = own(annotations, EXAMPLE_CHECKSUM_ANNOTATION);
  if (checksum === undefined) return undefined;
  return checksum === exampleChecksum(example) ? undefined : EXAMPLE_EDITED_ERROR;
}
