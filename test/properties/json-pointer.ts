/** Reading a JSON document at an RFC 6901 pointer, with a marker for "no value there". */
export const ABSENT: unique symbol = Symbol("absent");

export function valueAt(doc: unknown, pointer: string): unknown {
  if (pointer === "") return doc;
  let cur = doc;
  for (const raw of pointer.slice(1).split("/")) {
    const token = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= cur.length) return ABSENT;
      cur = cur[Number(token)];
    } else if (typeof cur === "object" && cur !== null) {
      if (!Object.hasOwn(cur, token)) return ABSENT;
      cur = (cur as Record<string, unknown>)[token];
    } else {
      return ABSENT;
    }
  }
  return cur;
}

export function escapeToken(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}
