/** The conformance vectors sent to /defaulting with a JSON body: the seeds the property tests start from. */
import { vectorLines } from "../conformance/paths.js";

export interface DefaultingLine {
  readonly name: string;
  readonly configs?: Record<string, Record<string, string>>;
  readonly review: { apiVersion?: string; kind?: string; request: Record<string, unknown> & { object?: unknown; oldObject?: unknown } };
}

let cached: DefaultingLine[] | undefined;

export function defaultingVectorLines(): readonly DefaultingLine[] {
  if (cached !== undefined) return cached;
  const out: DefaultingLine[] = [];
  for (const raw of vectorLines()) {
    const line = raw as { name: string; path: string; contentType?: string; review?: DefaultingLine["review"] };
    if (line.path !== "/defaulting" || line.contentType !== undefined) continue;
    if (typeof line.review?.request !== "object" || line.review.request === null) continue;
    out.push(line as DefaultingLine);
  }
  cached = out;
  return out;
}
