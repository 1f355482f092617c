/** Types of bench/hostile.mjs for the tests that build the same bodies. */
export declare const LISTS: Record<string, { where: "container" | "pod"; entry: string }>;
/** A Service review whose one list has as many entries as fit under the 3 MiB limit (or `entries`). */
export declare function hostileBody(list: string, entries?: number): Buffer;
