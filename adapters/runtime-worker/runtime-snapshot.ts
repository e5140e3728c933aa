/**
 * Builds the serialisable `RuntimeSnapshot` of a live pi `AgentSessionRuntime` (worker side).
 */
import type { Api, Model } from "@earendil-works/pi-ai";
import type { AgentSessionRuntime, ModelRegistry, SessionManager } from "@earendil-works/pi-coding-agent";
import type { RuntimeModelInfo, RuntimeSlashCommand, RuntimeSnapshot, SessionKind } from "../runtime-protocol/runtime-protocol.ts";
import type { ResearchState } from "../../domain/research/research-types.ts";
import { modelAuthKind } from "../../domain/runtime/ultrafast.ts";
import { branchResearchState } from "./branch-research.ts";
import { sessionNotices } from "./runtime-notices.ts";

type PiAi = typeof import("@earendil-works/pi-ai");

/**
 * The model's credential kind as pi's registry sees it (the same check as the bundled Ultrafast extension):
 * stored OAuth credentials → "oauth"; otherwise any configured key (auth.json, environment, runtime key,
 * models.json / registered provider key) → "apiKey"; nothing configured → "unknown".
 */
export function modelInfo(ai: PiAi, model: Model<Api>, registry?: ModelRegistry): RuntimeModelInfo {
  return {
    provider: model.provider,
    id: model.id,
    name: model.name,
    api: model.api,
    reasoning: model.reasoning,
    input: [...model.input],
    contextWindow: model.contextWindow,
    maxTokens: model.maxTokens,
    availableThinkingLevels: model.reasoning
      ? ["off", ...ai.getSupportedThinkingLevels(model).filter((level) => level !== "off")]
      : ["off"],
    ...(registry ? { authKind: modelAuthKind(registry, model) } : {}),
  };
}

export function slashCommands(runtime: AgentSessionRuntime): RuntimeSlashCommand[] {
  const session = runtime.session;
  const commands: RuntimeSlashCommand[] = [];
  for (const command of session.extensionRunner.getRegisteredCommands()) {
    commands.push({
      name: command.invocationName,
      ...(command.description ? { description: command.description } : {}),
      source: "extension",
    });
  }
  for (const template of session.promptTemplates) {
    commands.push({ name: template.name, ...(template.description ? { description: template.description } : {}), source: "prompt" });
  }
  for (const skill of session.resourceLoader.getSkills().skills) {
    commands.push({ name: `skill:${skill.name}`, ...(skill.description ? { description: skill.description } : {}), source: "skill" });
  }
  return commands;
}

/**
 * A snapshot with the research state of the current branch (null for a session without research entries).
 * `research` travels as an extra snapshot field: the IPC validator accepts extra fields, and the control
 * plane reads it with `snapshotResearch` (adapters/runtime-host/worker-snapshot-input.ts).
 */
export type RuntimeSnapshotWithResearch = RuntimeSnapshot & { research: ResearchState | null };

export function buildRuntimeSnapshot(
  ai: PiAi,
  runtime: AgentSessionRuntime,
  extra: { revision: number; kind: SessionKind | null; pendingToolCalls: readonly string[] },
): RuntimeSnapshotWithResearch {
  const session = runtime.session;
  const usage = session.getContextUsage();
  // pi's synchronous facade over the session's ModelRuntime (what extensions see as ctx.modelRegistry).
  const registry = session.extensionRunner.getModelRegistry();
  return {
    revision: extra.revision,
    sessionId: session.sessionId,
    sessionFile: session.sessionFile ?? null,
    cwd: runtime.cwd,
    sessionName: session.sessionName ?? null,
    kind: extra.kind,
    model: session.model ? modelInfo(ai, session.model, registry) : null,
    availableModels: registry.getAvailable().map((model) => modelInfo(ai, model, registry)),
    thinkingLevel: session.thinkingLevel,
    availableThinkingLevels: [...session.getAvailableThinkingLevels()],
    isStreaming: session.isStreaming,
    isCompacting: session.isCompacting,
    isBashRunning: session.isBashRunning,
    pendingToolCalls: [...extra.pendingToolCalls],
    queuedMessages: { steering: [...session.getSteeringMessages()], followUp: [...session.getFollowUpMessages()] },
    steeringMode: session.steeringMode,
    followUpMode: session.followUpMode,
    activeToolNames: session.getActiveToolNames(),
    contextUsage: usage ? { tokens: usage.tokens, contextWindow: usage.contextWindow, percent: usage.percent } : null,
    slashCommands: slashCommands(runtime),
    diagnostics: runtime.diagnostics.map((diagnostic) => ({ type: diagnostic.type, message: diagnostic.message })),
    modelFallbackMessage: runtime.modelFallbackMessage ?? null,
    notices: sessionNotices(session),
    ...movedLeaf(session.sessionManager),
    research: branchResearchState(session.sessionManager),
  };
}

/**
 * `leaf` of a snapshot: pi's leaf when it is not the file's last entry (navigated without writing), else nothing.
 * getEntries copies the entry list (O(entries) pointers; a snapshot is built at most every few tens of ms).
 */
export function movedLeaf(manager: Pick<SessionManager, "getLeafId" | "getEntries">): Pick<RuntimeSnapshot, "leaf"> {
  const leafId = manager.getLeafId();
  const lastEntryId = manager.getEntries().at(-1)?.id ?? null;
  return leafId === lastEntryId ? {} : { leaf: { leafId, lastEntryId } };
}
