/** Types of scripts/podman.mjs for test/image/. */
export declare const LIMITS: string[];
export declare const INSTALL_HINT: string;
export declare function hybridCgroups(): boolean;
export declare function podmanGlobals(): string[];
export declare function podman(globals: readonly string[], args: readonly string[], opts?: Record<string, unknown>): string;
