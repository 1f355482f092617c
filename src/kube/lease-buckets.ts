/**
 * Which Lease a leader-elected reconciler must hold for a key, as knative/pkg computes it: every reconciler
 * (work queue) spreads its keys over `buckets` Leases named `<component>.<queue>.<NN>-of-<MM>` (lower-cased;
 * `map-lease-prefix.<component>.<queue>` replaces the `<component>.<queue>` part), and a key belongs to the bucket
 * that knative/pkg's consistent hashing (hash.ChooseSubset with n = 1: FNV-64a angles on a 2,048-slot ring)
 * picks. A replica reconciles a key only while it holds that key's Lease, so Duckbill and Knative's own webhook
 * agree on who acts, whatever config-leader-election says. Tested against the Go implementation's answers.
 */
import type { LeaderElectionConfig } from "../config/configmaps/leader-election.js";

const FNV_OFFSET = 0xcbf29ce484222325n;
const FNV_PRIME = 0x100000001b3n;
const MASK_64 = 0xffffffffffffffffn;
/** The ring's size (knative/pkg hash.universe). */
const UNIVERSE = 2048n;
const START_SALT = "start-angle-salt";
const encoder = new TextEncoder();

/** hash/fnv New64a over the UTF-8 bytes of `s`. */
function fnv64a(s: string): bigint {
  let h = FNV_OFFSET;
  for (const b of encoder.encode(s)) h = ((h ^ BigInt(b)) * FNV_PRIME) & MASK_64;
  return h;
}

/**
 * The one bucket of `names` that owns `key` (BucketSet.Owner). Names are taken in sorted order, as Go's
 * sets.String List() gives them; that order only matters when two names land on the same slot.
 */
export function bucketOwner(names: readonly string[], key: string): string {
  if (names.length === 0) throw new Error("bucketOwner: no buckets");
  if (names.length === 1) return names[0] as string;
  const start = Number(fnv64a(key + START_SALT) % UNIVERSE);
  const slots = new Map<number, string>();
  for (const name of [...names].sort()) {
    // On a collision Go appends the hash in hex to what it hashed and hashes again.
    let input = name + key;
    let h = fnv64a(input);
    let slot = Number(h % UNIVERSE);
    while (slots.has(slot)) {
      input += h.toString(16);
      h = fnv64a(input);
      slot = Number(h % UNIVERSE);
    }
    slots.set(slot, name);
  }
  // The first slot at or after the start angle, wrapping around.
  const ordered = [...slots.keys()].sort((a, b) => a - b);
  const owner = ordered.find((s) => s >= start) ?? (ordered[0] as number);
  return slots.get(owner) as string;
}

/** `<prefix>.<NN>-of-<MM>`, lower-cased (leaderelection's standardBucketName). */
function bucketName(prefix: string, index: number, total: number): string {
  const two = (n: number): string => String(n).padStart(2, "0");
  return `${prefix}.${two(index)}-of-${two(total)}`.toLowerCase();
}

/**
 * Knative's Lease name for bucket `index` of `total` without prefix mapping: `<component>.<queue>.<NN>-of-<MM>`
 * (knative.dev/pkg leaderelection/context.go: standardBucketName).
 */
export function knativeLeaseName(component: string, queue: string, index = 0, total = 1): string {
  return bucketName(`${component}.${queue}`, index, total);
}

/** leaderelection's standardBucketName for every bucket of `queue`, `map-lease-prefix.<component>.<queue>` applied. */
export function bucketNames(component: string, queue: string, config: Pick<LeaderElectionConfig, "buckets" | "leasePrefixes">): string[] {
  const natural = `${component}.${queue}`;
  const mapped = config.leasePrefixes.get(natural);
  const prefix = mapped !== undefined && mapped !== "" ? mapped : natural;
  return Array.from({ length: config.buckets }, (_, i) => bucketName(prefix, i, config.buckets));
}

/** The Lease a replica must hold to reconcile `key` (`<namespace>/<name>`, `/<name>` when cluster-scoped) in `queue`. */
export function leaseNameFor(component: string, queue: string, key: string, config: Pick<LeaderElectionConfig, "buckets" | "leasePrefixes">): string {
  return bucketOwner(bucketNames(component, queue, config), key);
}
