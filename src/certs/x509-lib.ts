/**
 * @peculiar/x509 behind a static namespace import, for certificate-issuer.ts to load on demand. A dynamic
 * `import("@peculiar/x509")` of the package itself lost its named exports in the esbuild bundle (CommonJS interop);
 * a static import of it in a module that is itself imported dynamically keeps them and lets the bundle carry the
 * library in a lazily loaded chunk (faster to load than the package's files).
 */
import * as x509 from "@peculiar/x509";

export { x509 };
