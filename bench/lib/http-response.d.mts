/** Types of bench/lib/http-response.mjs for its tests. */
export declare function frameResponse(buf: Buffer): { status: number; body: Buffer; length: number } | undefined;
