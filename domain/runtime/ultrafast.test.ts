import { describe, expect, it } from "vitest";
import { parseUltrafastArgs, supportsUltrafast, type UltrafastModelRef } from "./ultrafast.ts";

describe("supportsUltrafast", () => {
  const cases: Array<[UltrafastModelRef, boolean]> = [
    [{ provider: "openai-codex", api: "openai-codex-responses", modelId: "gpt-6-astra", authKind: "oauth" }, true],
    [{ provider: "openai-codex", api: "openai-codex-responses", modelId: "gpt-6.1-sol", authKind: "unknown" }, true],
    [{ provider: "openai-codex", api: "openai-responses", modelId: "gpt-6-astra", authKind: "oauth" }, false],
    [{ provider: "openai-codex", api: "openai-codex-responses", modelId: "gpt-5.5", authKind: "oauth" }, false],
    [{ provider: "openai", api: "openai-responses", modelId: "gpt-6-astra", authKind: "apiKey" }, true],
    [{ provider: "openai", api: "openai-responses", modelId: "gpt-6.1-sol", authKind: "apiKey" }, true],
    [{ provider: "openai", api: "openai-responses", modelId: "gpt-6-astra", authKind: "oauth" }, false],
    [{ provider: "openai", api: "openai-responses", modelId: "gpt-6-astra", authKind: "unknown" }, false],
    [{ provider: "openai", api: "openai-completions", modelId: "gpt-6-astra", authKind: "apiKey" }, false],
    [{ provider: "openai", api: "openai-codex-responses", modelId: "gpt-6.1-sol", authKind: "apiKey" }, false],
    [{ provider: "openai", api: "openai-responses", modelId: "gpt-6", authKind: "apiKey" }, false],
    [{ provider: "openai", api: "openai-responses", modelId: "GPT-6-ASTRA", authKind: "apiKey" }, false],
    [{ provider: "azure-openai-responses", api: "azure-openai-responses", modelId: "gpt-6-astra", authKind: "apiKey" }, false],
    [{ provider: "openrouter", api: "openai-responses", modelId: "gpt-6-astra", authKind: "apiKey" }, false],
    [{ provider: "faux", api: "faux", modelId: "faux-1", authKind: "apiKey" }, false],
  ];
  it.each(cases)("%j → %s", (model, expected) => {
    expect(supportsUltrafast(model)).toBe(expected);
  });
});

describe("parseUltrafastArgs", () => {
  it.each([
    ["on", true],
    [" ON ", true],
    ["off", false],
    ["Off", false],
    ["", null],
    ["yes", null],
    ["on off", null],
  ] as const)("%j → %s", (args, expected) => {
    expect(parseUltrafastArgs(args)).toBe(expected);
  });
});
