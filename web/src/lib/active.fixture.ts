/** Test helpers: full and compact `Active` snapshots with defaults. */
import type { Active, CompactActive } from "../../../domain/runtime/runtime-types.ts";

export function activeSnapshot(id: string, revision: number | undefined, state: Partial<Active["state"]> = {}): Active {
  return {
    id,
    ...(revision !== undefined ? { snapshotRevision: revision } : {}),
    path: `/agent/sessions/--w--/${id}.jsonl`,
    cwd: "/w/project",
    diagnostics: [],
    state: {
      availableModels: [],
      thinkingLevel: "medium",
      availableThinkingLevels: ["off", "low", "medium", "high"],
      isStreaming: false,
      isCompacting: false,
      pendingToolCalls: [],
      pendingConfirmationCount: 0,
      steeringMode: "one-at-a-time",
      followUpMode: "one-at-a-time",
      activeToolCount: 0,
      activeToolNames: [],
      slashCommands: [],
      promptQueue: { revision: 0, held: false, error: "", items: [] },
      queuedMessages: { steering: [], followUp: [] },
      extensionUi: { statuses: {}, widgets: {}, notifications: [], confirmations: [] },
      research: null,
      ...state,
    },
  };
}

export function compactSnapshot(id: string, revision: number, state: Partial<CompactActive["state"]> = {}): CompactActive {
  const full = activeSnapshot(id, revision);
  const { confirmations: _c, ...ui } = full.state.extensionUi;
  return {
    ...full,
    state: { ...full.state, promptQueue: { count: 0, held: false, error: "" }, extensionUi: ui, ...state },
  };
}
