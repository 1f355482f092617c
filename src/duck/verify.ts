/**
 * duck.VerifyType (knative.dev/pkg apis/duck/verify.go: VerifyType): a kind implements a duck type when a
 * fully populated instance of the duck survives a round trip through the kind — marshal the duck, decode it
 * as the kind, marshal the kind, read it back as the duck — with every populated field intact.
 */
import { readAs } from "./read.js";
import type { DuckType } from "./duck-type.js";

/** A concrete kind as the round trip sees it: JSON in, the kind's own JSON (or its decode error) out. */
export interface KindSample {
  /** The Go type name, used in messages (`Service`). */
  readonly name: string;
  roundTrip(json: unknown): { ok: true; value: unknown } | { ok: false; error: string };
}

export type VerifyResult = { ok: true } | { ok: false; lost: readonly string[]; message: string };

export function verifyType<T>(sample: KindSample, duck: DuckType<T>): VerifyResult {
  // Through JSON text, as Go's json.Marshal would hand it over: the populated value is plain data.
  const input = JSON.parse(JSON.stringify(duck.populate())) as unknown;
  const decoded = sample.roundTrip(input);
  if (!decoded.ok) return { ok: false, lost: [], message: `error deserializing duck type ${duck.name} into ${sample.name}: ${decoded.error}` };
  const output = readAs(decoded.value, duck);
  if (!output.ok) return { ok: false, lost: [], message: `error deserializing ${sample.name} into duck type ${duck.name}: ${output.error}` };
  const lost: string[] = [];
  collectLost(input, output.view, "", lost);
  if (lost.length === 0) return { ok: true };
  return { ok: false, lost, message: `${sample.name} does not implement the duck type ${duck.name}, the following fields were lost: ${lost.join(", ")}` };
}

/** Paths of the populated leaves that are missing from, or different in, the round-tripped view. */
function collectLost(want: unknown, got: unknown, path: string, lost: string[]): void {
  if (Array.isArray(want)) {
    const items = Array.isArray(got) ? got : [];
    if (want.length === 0 && !Array.isArray(got)) lost.push(path);
    for (let i = 0; i < want.length; i++) collectLost(want[i], items[i], `${path}[${i}]`, lost);
    return;
  }
  if (typeof want === "object" && want !== null) {
    const members = typeof got === "object" && got !== null && !Array.isArray(got) ? (got as Record<string, unknown>) : {};
    const keys = Object.keys(want);
    if (keys.length === 0 && members !== got) lost.push(path);
    for (const key of keys) {
      collectLost((want as Record<string, unknown>)[key], Object.hasOwn(members, key) ? members[key] : undefined, path === "" ? key : `${path}.${key}`, lost);
    }
    return;
  }
  if (want !== got) lost.push(path);
}
