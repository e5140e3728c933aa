/** Test-only: a worker snapshot of an idle runtime with nothing loaded, for tests to override field by field. */
import type { RuntimeSnapshot } from "./runtime-protocol.ts";

export function idleRuntimeSnapshot(overrides: Partial<RuntimeSnapshot> = {}): RuntimeSnapshot {
  return {
    revision: 1,
    sessionId: "s1",
    sessionFile: null,
    cwd: "/tmp/project",
    sessionName: null,
    kind: "session",
    model: null,
    availableModels: [],
    thinkingLevel: "off",
    availableThinkingLevels: ["off"],
    isStreaming: false,
    isCompacting: false,
    isBashRunning: false,
    pendingToolCalls: [],
    queuedMessages: { steering: [], followUp: [] },
    steeringMode: "one-at-a-time",
    followUpMode: "one-at-a-time",
    activeToolNames: [],
    contextUsage: null,
    slashCommands: [],
    diagnostics: [],
    modelFallbackMessage: null,
    ...overrides,
  };
}
