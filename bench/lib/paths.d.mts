/** Types of bench/lib/paths.mjs for the tests that read it. */
/** The Node.js flags of bin/duckbill's launcher line, space-separated. */
export declare const IMAGE_NODE_FLAGS: string;
