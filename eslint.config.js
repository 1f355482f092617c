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
  {
    // Layers import only downward (DEVELOPERS.md): rules and libraries never reach up into transport.
    files: ["src/apis/**", "src/duck/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["**/serving/**", "**/admission/**", "**/server/**", "**/cli/**", "**/kube/**", "**/config/**"] }],
    },
  },
  {
    files: ["src/serving/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["**/admission/**", "**/server/**", "**/cli/**", "**/kube/**"] }],
    },
  },
  {
    files: ["src/admission/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: ["**/server/**", "**/cli/**"] }],
    },
  },
);
