import type { AgentSessionEvent } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import type { ActiveRuntimeInput, RuntimeSessionEvent } from "../domain/runtime/runtime-inputs.ts";
import type { ExtensionConfirmation, Model, PromptQueue } from "../domain/runtime/runtime-types.ts";
import { fold, rebuild } from "./projection.ts";
import {
  NOTIFICATION_LIMIT,
  activeRuntimeProjection,
  selectActive,
  selectCompactActive,
  type ActiveRuntimeState,
} from "./active-runtime.projection.ts";

const MODEL: Model = {
  id: "faux-1",
  name: "Faux",
  provider: "faux",
  supportsImages: false,
  supportsUltrafast: false,
  availableThinkingLevels: ["off", "low"],
};
const CONFIRM: ExtensionConfirmation = { id: "c1", title: "Run?", message: "rm -rf build", createdAt: 1_000, expiresAt: 61_000 };
const QUEUE: PromptQueue = {
  revision: 4,
  held: true,
  error: "boom",
  items: [{ id: "t1", text: "secret task", imageCount: 1, status: "pending" }],
};

const ev = (event: RuntimeSessionEvent): ActiveRuntimeInput => ({ type: "sessionEvent", event });
const run = (...inputs: ActiveRuntimeInput[]): ActiveRuntimeState => rebuild(activeRuntimeProjection, inputs);

describe("active runtime projection", () => {
  it("starts at revision 0 with the spec's empty state", () => {
    const active = selectActive(activeRuntimeProjection.initial());
    expect(active).toEqual({
      id: "",
      snapshotRevision: 0,
      path: "",
      cwd: "",
      diagnostics: [],
      state: {
        availableModels: [],
        thinkingLevel: "off",
        availableThinkingLevels: [],
        isStreaming: false,
        isCompacting: false,
        pendingToolCalls: [],
        pendingConfirmationCount: 0,
        steeringMode: "one-at-a-time",
        followUpMode: "one-at-a-time",
        activeToolCount: 0,
        activeToolNames: [],
        slashCommands: [],
        queuedMessages: { steering: [], followUp: [] },
        extensionUi: { statuses: {}, widgets: {}, notifications: [], confirmations: [] },
        research: null,
      },
    });
  });

  it("runtimeAttached sets the identity", () => {
    const active = selectActive(run({ type: "runtimeAttached", id: "s1", path: "/p/s1.jsonl", cwd: "/p" }));
    expect([active.id, active.path, active.cwd, active.snapshotRevision]).toEqual(["s1", "/p/s1.jsonl", "/p", 1]);
  });

  it("agent_start and agent_end drive isStreaming; a repeated value does not raise the revision", () => {
    const streaming = run(ev({ type: "agent_start" }), ev({ type: "agent_start" }));
    expect([streaming.isStreaming, streaming.snapshotRevision]).toEqual([true, 1]);
    const done = fold(activeRuntimeProjection, streaming, [ev({ type: "agent_end", messages: [] })]);
    expect([done.isStreaming, done.snapshotRevision]).toEqual([false, 2]);
  });

  it("an agent_end that pi 1.x follows with a retry (willRetry) keeps the runtime streaming until the last one", () => {
    const streaming = run(ev({ type: "agent_start" }));
    const retrying = fold(activeRuntimeProjection, streaming, [ev({ type: "agent_end", messages: [], willRetry: true })]);
    expect(retrying.isStreaming).toBe(true);
    const again = fold(activeRuntimeProjection, retrying, [
      ev({ type: "agent_start" }),
      ev({ type: "agent_end", messages: [], willRetry: false }),
    ]);
    expect(again.isStreaming).toBe(false);
  });

  it("compaction_start and compaction_end drive isCompacting", () => {
    expect(run(ev({ type: "compaction_start", reason: "manual" })).isCompacting).toBe(true);
    expect(run(ev({ type: "compaction_start", reason: "manual" }), ev({ type: "compaction_end", reason: "manual" })).isCompacting).toBe(
      false,
    );
  });

  it("tool executions are pending between start and end; agent_end clears leftovers", () => {
    const s = run(
      ev({ type: "tool_execution_start", toolCallId: "a", toolName: "bash", args: {} }),
      ev({ type: "tool_execution_start", toolCallId: "b", toolName: "read", args: {} }),
      ev({ type: "tool_execution_end", toolCallId: "a", toolName: "bash", result: {}, isError: false }),
    );
    expect(selectActive(s).state.pendingToolCalls).toEqual(["b"]);
    expect(fold(activeRuntimeProjection, s, [ev({ type: "agent_end", messages: [] })]).pendingToolCalls).toEqual([]);
  });

  it("queue_update and thinking_level_changed update their fields", () => {
    const s = run(
      ev({ type: "queue_update", steering: ["now"], followUp: ["later"] }),
      ev({ type: "thinking_level_changed", level: "high" }),
    );
    expect(selectActive(s).state.queuedMessages).toEqual({ steering: ["now"], followUp: ["later"] });
    expect(s.thinkingLevel).toBe("high");
  });

  it("session_info_changed keeps the name without changing the snapshot", () => {
    const s = run(ev({ type: "session_info_changed", name: "Refactor" }));
    expect([s.sessionName, s.snapshotRevision]).toEqual(["Refactor", 0]);
  });

  it("a malformed known event is a counted anomaly, not a change", () => {
    const s = run(ev({ type: "tool_execution_start" }), ev({ type: "queue_update", steering: "x" }));
    expect([s.anomalies, s.snapshotRevision]).toEqual([2, 0]);
  });

  it("a worker snapshot applies its present fields; null clears the optional ones", () => {
    const s = run({
      type: "workerSnapshot",
      snapshot: {
        model: MODEL,
        availableModels: [MODEL],
        activeToolNames: ["read", "bash"],
        contextUsage: { tokens: 10, contextWindow: 100, percent: 10 },
      },
    });
    const active = selectActive(s);
    expect(active.state.model).toEqual(MODEL);
    expect(active.state.activeToolCount).toBe(2);
    expect(active.state.contextUsage).toEqual({ tokens: 10, contextWindow: 100, percent: 10 });
    expect(s.snapshotRevision).toBe(1);
    const cleared = fold(activeRuntimeProjection, s, [{ type: "workerSnapshot", snapshot: { model: null, contextUsage: null } }]);
    expect("model" in selectActive(cleared).state).toBe(false);
    expect("contextUsage" in selectActive(cleared).state).toBe(false);
    expect(cleared.activeToolNames).toEqual(["read", "bash"]);
  });

  it("a worker snapshot equal to the current state changes nothing", () => {
    const s = run({ type: "workerSnapshot", snapshot: { isStreaming: true, slashCommands: [{ name: "plan", source: "extension" }] } });
    const again = fold(activeRuntimeProjection, s, [
      { type: "workerSnapshot", snapshot: { isStreaming: true, slashCommands: [{ name: "plan", source: "extension" }] } },
    ]);
    expect(again.snapshotRevision).toBe(s.snapshotRevision);
  });

  it("statuses and widgets are set and cleared by key", () => {
    const s = run(
      { type: "extensionStatus", key: "leyline-ultrafast", text: "off" },
      { type: "extensionStatus", key: "other", text: "x" },
      { type: "extensionStatus", key: "other", text: null },
      { type: "extensionWidget", key: "todo", lines: ["- a", "- b"] },
      { type: "extensionWidget", key: "gone", lines: ["x"], placement: "belowEditor" },
      { type: "extensionWidget", key: "gone", lines: null },
    );
    expect(s.extensionUi.statuses).toEqual({ "leyline-ultrafast": "off" });
    expect(s.extensionUi.widgets).toEqual({ todo: { lines: ["- a", "- b"], placement: "aboveEditor" } });
    expect(s.snapshotRevision).toBe(6);
  });

  it("keeps the last NOTIFICATION_LIMIT notifications", () => {
    const inputs: ActiveRuntimeInput[] = Array.from({ length: NOTIFICATION_LIMIT + 5 }, (_, i) => ({
      type: "extensionNotification",
      notification: { id: `n${i}`, message: `m${i}`, level: "info", createdAt: i },
    }));
    const notes = run(...inputs).extensionUi.notifications;
    expect(notes).toHaveLength(NOTIFICATION_LIMIT);
    expect(notes[0]?.id).toBe("n5");
    expect(notes.at(-1)?.id).toBe(`n${NOTIFICATION_LIMIT + 4}`);
  });

  it("confirmations: requested adds, resolved and expired remove; the count follows", () => {
    const s = run(
      { type: "confirmationRequested", confirmation: CONFIRM },
      { type: "confirmationRequested", confirmation: { ...CONFIRM, id: "c2", expiresAt: null } },
      { type: "confirmationRequested", confirmation: CONFIRM },
    );
    expect(selectActive(s).state.pendingConfirmationCount).toBe(2);
    expect(s.snapshotRevision).toBe(2);
    const resolved = fold(activeRuntimeProjection, s, [
      { type: "confirmationResolved", id: "c1" },
      { type: "confirmationExpired", id: "c2" },
      { type: "confirmationExpired", id: "c2" },
    ]);
    expect(selectActive(resolved).state.pendingConfirmationCount).toBe(0);
    expect(resolved.snapshotRevision).toBe(4);
  });

  it("extensionUiReset clears statuses, widgets and confirmations and keeps notifications", () => {
    const s = run(
      { type: "extensionStatus", key: "k", text: "v" },
      { type: "extensionNotification", notification: { id: "n", message: "hi", level: "warning", createdAt: 1 } },
      { type: "confirmationRequested", confirmation: CONFIRM },
      { type: "extensionUiReset" },
    );
    expect(s.extensionUi).toEqual({
      statuses: {},
      widgets: {},
      notifications: [{ id: "n", message: "hi", level: "warning", createdAt: 1 }],
      confirmations: [],
    });
    expect(fold(activeRuntimeProjection, s, [{ type: "extensionUiReset" }])).toBe(s);
  });

  it("prompt queue, research and diagnostics are published as given", () => {
    const s = run({ type: "promptQueue", promptQueue: QUEUE }, { type: "diagnostics", diagnostics: [{ type: "warning", message: "x" }] });
    expect(selectActive(s).state.promptQueue).toEqual(QUEUE);
    expect(selectActive(s).diagnostics).toEqual([{ type: "warning", message: "x" }]);
    const none = fold(activeRuntimeProjection, s, [{ type: "promptQueue", promptQueue: null }]);
    expect("promptQueue" in selectActive(none).state).toBe(false);
  });

  it("inputs are copied: a host mutating its object later changes nothing", () => {
    const queue = structuredClone(QUEUE);
    const s = run({ type: "promptQueue", promptQueue: queue });
    queue.items.push({ id: "t2", text: "late", imageCount: 0, status: "pending" });
    expect(s.promptQueue?.items).toHaveLength(1);
    expect(Object.isFrozen(queue)).toBe(false);
  });

  it("the compact snapshot has the compact queue and no confirmation records", () => {
    const s = run({ type: "promptQueue", promptQueue: QUEUE }, { type: "confirmationRequested", confirmation: CONFIRM });
    const compact = selectCompactActive(s);
    expect(compact.state.promptQueue).toEqual({ count: 1, held: true, error: "boom" });
    expect(compact.state.pendingConfirmationCount).toBe(1);
    expect("confirmations" in compact.state.extensionUi).toBe(false);
    expect(JSON.stringify(compact)).not.toContain("secret task");
    expect(JSON.stringify(compact)).not.toContain(CONFIRM.message);
    expect(compact.snapshotRevision).toBe(s.snapshotRevision);
  });

  it("unknown inputs and unknown pi events leave the state untouched", () => {
    const s = run({ type: "extensionStatus", key: "k", text: "v" });
    const unknown = [
      { type: "somethingNew" },
      ev({ type: "auto_retry_start", attempt: 1 }),
      ev({ type: "message_update" }),
    ] as unknown as ActiveRuntimeInput[];
    expect(fold(activeRuntimeProjection, s, unknown)).toBe(s);
  });

  it("pi's AgentSessionEvent is accepted as a session event", () => {
    const piEvent: AgentSessionEvent = { type: "queue_update", steering: ["a"], followUp: [] };
    const input: ActiveRuntimeInput = { type: "sessionEvent", event: piEvent };
    expect(run(input).queuedMessages.steering).toEqual(["a"]);
  });
});
