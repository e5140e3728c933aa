// ESLint flat config: typescript-eslint's recommended rules (no type-aware rules: lint stays fast), no `any`,
// and the purity rules of domain/ and projections/ (no clock, no randomness, no process, no I/O imports).
// .vue files get eslint-plugin-vue's recommended rules on top (vue-eslint-parser for the template, the
// typescript-eslint parser for `<script lang="ts">`), minus the layout rules a formatter owns; vue-tsc type-checks
// them. The import-layer rules live in scripts/check-imports.ts.
import js from "@eslint/js";
import { defineConfig } from "eslint/config";
import pluginVue from "eslint-plugin-vue";
import tseslint from "typescript-eslint";

/** The globals plain .js/.mjs scripts use under Node (the `globals` package is not a dependency). */
const nodeGlobals = Object.fromEntries(
  [
    "process",
    "console",
    "Buffer",
    "URL",
    "URLSearchParams",
    "fetch",
    "AbortController",
    "AbortSignal",
    "setTimeout",
    "clearTimeout",
    "setInterval",
    "clearInterval",
    "setImmediate",
    "clearImmediate",
    "queueMicrotask",
    "structuredClone",
    "TextEncoder",
    "TextDecoder",
    "performance",
    "globalThis",
  ].map((name) => [name, "readonly"]),
);

const IO_IMPORTS = [
  "fs",
  "fs/promises",
  "path",
  "os",
  "child_process",
  "net",
  "http",
  "https",
  "http2",
  "dgram",
  "dns",
  "tls",
  "worker_threads",
  "cluster",
  "readline",
  "stream",
  "zlib",
  "crypto",
  "better-sqlite3",
  "kysely",
  "node-pty",
  "fastify",
  "ws",
  "chokidar",
];

const pureCodeRules = {
  "no-restricted-syntax": [
    "error",
    {
      selector: "MemberExpression[object.name='Date'][property.name='now']",
      message: "Pure code reads no clock: take `now` as an argument.",
    },
    {
      selector: "NewExpression[callee.name='Date'][arguments.length=0]",
      message: "Pure code reads no clock: `new Date()` needs an explicit time.",
    },
    { selector: "CallExpression[callee.name='Date'][arguments.length=0]", message: "Pure code reads no clock." },
    {
      selector: "MemberExpression[object.name='Math'][property.name='random']",
      message: "Pure code has no randomness: take ids or a seed as arguments.",
    },
    { selector: "MemberExpression[object.name='performance'][property.name='now']", message: "Pure code reads no clock." },
    {
      selector: "MemberExpression[object.name='crypto'][property.name=/^(randomUUID|getRandomValues)$/]",
      message: "Pure code has no randomness.",
    },
  ],
  "no-restricted-globals": ["error", { name: "process", message: "Pure code does not read the process (env, argv, cwd): pass values in." }],
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
    ignores: [".*/**", "node_modules/**", "web/dist/**", "dist/**", "coverage/**", "test-results/**"],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  // The recommended set with every rule an error: a warning passes `npm run check` and would pile up unseen.
  pluginVue.configs["flat/recommended-error"],
  // Line breaks, indentation, quotes and spacing in templates are the formatter's (Prettier), not lint's: the
  // plugin's own list of its layout rules, so a formatted file never fails lint over layout. Among the recommended
  // rules it turns off: first-attribute-linebreak, html-closing-bracket-newline, html-closing-bracket-spacing,
  // html-indent, html-quotes, html-self-closing, max-attributes-per-line, multiline-html-element-content-newline,
  // mustache-interpolation-spacing, no-multi-spaces, no-spaces-around-equal-signs-in-attribute,
  // singleline-html-element-content-newline.
  pluginVue.configs["no-layout-rules"],
  {
    files: ["**/*.vue"],
    languageOptions: {
      parserOptions: { parser: tseslint.parser, extraFileExtensions: [".vue"], sourceType: "module" },
    },
    // As for .ts files: the core rules TypeScript checks better (no-undef, no-redeclare, ...) off, since vue-tsc
    // reports those with types and no-undef would flag every DOM global and type name; no-var and prefer-const on.
    rules: {
      ...tseslint.configs.eslintRecommended.rules,
      // "Composer" is the product's word for the prompt box (spec, data-test="composer"); the rule guards against
      // clashes with HTML elements, and there is no <composer> element.
      "vue/multi-word-component-names": ["error", { ignores: ["Composer"] }],
    },
  },
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
