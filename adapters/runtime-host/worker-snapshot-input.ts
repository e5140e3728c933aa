/**
 * Maps the worker's `RuntimeSnapshot` (IPC shape) to the projection's `RuntimeWorkerSnapshot` (spec DTO
 * shapes: `Model` with supportsImages / supportsUltrafast).
 */
import type { ResearchState } from "../../domain/research/research-types.ts";
import type { ActiveRuntimeInput, RuntimeWorkerSnapshot } from "../../domain/runtime/runtime-inputs.ts";
import type { Model, RuntimeDiagnostic, SlashCommand } from "../../domain/runtime/runtime-types.ts";
import { supportsUltrafast } from "../../domain/runtime/ultrafast.ts";
import type { RuntimeModelInfo, RuntimeSnapshot } from "../runtime-protocol/runtime-protocol.ts";

/**
 * `supportsUltrafast` follows the bundled Ultrafast extension's eligibility (domain/runtime/ultrafast.ts), with
 * the credential kind the worker read from pi's model registry; a snapshot without it counts as "unknown"
 * (so an `openai` model is then not eligible).
 */
export function modelDto(model: RuntimeModelInfo): Model {
  return {
    id: model.id,
    name: model.name,
    provider: model.provider,
    supportsImages: model.input.includes("image"),
    supportsUltrafast: supportsUltrafast({
      provider: model.provider,
      api: model.api,
      modelId: model.id,
      authKind: model.authKind ?? "unknown",
    }),
    availableThinkingLevels: [...model.availableThinkingLevels],
  };
}

export function workerSnapshotInput(snapshot: RuntimeSnapshot): RuntimeWorkerSnapshot {
  const slashCommands: SlashCommand[] = snapshot.slashCommands.map((command) => ({
    name: command.name,
    ...(command.description !== undefined ? { description: command.description } : {}),
    source: command.source,
  }));
  return {
    model: snapshot.model ? modelDto(snapshot.model) : null,
    availableModels: snapshot.availableModels.map(modelDto),
    thinkingLevel: snapshot.thinkingLevel,
    availableThinkingLevels: [...snapshot.availableThinkingLevels],
    isStreaming: snapshot.isStreaming,
    isCompacting: snapshot.isCompacting,
    pendingToolCalls: [...snapshot.pendingToolCalls],
    steeringMode: snapshot.steeringMode,
    followUpMode: snapshot.followUpMode,
    activeToolNames: [...snapshot.activeToolNames],
    contextUsage: snapshot.contextUsage,
    slashCommands,
    queuedMessages: { steering: [...snapshot.queuedMessages.steering], followUp: [...snapshot.queuedMessages.followUp] },
    ...(snapshot.notices !== undefined ? { notices: structuredClone(snapshot.notices) } : {}),
  };
}

export function workerDiagnostics(snapshot: RuntimeSnapshot): RuntimeDiagnostic[] {
  return snapshot.diagnostics.map((diagnostic) => ({ type: diagnostic.type, message: diagnostic.message }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The shape checks a research state from a worker must pass (the worker folded it with the domain fold). */
function isResearchState(value: unknown): value is ResearchState {
  return (
    isRecord(value) &&
    typeof value["sessionId"] === "string" &&
    typeof value["status"] === "string" &&
    typeof value["phase"] === "string" &&
    Array.isArray(value["threads"]) &&
    Array.isArray(value["sources"]) &&
    Array.isArray(value["citedSourceIds"])
  );
}

/**
 * The research state a snapshot carries (runtime-snapshot.ts adds it as an extra field): the state, null
 * (no research on the branch), or undefined when the snapshot has no well-formed `research` field (an older
 * worker; nothing is changed then).
 */
export function snapshotResearch(snapshot: RuntimeSnapshot): ResearchState | null | undefined {
  const research: unknown = (snapshot as RuntimeSnapshot & { research?: unknown }).research;
  if (research === null) return null;
  return isResearchState(research) ? research : undefined;
}

/** The `research` projection input of a snapshot ([] when the snapshot carries none). */
export function workerResearchInputs(snapshot: RuntimeSnapshot): ActiveRuntimeInput[] {
  const research = snapshotResearch(snapshot);
  return research === undefined ? [] : [{ type: "research", research }];
}
