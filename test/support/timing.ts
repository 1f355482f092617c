/**
 * Time bounds in tests that run on shared and throttled machines.
 *
 * A CI runner or a throttled VM stops a whole process now and then: on the 2-core VM this suite was written on, a
 * busy loop saw 35 pauses of 80–1,025 ms in 15 s, and a CI run saw timers fire 500–700 ms late. A pause delays the
 * test's client, the in-process server and their timers alike, so a test that checks a server's timeout by the wall
 * clock can only bound it from above by nominal + PAUSE_MS. Lower bounds stay exact (a timeout that fires early is
 * a bug on any machine), and durations a test *configures* (a lease, a drain's quiet period) are chosen larger than
 * PAUSE_MS where a pause could otherwise change what happens rather than merely when.
 *
 * DUCKBILL_TEST_PAUSE_MS overrides the allowance (e.g. 500 on a quiet workstation, to tighten the bounds).
 */
function fromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number of milliseconds, not ${JSON.stringify(raw)}`);
  return n;
}

/** The longest whole-process pause a wall-clock upper bound tolerates. */
export const PAUSE_MS = fromEnv("DUCKBILL_TEST_PAUSE_MS", 2500);

/** An upper bound for something nominally done within `ms`: `ms` plus the pause allowance. */
export function within(ms: number): number {
  return ms + PAUSE_MS;
}
