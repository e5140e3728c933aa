import { describe, expect, it } from "vitest";
import type { ModelAuthKind, RuntimeModelInfo, RuntimeSnapshot } from "../runtime-protocol/runtime-protocol.ts";
import { idleRuntimeSnapshot } from "../runtime-protocol/runtime-snapshot.fixture.ts";
import { initialResearchState } from "../../domain/research/research.fold.ts";
import { modelDto, snapshotResearch, workerResearchInputs, workerSnapshotInput } from "./worker-snapshot-input.ts";

function modelInfo(overrides: Partial<RuntimeModelInfo> = {}): RuntimeModelInfo {
  return {
    provider: "openai",
    id: "gpt-6-astra",
    name: "GPT-6 Astra",
    api: "openai-responses",
    reasoning: true,
    input: ["text", "image"],
    contextWindow: 400000,
    maxTokens: 128000,
    availableThinkingLevels: ["off", "low", "high"],
    ...overrides,
  };
}

function snapshot(model: RuntimeModelInfo, availableModels: RuntimeModelInfo[]): RuntimeSnapshot {
  return idleRuntimeSnapshot({ model, availableModels });
}

describe("modelDto", () => {
  it.each<[ModelAuthKind | undefined, boolean]>([
    ["apiKey", true],
    ["oauth", false],
    ["unknown", false],
    [undefined, false],
  ])("an openai / openai-responses / gpt-6-astra model with authKind %s has supportsUltrafast %s", (authKind, expected) => {
    const info = modelInfo(authKind === undefined ? {} : { authKind });
    expect(modelDto(info)).toEqual({
      id: "gpt-6-astra",
      name: "GPT-6 Astra",
      provider: "openai",
      supportsImages: true,
      supportsUltrafast: expected,
      availableThinkingLevels: ["off", "low", "high"],
    });
  });

  it("offers Ultrafast on the subscription backend whatever the credential kind", () => {
    const codex = { provider: "openai-codex", api: "openai-codex-responses", id: "gpt-6.1-sol" };
    expect(modelDto(modelInfo({ ...codex, authKind: "oauth" })).supportsUltrafast).toBe(true);
    expect(modelDto(modelInfo({ ...codex, authKind: "unknown" })).supportsUltrafast).toBe(true);
  });

  it("keeps an API-key openai model ineligible off the Responses API or the GPT-6 ids", () => {
    expect(modelDto(modelInfo({ api: "openai-completions", authKind: "apiKey" })).supportsUltrafast).toBe(false);
    expect(modelDto(modelInfo({ id: "gpt-5", authKind: "apiKey" })).supportsUltrafast).toBe(false);
  });
});

describe("workerSnapshotInput", () => {
  it("maps the current and the available models with their own credential kinds", () => {
    const apiKey = modelInfo({ authKind: "apiKey" });
    const oauth = modelInfo({ id: "gpt-6.1-sol", name: "GPT-6.1 Sol", authKind: "oauth" });
    const input = workerSnapshotInput(snapshot(oauth, [apiKey, oauth]));
    expect(input.model?.supportsUltrafast).toBe(false);
    expect((input.availableModels ?? []).map((model) => [model.id, model.supportsUltrafast])).toEqual([
      ["gpt-6-astra", true],
      ["gpt-6.1-sol", false],
    ]);
  });
});

describe("snapshotResearch", () => {
  const base = (): RuntimeSnapshot => snapshot(modelInfo(), []);
  const state = initialResearchState("s1", { entryId: "e1", timestampMs: 1000 });

  it("reads the research state a worker snapshot carries, null included", () => {
    expect(snapshotResearch({ ...base(), research: state } as RuntimeSnapshot)).toEqual(state);
    expect(workerResearchInputs({ ...base(), research: state } as RuntimeSnapshot)).toEqual([{ type: "research", research: state }]);
    expect(workerResearchInputs({ ...base(), research: null } as RuntimeSnapshot)).toEqual([{ type: "research", research: null }]);
  });

  it("changes nothing for a snapshot without a well-formed research field", () => {
    expect(snapshotResearch(base())).toBeUndefined();
    expect(workerResearchInputs(base())).toEqual([]);
    expect(workerResearchInputs({ ...base(), research: { sessionId: "s1" } } as RuntimeSnapshot)).toEqual([]);
    expect(workerResearchInputs({ ...base(), research: "x" } as unknown as RuntimeSnapshot)).toEqual([]);
  });
});
