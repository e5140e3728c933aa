// ESLint flat config: typescript-eslint's recommended rules (no type-aware rules: lint stays fast), no `any`,
// and the purity rules of domain/ and projections/ (no clock, no randomness, no process, no I/O imports).
// .vue files are type-checked by vue-tsc, not linted here. The import-layer rules live in scripts/check-imports.ts.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

/** The globals plain .js/.mjs scripts use under Node (the `globals` package is not a dependency). */
const nodeGlobals = Object.fromEntries(
  [
    "process", "console", "Buffer", "URL", "URLSearchParams", "fetch", "AbortController", "AbortSignal",
    "setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate",
    "queueMicrotask", "structuredClone", "TextEncoder", "TextDecoder", "performance", "globalThis",
  ].map((name) => [name, "readonly"]),
);

const IO_IMPORTS = [
  "fs", "fs/promises", "path", "os", "child_process", "net", "http", "https", "http2", "dgram", "dns", "tls",
  "worker_threads", "cluster", "readline", "stream", "zlib", "crypto", "better-sqlite3", "kysely", "node-pty",
  "fastify", "ws", "chokidar",
];

const pureCodeRules = {
  "no-restricted-syntax": [
    "error",
    { selector: "MemberExpression[object.name='Date'][property.name='now']", message: "Pure code reads no clock: take `now` as an argument." },
    { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: "Pure code reads no clock: `new Date()` needs an explicit time." },
    { selector: "CallExpression[callee.name='Date'][arguments.length=0]", message: "Pure code reads no clock." },
    { selector: "MemberExpression[object.name='Math'][property.name='random']", message: "Pure code has no randomness: take ids or a seed as arguments." },
    { selector: "MemberExpression[object.name='performance'][property.name='now']", message: "Pure code reads no clock." },
    { selector: "MemberExpression[object.name='crypto'][property.name=/^(randomUUID|getRandomValues)$/]", message: "Pure code has no randomness." },
  ],
  "no-restricted-globals": [
    "error",
    { name: "process", message: "Pure code does not read the process (env, argv, cwd): pass values in." },
  ],
  "@typescript-eslint/no-restricted-imports": [
    "error",
    {
      paths: IO_IMPORTS.map((name) => ({ name, message: "Pure code does no I/O: this belongs in adapters/." })),
      patterns: [
        { regex: "^node:", message: "Pure code imports no Node builtins: I/O belongs in adapters/." },
        { regex: "^@fastify/", message: "Pure code does no I/O." },
        {
          regex: "^@earendil-works/",
          allowTypeImports: true,
          message: "Pure code may only `import type` from the pi packages (their runtime loads every provider SDK).",
        },
      ],
    },
  ],
};

export default defineConfig(
  {
    ignores: [".*/**", "node_modules/**", "web/dist/**", "dist/**", "coverage/**", "**/*.vue", "test-results/**"],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: nodeGlobals, sourceType: "module", ecmaVersion: "latest" },
  },
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_" }],
    },
  },
  {
    files: ["domain/**/*.ts", "projections/**/*.ts"],
    ignores: ["**/*.test.ts", "**/*.bench.ts"],
    rules: pureCodeRules,
  },
);
