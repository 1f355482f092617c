import type { KnativeProfile, KnativeVersion } from "./profile.js";

/**
 * The Go toolchain each Knative release's webhook was built with, and what of it shows in answers: Go 1.24's
 * encoding/json names embedded structs in decode-error field paths (`spec.ConfigurationSpec.template.spec.
 * PodSpec.containers`; golang/go src/encoding/json/decode.go `(*decodeState).object`), which 1.17's Go 1.23 did not.
 */
export interface Toolchain {
  readonly go: string;
  readonly jsonEmbeddedFieldNames: boolean;
  /**
   * The status of ServeMux's redirect of an unclean path (`//defaulting` → `/defaulting`): 301 until Go 1.26,
   * 307 from it (golang/go src/net/http/server.go: ServeMux.Handler).
   */
  readonly cleanPathRedirectStatus: 301 | 307;
}

export const TOOLCHAINS: Readonly<Record<KnativeVersion, Toolchain>> = Object.freeze({
  "1.17": Object.freeze({ go: "go1.23", jsonEmbeddedFieldNames: false, cleanPathRedirectStatus: 301 }),
  "1.23": Object.freeze({ go: "go1.26", jsonEmbeddedFieldNames: true, cleanPathRedirectStatus: 307 }),
  "1.24": Object.freeze({ go: "go1.26", jsonEmbeddedFieldNames: true, cleanPathRedirectStatus: 307 }),
});

export function toolchainOf(profile: KnativeProfile): Toolchain {
  return TOOLCHAINS[profile.version];
}
