/**
 * The conformance vectors' normalisation (shared/conformance/README.md, "Comparison rules"; compare.py `normalize`):
 * object members whose value is null are dropped, then members whose normalised value is `{}` or `[]`, bottom-up.
 * Array elements are normalised but never removed. The input is not modified.
 *
 * compare.py repeats its pass until nothing changes; one bottom-up pass already reaches that fixed point (a member
 * is tested for emptiness after its own normalisation), so a single pass gives the same value.
 */
export function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key];
    if (member === null || member === undefined) continue;
    const normalized = normalize(member);
    if (isEmptyContainer(normalized)) continue;
    setMember(out, key, normalized);
  }
  return out;
}

function isEmptyContainer(v: unknown): boolean {
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === "object" && v !== null && Object.keys(v).length === 0;
}

/** Assigns an own data property, even for the key `__proto__` (which plain assignment would treat as the prototype). */
export function setMember(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}
