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
  // Layers import only downward (cli → server → admission / kube → serving → config / duck → apis → go): each folder
  // names the folders it may not import. `config` is data: the cluster side of it lives in kube/ and is passed in.
  ...Object.entries({
    go: ["apis", "duck", "config", "serving", "admission", "kube", "server", "cli"],
    apis: ["duck", "config", "serving", "admission", "kube", "server", "cli"],
    duck: ["config", "serving", "admission", "kube", "server", "cli"],
    config: ["duck", "serving", "admission", "kube", "server", "cli"],
    serving: ["admission", "kube", "server", "cli"],
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
);
