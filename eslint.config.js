// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "certs/", "coverage/", "bench/results/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: "readonly", console: "readonly", Buffer: "readonly", setTimeout: "readonly", clearTimeout: "readonly", setInterval: "readonly", clearInterval: "readonly", URL: "readonly" },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-imports": "off",
    },
  },
  // Layers import only downward (cli → server → admission / kube → certs, serving → config / duck → apis → go): each
  // folder names the folders it may not import. `config` is data: the cluster side of it lives in kube/ and is
  // passed in; `certs` makes, reads and rotates certificates and TLS files, and kube/ stores them in the cluster.
  ...Object.entries({
    go: ["apis", "duck", "config", "certs", "serving", "admission", "kube", "server", "cli"],
    apis: ["duck", "config", "certs", "serving", "admission", "kube", "server", "cli"],
    duck: ["config", "certs", "serving", "admission", "kube", "server", "cli"],
    config: ["duck", "certs", "serving", "admission", "kube", "server", "cli"],
    certs: ["serving", "admission", "kube", "server", "cli"],
    serving: ["certs", "admission", "kube", "server", "cli"],
    admission: ["kube", "server", "cli"],
    kube: ["admission", "server", "cli"],
    server: ["serving", "duck", "apis", "cli"],
  }).map(([folder, forbidden]) => ({
    files: [`src/${folder}/**/*.ts`],
    // Tests sit above every layer: a test beside a rule may drive it through the admission pipeline.
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": ["error", { patterns: forbidden.map((f) => ({ group: [`**/${f}/**`], message: `src/${folder} may not import src/${f} (layers import only downward)` })) }],
    },
  })),
  // Inside src/cli, rooms import downward too: main.ts (dispatch) → the commands (check, upgrade, features,
  // test-suites, admit) and serve → cluster (reading a cluster for the commands) → the command line's own files at
  // the top of src/cli (help, usage, io) → kubectl (what kubectl does with manifests) and settings (the table of
  // every command's flags and variables, parsed once into typed settings), which do not import each other.
  ...Object.entries({
    kubectl: { parent: true, rooms: ["check", "upgrade", "features", "test-suites", "admit", "cluster", "serve", "settings"] },
    settings: { parent: true, rooms: ["check", "upgrade", "features", "test-suites", "admit", "cluster", "serve", "kubectl"] },
    cluster: { parent: false, rooms: ["check", "upgrade", "features", "test-suites", "admit", "serve"] },
    check: { parent: false, rooms: ["upgrade", "features", "test-suites", "admit", "serve"] },
    upgrade: { parent: false, rooms: ["features", "test-suites", "admit", "serve"] },
    features: { parent: false, rooms: ["upgrade", "test-suites", "admit", "serve"] },
    "test-suites": { parent: false, rooms: ["upgrade", "features", "admit", "serve"] },
    admit: { parent: false, rooms: ["check", "upgrade", "features", "test-suites", "cluster", "serve"] },
    serve: { parent: false, rooms: ["check", "upgrade", "features", "test-suites", "admit", "cluster"] },
  }).map(([room, { parent, rooms }]) => ({
    files: [`src/cli/${room}/**/*.ts`],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...rooms.map((r) => ({ group: [`../${r}/**`], message: `src/cli/${room} may not import src/cli/${r} (rooms import only downward)` })),
            ...(parent ? [{ group: ["../*.js"], message: `src/cli/${room} may not import the command line's own files above it` }] : []),
          ],
        },
      ],
    },
  })),
  {
    files: ["src/cli/*.ts"],
    ignores: ["src/cli/main.ts", "src/cli/index.ts", "**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ group: ["./check/**", "./upgrade/**", "./features/**", "./test-suites/**", "./admit/**", "./cluster/**", "./serve/**"], message: "the command line's own files do not import the commands or serve: main.ts dispatches to them" }] },
      ],
    },
  },
);
