/**
 * The models.json rules of spec/api-reference.md ("Provider configuration", "Model definitions and overrides"),
 * one test per rule, written Given (a models.json text and the runtime catalog) / When (a provider or model
 * request) / Then (the new file's value and the exact bytes that changed, or the failure code and message).
 */
import { describe, expect, it } from "vitest";
import { parseJsoncDocument } from "./jsonc-document.ts";
import {
  RADIUS_MESSAGE,
  SUPPORTED_APIS,
  deleteModel,
  deleteProvider,
  editModel,
  editProvider,
  validateSettingsId,
} from "./models-config.ts";
import type {
  CatalogCost,
  CatalogView,
  EditFailureCode,
  ModelDeleteRequest,
  ModelEditRequest,
  ModelsEditResult,
  ProviderEditRequest,
} from "./models-config.ts";

const GPT5_COST: CatalogCost = { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 };

/** Built-in providers the runtime knows besides models.json. */
const CATALOG: Record<string, { models: Array<{ id: string; cost?: CatalogCost }> }> = {
  openai: { models: [{ id: "gpt-5", cost: GPT5_COST }, { id: "gpt-5-mini" }] },
  anthropic: { models: [{ id: "claude-sonnet-5", cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } }] },
  radius: { models: [{ id: "radius-large" }] },
};
const catalog: CatalogView = { provider: (id) => (Object.hasOwn(CATALOG, id) ? CATALOG[id] : undefined) };

/** A hand-written models.json: comments, trailing commas, odd indentation, fields the editor does not know. */
const STORED = `// Models for pi
{
  "$schema": "https://pi.dev/schemas/models.schema.json",
  "providers": {
    // local llama
    "ollama": {
      "baseUrl": "http://localhost:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "x-team": { "owner": "ops" },   // not pi's
      "models": [
        { "id": "qwen2.5-coder:7b", "samplingParams": { "temperature": 0.7 } },
        {
          "id": "llama3",
          "api": "ollama-native",
          "cost": { "input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0, "tiers": [] },
          "compat": { "supportsDeveloperRole": false, "supportsStore": true },
          "thinkingLevelMap": { "high": "think" },
        },
      ],
    },
    "openai": {   "baseUrl": "https://proxy.example.com/v1",
       "modelOverrides": {
          "gpt-5": { "name": "GPT 5 (proxy)", "cost": { "input": 1 } }
       }
    },
    "anthropic": { "modelOverrides": { "claude-sonnet-5": { "thinkingLevelMap": { "max": null } } } },
  },
}
`;

function given(text: string) {
  return {
    whenProvider: (request: Partial<ProviderEditRequest> & Pick<ProviderEditRequest, "values">) =>
      then(text, editProvider(text, { id: "ollama", create: false, ...request }, catalog)),
    whenDeleteProvider: (id: string) => then(text, deleteProvider(text, id)),
    whenModel: (request: Partial<ModelEditRequest> & Pick<ModelEditRequest, "values">) =>
      then(text, editModel(text, { providerId: "ollama", modelId: "llama3", kind: "custom", create: false, ...request }, catalog)),
    whenDeleteModel: (request: ModelDeleteRequest) => then(text, deleteModel(text, request)),
  };
}

function then(before: string, result: ModelsEditResult) {
  return {
    result,
    thenFails(code: EditFailureCode, message: string) {
      expect(result).toEqual({ ok: false, code, message });
    },
    /** The new text; the value of the touched provider entry (or of the whole file) is checked by the caller. */
    thenText(): string {
      if (!result.ok) throw new Error(`expected success, got ${result.code}: ${result.message}`);
      expect(parseJsoncDocument(result.text, "jsonc").ok).toBe(true);
      return result.text;
    },
    thenProvider(id: string): unknown {
      return providersOf(this.thenText())[id];
    },
    /**
     * The new text is the old one with exactly one span replaced: `span` (which occurs once in the old text) by
     * `replacement`. Every byte before and after it is unchanged.
     */
    thenReplaces(span: string, replacement: string): void {
      const after = this.thenText();
      const at = before.indexOf(span);
      expect(at, "the span occurs in the old text").toBeGreaterThanOrEqual(0);
      expect(before.indexOf(span, at + 1), "the span occurs once").toBe(-1);
      expect(after.slice(0, at)).toBe(before.slice(0, at));
      expect(after.slice(at + replacement.length)).toBe(before.slice(at + span.length));
      expect(after.slice(at, at + replacement.length)).toBe(replacement);
    },
  };
}

function providersOf(text: string): Record<string, unknown> {
  const parsed = parseJsoncDocument(text, "jsonc");
  if (!parsed.ok) throw new Error(parsed.message);
  return ((parsed.value as { providers?: Record<string, unknown> }).providers ?? {}) as Record<string, unknown>;
}

describe("settings IDs", () => {
  it("rejects empty, long, spaced, control-character, reserved and (for providers) slashed IDs", () => {
    expect(validateSettingsId("", "provider")).toBe("The provider ID cannot be empty.");
    expect(validateSettingsId("x".repeat(513), "model")).toBe("The model ID cannot be longer than 512 characters.");
    expect(validateSettingsId("x".repeat(512), "model")).toBeNull();
    expect(validateSettingsId("my model", "model")).toBe("The model ID cannot contain whitespace or control characters.");
    expect(validateSettingsId("a\u0007", "provider")).toBe("The provider ID cannot contain whitespace or control characters.");
    expect(validateSettingsId("__proto__", "model")).toBe('"__proto__" is a reserved name and cannot be a model ID.');
    expect(validateSettingsId("constructor", "provider")).toBe('"constructor" is a reserved name and cannot be a provider ID.');
    expect(validateSettingsId("org/model", "provider")).toBe('The provider ID cannot contain "/".');
    expect(validateSettingsId("org/model", "model")).toBeNull();
  });

  it("given an invalid provider or model ID in a request, then it is 400", () => {
    given(STORED)
      .whenProvider({ id: "a/b", values: { name: "x" } })
      .thenFails("invalid_request", 'The provider ID cannot contain "/".');
    given(STORED)
      .whenModel({ modelId: "prototype", values: { name: "x" } })
      .thenFails("invalid_request", '"prototype" is a reserved name and cannot be a model ID.');
    given(STORED)
      .whenDeleteProvider(" ollama")
      .thenFails("invalid_request", "The provider ID cannot contain whitespace or control characters.");
  });
});

describe("stored configuration", () => {
  it("given a models.json pi cannot read, when anything is edited, then it is 409 with the parse message", () => {
    const broken = '{\n  "providers": {\n    "a": {},\n    "a": {}\n  }\n}';
    given(broken)
      .whenProvider({ id: "a", values: { name: "A" } })
      .thenFails("conflict", 'models.json is not valid: duplicate key "a" at line 4');
    given("{ /* no */ }")
      .whenDeleteProvider("a")
      .thenFails("conflict", "models.json is not valid: block comments are not supported (line 1)");
    given('{ "providers": [] }')
      .whenDeleteModel({ providerId: "a", modelId: "m", kind: "custom" })
      .thenFails("conflict", 'models.json is not valid: "providers" must be an object');
    given('{ "providers": { "ollama": { "models": {} } } }')
      .whenModel({ values: { name: "x" } })
      .thenFails("conflict", 'models.json is not valid: provider "ollama" has "models" that is not an array');
  });
});

describe("PUT providers", () => {
  it("given no models.json, when a custom provider is created, then it has baseUrl, api and an empty models list", () => {
    const text = given("")
      .whenProvider({
        id: "lmstudio",
        create: true,
        values: { baseUrl: "http://localhost:1234/v1", api: "openai-completions", apiKey: "$LM_KEY" },
      })
      .thenText();
    expect(text).toBe(
      '{\n  "providers": {\n    "lmstudio": {\n      "baseUrl": "http://localhost:1234/v1",\n      "api": "openai-completions",\n      "apiKey": "$LM_KEY",\n      "models": []\n    }\n  }\n}\n',
    );
  });

  it("given a new provider without baseUrl or api, then it is 400", () => {
    given("")
      .whenProvider({ id: "lmstudio", create: true, values: { baseUrl: "http://localhost:1234/v1" } })
      .thenFails("invalid_request", "A new provider needs a base URL and an API.");
  });

  it("given a provider in models.json or in the runtime, when it is created again, then it is 409", () => {
    const values = { baseUrl: "http://h/v1", api: "openai-completions" };
    given(STORED).whenProvider({ id: "ollama", create: true, values }).thenFails("conflict", 'Provider "ollama" already exists.');
    given("").whenProvider({ id: "openai", create: true, values }).thenFails("conflict", 'Provider "openai" already exists.');
  });

  it("given a provider neither configured nor in the runtime, when it is edited, then it is 404", () => {
    given(STORED)
      .whenProvider({ id: "nowhere", values: { name: "X" } })
      .thenFails("settings_not_found", 'Provider "nowhere" was not found.');
  });

  it("given a runtime provider without an entry, when its base URL is set, then an entry with only that field is added", () => {
    const result = given(STORED).whenProvider({ id: "radius-free", values: { baseUrl: "https://x" } });
    result.thenFails("settings_not_found", 'Provider "radius-free" was not found.');
    const entry = given('{ "providers": {} }')
      .whenProvider({ id: "anthropic", values: { baseUrl: "https://gw.example.com" } })
      .thenProvider("anthropic");
    expect(entry).toEqual({ baseUrl: "https://gw.example.com" });
  });

  it("given no value fields, then it is 400", () => {
    given(STORED).whenProvider({ values: {} }).thenFails("invalid_request", "Provide at least one provider field to change.");
  });

  it("given some fields, then only those values change and everything else keeps its bytes", () => {
    given(STORED)
      .whenProvider({ values: { apiKey: "!pass show ollama" } })
      .thenReplaces('"apiKey": "ollama"', '"apiKey": "!pass show ollama"');
    given(STORED)
      .whenProvider({ values: { authHeader: true } })
      .thenReplaces('      ],\n    },\n    "openai"', '      ],\n      "authHeader": true,\n    },\n    "openai"');
  });

  it("given apiKey null, then only the key is removed; an entry left empty is removed too", () => {
    given(STORED)
      .whenProvider({ values: { apiKey: null } })
      .thenReplaces('      "apiKey": "ollama",\n', "");
    const text = '{\n  "providers": {\n    "anthropic": { "apiKey": "sk-1" },\n    "x": { "baseUrl": "http://x" }\n  }\n}\n';
    expect(
      given(text)
        .whenProvider({ id: "anthropic", values: { apiKey: null } })
        .thenText(),
    ).toBe('{\n  "providers": {\n    "x": { "baseUrl": "http://x" }\n  }\n}\n');
  });

  it("given null for any field but apiKey, then it is 400", () => {
    given(STORED)
      .whenProvider({ values: { name: null as unknown as string } })
      .thenFails("invalid_request", "name cannot be null; only apiKey can be removed.");
  });

  it("given an unsupported field, then it is 400", () => {
    given(STORED)
      .whenProvider({ values: { headers: {} } as never })
      .thenFails("invalid_request", 'Unsupported provider field "headers".');
  });

  it.each([
    ["ftp://files.example.com", "The base URL must be an absolute http:// or https:// URL."],
    ["localhost:1234", "The base URL must be an absolute http:// or https:// URL."],
    ["/v1", "The base URL must be an absolute http:// or https:// URL."],
    ["https://user:secret@example.com/v1", "The base URL cannot contain credentials."],
    ["https://example.com/v1?key=1", "The base URL cannot contain a query."],
    ["https://example.com/v1?", "The base URL cannot contain a query."],
    ["https://example.com/v1#top", "The base URL cannot contain a fragment."],
    [" https://example.com/v1", "The base URL cannot have surrounding whitespace."],
    ["", "The base URL must be nonempty text."],
  ])("given base URL %j, then it is 400", (baseUrl, message) => {
    given(STORED).whenProvider({ values: { baseUrl } }).thenFails("invalid_request", message);
  });

  it.each([
    ["", "The API key cannot be empty."],
    ["   ", "The API key cannot be empty."],
    ["!", 'The API key command after "!" cannot be empty.'],
    ["!  ", 'The API key command after "!" cannot be empty.'],
  ])("given API key %j, then it is 400", (apiKey, message) => {
    given(STORED).whenProvider({ values: { apiKey } }).thenFails("invalid_request", message);
  });

  it("given an API outside the supported list, then it is 400 unless a model on that provider already uses it", () => {
    expect(SUPPORTED_APIS).toHaveLength(10);
    given(STORED)
      .whenProvider({ values: { api: "carrier-pigeon" } })
      .thenFails("invalid_request", `API "carrier-pigeon" is not supported. Choose one of: ${SUPPORTED_APIS.join(", ")}.`);
    given(STORED)
      .whenProvider({ values: { api: "ollama-native" } })
      .thenReplaces('"api": "openai-completions",\n      "apiKey"', '"api": "ollama-native",\n      "apiKey"');
    given(STORED)
      .whenProvider({ values: { authHeader: "yes" as unknown as boolean } })
      .thenFails("invalid_request", "authHeader must be true or false.");
  });

  it("given Radius, when its saved base URL would change, then it is 409; other fields may change", () => {
    const radius = '{\n  "providers": {\n    "corp": { "oauth": "radius", "baseUrl": "https://radius.corp/v1" }\n  }\n}\n';
    given(radius)
      .whenProvider({ id: "corp", values: { baseUrl: "https://other.corp/v1" } })
      .thenFails("conflict", RADIUS_MESSAGE);
    given("")
      .whenProvider({ id: "radius", values: { baseUrl: "https://radius.example/v1" } })
      .thenFails("conflict", RADIUS_MESSAGE);
    expect(
      given(radius)
        .whenProvider({ id: "corp", values: { baseUrl: "https://radius.corp/v1", name: "Corp" } })
        .thenProvider("corp"),
    ).toEqual({
      oauth: "radius",
      baseUrl: "https://radius.corp/v1",
      name: "Corp",
    });
    given(radius).whenDeleteProvider("corp").thenFails("conflict", RADIUS_MESSAGE);
  });
});

describe("DELETE providers", () => {
  it("given a configured provider, then its whole entry goes, custom models and overrides included", () => {
    const openaiLines = STORED.slice(STORED.indexOf('    "openai"'), STORED.indexOf('    "anthropic"'));
    expect(openaiLines).toContain('"gpt-5"');
    given(STORED).whenDeleteProvider("openai").thenReplaces(openaiLines, "");
  });

  it("given a provider without an entry, then it is 404", () => {
    given(STORED).whenDeleteProvider("radius").thenFails("settings_not_found", 'Provider "radius" has no configuration in models.json.');
  });
});

describe("PUT models: custom definitions", () => {
  it("given a provider with baseUrl and api, when a custom model is created, then it is appended to models", () => {
    given(STORED)
      .whenModel({ modelId: "org/coder", create: true, values: { name: "Coder", input: ["text", "image"], contextWindow: 32768 } })
      .thenReplaces(
        "        },\n      ],",
        '        },\n        {\n          "id": "org/coder",\n          "name": "Coder",\n          "input": ["text", "image"],\n          "contextWindow": 32768\n        },\n      ],',
      );
  });

  it("given no values, when a custom model is created, then it is only its id", () => {
    const entry = given(STORED).whenModel({ modelId: "m", create: true, values: {} }).thenProvider("ollama") as { models: unknown[] };
    expect(entry.models.at(-1)).toEqual({ id: "m" });
  });

  it("given an existing custom model, when it is created again, then it is 409", () => {
    given(STORED)
      .whenModel({ create: true, values: {} })
      .thenFails("conflict", 'Model "llama3" already has a custom definition on provider "ollama".');
  });

  it("given a catalog model, when a custom definition is created, then it is 409 and an override is needed", () => {
    given('{ "providers": { "openai": { "baseUrl": "https://p/v1", "api": "openai-responses" } } }')
      .whenModel({ providerId: "openai", modelId: "gpt-5", create: true, values: {} })
      .thenFails("conflict", 'Model "gpt-5" is a catalog model of provider "openai"; save an override instead of a custom definition.');
  });

  it("given a provider without its own baseUrl and api, when a custom model is created, then it is 409; an unknown provider is 404", () => {
    const message = 'Provider "openai" needs its own baseUrl and api in models.json before it can have custom models.';
    given(STORED).whenModel({ providerId: "openai", modelId: "mine", create: true, values: {} }).thenFails("conflict", message);
    given("").whenModel({ providerId: "openai", modelId: "mine", create: true, values: {} }).thenFails("conflict", message);
    given("")
      .whenModel({ providerId: "nowhere", modelId: "mine", create: true, values: {} })
      .thenFails("settings_not_found", 'Provider "nowhere" was not found.');
  });

  it("given a missing custom model, when it is edited, then it is 404", () => {
    given(STORED)
      .whenModel({ modelId: "gone", values: { name: "x" } })
      .thenFails("settings_not_found", 'Model "gone" has no custom definition on provider "ollama".');
  });

  it("given values.id, then it must equal the model ID", () => {
    given(STORED)
      .whenModel({ values: { id: "llama4", name: "x" } })
      .thenFails("invalid_request", 'values.id must equal the model ID "llama3"; models cannot be renamed.');
    given(STORED)
      .whenModel({ values: { id: "llama3" } })
      .thenFails("invalid_request", "Provide at least one model field to change.");
    given(STORED)
      .whenModel({ values: { id: "llama3", reasoning: true } })
      .thenReplaces('{ "high": "think" },\n', '{ "high": "think" },\n          "reasoning": true,\n');
  });

  it.each([
    [{ contextWindow: 0 }, "contextWindow must be a finite positive number."],
    [{ maxTokens: -1 }, "maxTokens must be a finite positive number."],
    [{ maxTokens: Number.POSITIVE_INFINITY }, "maxTokens must be a finite positive number."],
    [{ contextWindow: Number.NaN }, "contextWindow must be a finite positive number."],
    [{ cost: { input: -0.5 } }, "cost.input must be a finite nonnegative number."],
    [{ cost: { output: Number.POSITIVE_INFINITY } }, "cost.output must be a finite nonnegative number."],
    [{ cost: { tiers: [] } }, "cost accepts only input, output, cacheRead and cacheWrite."],
    [{ input: [] }, 'input must be a nonempty list of "text" and "image".'],
    [{ input: ["audio"] }, 'input accepts only "text" and "image".'],
    [{ input: ["text", "text"] }, 'input lists "text" more than once.'],
    [{ name: "  " }, "The model name must be nonempty text."],
    [{ name: null }, "name cannot be null."],
    [{ cost: null }, "cost cannot be null."],
    [{ thinkingLevelMap: null }, "thinkingLevelMap cannot be null; send {} to remove the map."],
    [{ compat: null }, 'compat cannot be null; send { "supportsDeveloperRole": null } to remove the flag.'],
    [{ reasoning: "yes" }, "reasoning must be true or false."],
    [{ headers: {} }, 'Unsupported model field "headers".'],
  ])("given values %j, then it is 400", (values, message) => {
    given(STORED)
      .whenModel({ values: values as never })
      .thenFails("invalid_request", message);
  });

  it("given a new custom model with part of a cost, then it is 400; all four rates are written", () => {
    given(STORED)
      .whenModel({ modelId: "m", create: true, values: { cost: { input: 1, output: 2 } } })
      .thenFails("invalid_request", "A new custom model with a cost needs all four rates: input, output, cacheRead and cacheWrite.");
    const entry = given(STORED)
      .whenModel({ modelId: "m", create: true, values: { cost: { cacheWrite: 4, input: 1, output: 2, cacheRead: 3 } } })
      .thenProvider("ollama") as { models: unknown[] };
    expect(entry.models.at(-1)).toEqual({ id: "m", cost: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4 } });
  });

  it("given an existing custom cost, when one rate changes, then only that rate changes and tiers stay", () => {
    given(STORED)
      .whenModel({ values: { cost: { output: 2.5 } } })
      .thenReplaces('"output": 2,', '"output": 2.5,');
  });

  it("given an existing custom model without cost, then missing rates come from the catalog, else 0", () => {
    const text =
      '{ "providers": { "openai": { "baseUrl": "https://p/v1", "api": "openai-responses", "models": [{ "id": "gpt-5" }, { "id": "mine" }] } } }';
    const fromCatalog = given(text)
      .whenModel({ providerId: "openai", modelId: "gpt-5", values: { cost: { input: 2 } } })
      .thenProvider("openai");
    expect((fromCatalog as { models: unknown[] }).models[0]).toEqual({ id: "gpt-5", cost: { ...GPT5_COST, input: 2 } });
    const zeros = given(text)
      .whenModel({ providerId: "openai", modelId: "mine", values: { cost: { input: 2 } } })
      .thenProvider("openai");
    expect((zeros as { models: unknown[] }).models[1]).toEqual({ id: "mine", cost: { input: 2, output: 0, cacheRead: 0, cacheWrite: 0 } });
  });

  it("given a thinkingLevelMap, then it replaces the stored map; {} removes it", () => {
    given(STORED)
      .whenModel({ values: { thinkingLevelMap: { xhigh: null, low: "quick" } } })
      .thenReplaces('{ "high": "think" }', '{ "low": "quick", "xhigh": null }');
    given(STORED)
      .whenModel({ values: { thinkingLevelMap: {} } })
      .thenReplaces('          "thinkingLevelMap": { "high": "think" },\n', "");
  });

  it.each([
    [{ turbo: "x" }, "thinkingLevelMap accepts only off, minimal, low, medium, high, xhigh, max."],
    [{ high: "" }, "thinkingLevelMap.high must be nonempty, at most 256 characters, without surrounding spaces or control characters."],
    [
      { high: " high" },
      "thinkingLevelMap.high must be nonempty, at most 256 characters, without surrounding spaces or control characters.",
    ],
    [{ low: "a\tb" }, "thinkingLevelMap.low must be nonempty, at most 256 characters, without surrounding spaces or control characters."],
    [
      { max: "x".repeat(257) },
      "thinkingLevelMap.max must be nonempty, at most 256 characters, without surrounding spaces or control characters.",
    ],
    [{ off: 1 }, "thinkingLevelMap.off must be text or null."],
  ])("given thinkingLevelMap %j, then it is 400", (thinkingLevelMap, message) => {
    given(STORED)
      .whenModel({ values: { thinkingLevelMap: thinkingLevelMap as never } })
      .thenFails("invalid_request", message);
  });

  it("given compat, then a boolean sets the flag, null removes only the flag, and an emptied compat goes", () => {
    given(STORED)
      .whenModel({ values: { compat: { supportsDeveloperRole: true } } })
      .thenReplaces('"supportsDeveloperRole": false', '"supportsDeveloperRole": true');
    given(STORED)
      .whenModel({ values: { compat: { supportsDeveloperRole: null } } })
      .thenReplaces('{ "supportsDeveloperRole": false, "supportsStore": true }', '{ "supportsStore": true }');
    const onlyFlag =
      '{ "providers": { "p": { "baseUrl": "http://h", "api": "pi-messages", "models": [{ "id": "m", "compat": { "supportsDeveloperRole": true } }] } } }';
    expect(
      given(onlyFlag)
        .whenModel({ providerId: "p", modelId: "m", values: { compat: { supportsDeveloperRole: null } } })
        .thenText(),
    ).toBe('{ "providers": { "p": { "baseUrl": "http://h", "api": "pi-messages", "models": [{ "id": "m" }] } } }');
    given(STORED)
      .whenModel({ values: { compat: { supportsStore: true } as never } })
      .thenFails("invalid_request", "compat accepts only supportsDeveloperRole.");
  });
});

describe("PUT models: overrides", () => {
  const override = (request: Partial<ModelEditRequest> & Pick<ModelEditRequest, "values">) => ({
    providerId: "openai",
    modelId: "gpt-5",
    kind: "override" as const,
    ...request,
  });

  it("given a catalog model without an entry, when an override is created, then the provider entry holds only it", () => {
    const text = given(STORED)
      .whenModel(override({ providerId: "radius", modelId: "radius-large", create: true, values: { name: "Large", reasoning: true } }))
      .thenText();
    expect(providersOf(text).radius).toEqual({ modelOverrides: { "radius-large": { name: "Large", reasoning: true } } });
  });

  it("given an override, when its cost changes, then only the supplied rates merge", () => {
    given(STORED)
      .whenModel(override({ values: { cost: { output: 8 } } }))
      .thenReplaces('"cost": { "input": 1 }', '"cost": { "input": 1, "output": 8 }');
  });

  it("given a model the catalog lacks, when an override is created, then it is 404", () => {
    given(STORED)
      .whenModel(override({ modelId: "gpt-9", create: true, values: { name: "x" } }))
      .thenFails("settings_not_found", 'Model "gpt-9" is not in the catalog of provider "openai".');
  });

  it("given an existing override, when it is created again, then it is 409; a missing one cannot be edited (404)", () => {
    given(STORED)
      .whenModel(override({ create: true, values: { name: "x" } }))
      .thenFails("conflict", 'Model "gpt-5" already has an override on provider "openai".');
    given(STORED)
      .whenModel(override({ modelId: "gpt-5-mini", values: { name: "x" } }))
      .thenFails("settings_not_found", 'Model "gpt-5-mini" has no override on provider "openai".');
  });

  it("given a custom definition, when an override is created or edited, then it is 409", () => {
    given(STORED)
      .whenModel(override({ providerId: "ollama", modelId: "llama3", create: true, values: { name: "x" } }))
      .thenFails("conflict", 'Model "llama3" has a custom definition on provider "ollama"; edit the definition instead of an override.');
  });

  it("given only resets, when an override is created, then it is 400", () => {
    given(STORED)
      .whenModel(
        override({
          modelId: "gpt-5-mini",
          create: true,
          values: { thinkingLevelMap: {}, compat: { supportsDeveloperRole: null }, cost: {} },
        }),
      )
      .thenFails("invalid_request", "A new override needs at least one change beyond resetting values.");
  });

  it("given an override emptied by resets, then the override, modelOverrides and an otherwise empty entry are removed", () => {
    const text = given(STORED)
      .whenModel(override({ providerId: "anthropic", modelId: "claude-sonnet-5", values: { thinkingLevelMap: {} } }))
      .thenText();
    expect(Object.keys(providersOf(text))).toEqual(["ollama", "openai"]);
    expect(text).toBe(
      STORED.replace('    "anthropic": { "modelOverrides": { "claude-sonnet-5": { "thinkingLevelMap": { "max": null } } } },\n', ""),
    );
  });
});

describe("DELETE models", () => {
  it("given a custom model, then its definition goes and the rest keeps its bytes", () => {
    given(STORED)
      .whenDeleteModel({ providerId: "ollama", modelId: "qwen2.5-coder:7b", kind: "custom" })
      .thenReplaces('        { "id": "qwen2.5-coder:7b", "samplingParams": { "temperature": 0.7 } },\n', "");
  });

  it("given an override, then the whole override goes, and modelOverrides with it when emptied", () => {
    const entry = given(STORED).whenDeleteModel({ providerId: "openai", modelId: "gpt-5", kind: "override" }).thenProvider("openai");
    expect(entry).toEqual({ baseUrl: "https://proxy.example.com/v1" });
  });

  it("given the last configuration of an entry, then the otherwise empty entry goes", () => {
    const text = given(STORED).whenDeleteModel({ providerId: "anthropic", modelId: "claude-sonnet-5", kind: "override" }).thenText();
    expect(Object.keys(providersOf(text))).toEqual(["ollama", "openai"]);
    const onlyModels = '{\n  "providers": {\n    "openai": {\n      "models": [{ "id": "x" }]\n    }\n  }\n}\n';
    expect(given(onlyModels).whenDeleteModel({ providerId: "openai", modelId: "x", kind: "custom" }).thenText()).toBe(
      '{\n  "providers": {}\n}\n',
    );
  });

  it("given nothing of that kind, then it is 404", () => {
    given(STORED)
      .whenDeleteModel({ providerId: "ollama", modelId: "llama3", kind: "override" })
      .thenFails("settings_not_found", 'Model "llama3" has no override on provider "ollama".');
    given(STORED)
      .whenDeleteModel({ providerId: "openai", modelId: "gpt-5", kind: "custom" })
      .thenFails("settings_not_found", 'Model "gpt-5" has no custom definition on provider "openai".');
    given(STORED)
      .whenDeleteModel({ providerId: "radius", modelId: "radius-large", kind: "override" })
      .thenFails("settings_not_found", 'Provider "radius" has no configuration in models.json.');
    given(STORED)
      .whenDeleteModel({ providerId: "ollama", modelId: "m", kind: "other" as never })
      .thenFails("invalid_request", 'kind must be "custom" or "override".');
  });
});

describe("preservation", () => {
  it("given CRLF, comments, trailing commas, odd indentation and unknown fields, when edits run, then bytes outside each edit stay", () => {
    const crlf = STORED.replaceAll("\n", "\r\n");
    given(crlf)
      .whenModel({ modelId: "new", create: true, values: { reasoning: true } })
      .thenReplaces(
        "        },\r\n      ],",
        '        },\r\n        {\r\n          "id": "new",\r\n          "reasoning": true\r\n        },\r\n      ],',
      );
    given(crlf)
      .whenProvider({ id: "vllm", create: true, values: { baseUrl: "http://gpu:8000/v1", api: "openai-completions" } })
      .thenReplaces(
        "} } } },\r\n  },",
        '} } } },\r\n    "vllm": {\r\n      "baseUrl": "http://gpu:8000/v1",\r\n      "api": "openai-completions",\r\n      "models": []\r\n    },\r\n  },',
      );
    const overridden = given(crlf).whenModel({
      providerId: "openai",
      modelId: "gpt-5-mini",
      kind: "override",
      create: true,
      values: { maxTokens: 4096 },
    });
    overridden.thenReplaces(
      '"cost": { "input": 1 } }\r\n',
      '"cost": { "input": 1 } },\r\n          "gpt-5-mini": {\r\n            "maxTokens": 4096\r\n          }\r\n',
    );
    expect(overridden.thenText()).not.toMatch(/[^\r]\n/);
    given(crlf)
      .whenDeleteModel({ providerId: "ollama", modelId: "llama3", kind: "custom" })
      .thenReplaces(crlf.slice(crlf.indexOf('        {\r\n          "id": "llama3"'), crlf.indexOf("      ],\r\n")), "");
  });
});
