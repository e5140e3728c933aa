/**
 * Open-runtime snapshot projection: the `Active` snapshot of one open runtime (spec/api-reference.md,
 * "Active runtime"), folded from the host's runtime inputs (`domain/runtime/runtime-inputs.ts`): worker
 * snapshots, pi session events, the extension UI bridge, the prompt queue DTO, research state, diagnostics.
 *
 * `snapshotRevision` rises by exactly one for every input that changes the published snapshot (what
 * `selectActive` returns); an input that changes nothing visible (a repeated value, an unknown input, the
 * session name, a malformed event) leaves it alone. The host broadcasts when it rises.
 *
 * Inputs are copied into the state (`structuredClone`), so a host may reuse its objects. The state and the
 * selected snapshots are frozen by Immer: treat them as read-only.
 */
import type { Draft } from "immer";
import type { ResearchState } from "../domain/research/research-types.ts";
import { compactPromptQueue } from "../domain/prompt-queue/prompt-queue.selectors.ts";
import { jsonEqual } from "../domain/runtime/json-value.ts";
import type { ActiveRuntimeInput, RuntimeSessionEvent, RuntimeWorkerSnapshot } from "../domain/runtime/runtime-inputs.ts";
import type {
  Active,
  CompactActive,
  ContextUsage,
  ExtensionUiState,
  ExtensionWidget,
  Model,
  PromptQueue,
  QueuedMessages,
  RuntimeDiagnostic,
  RuntimeNotice,
  SlashCommand,
} from "../domain/runtime/runtime-types.ts";
import type { Projection } from "./projection.ts";

/** How many extension notifications a snapshot keeps (the most recent ones). */
export const NOTIFICATION_LIMIT = 20;

export interface ActiveRuntimeState {
  snapshotRevision: number;
  id: string;
  path: string;
  cwd: string;
  diagnostics: RuntimeDiagnostic[];
  model: Model | null;
  availableModels: Model[];
  thinkingLevel: string;
  availableThinkingLevels: string[];
  isStreaming: boolean;
  isCompacting: boolean;
  pendingToolCalls: string[];
  steeringMode: string;
  followUpMode: string;
  activeToolNames: string[];
  contextUsage: ContextUsage | null;
  slashCommands: SlashCommand[];
  queuedMessages: QueuedMessages;
  extensionUi: ExtensionUiState;
  promptQueue: PromptQueue | null;
  research: ResearchState | null;
  /** The worker's notices (model fallback, file upgrade); published as `state.notices` when not empty. */
  notices: RuntimeNotice[];
  /** From `session_info_changed`; not part of `Active` (so it does not raise the revision). */
  sessionName: string | null;
  /** Malformed inputs ignored (not part of `Active`). */
  anomalies: number;
}

function initial(): ActiveRuntimeState {
  return {
    snapshotRevision: 0,
    id: "",
    path: "",
    cwd: "",
    diagnostics: [],
    model: null,
    availableModels: [],
    thinkingLevel: "off",
    availableThinkingLevels: [],
    isStreaming: false,
    isCompacting: false,
    pendingToolCalls: [],
    steeringMode: "one-at-a-time",
    followUpMode: "one-at-a-time",
    activeToolNames: [],
    contextUsage: null,
    slashCommands: [],
    queuedMessages: { steering: [], followUp: [] },
    extensionUi: { statuses: {}, widgets: {}, notifications: [], confirmations: [] },
    promptQueue: null,
    research: null,
    notices: [],
    sessionName: null,
    anomalies: 0,
  };
}

type State = ActiveRuntimeState;
type D = Draft<State>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function isNotice(value: unknown): value is RuntimeNotice {
  return (
    isRecord(value) && (value["kind"] === "model-fallback" || value["kind"] === "file-upgraded") && typeof value["message"] === "string"
  );
}

function isModel(value: unknown): value is Model {
  return isRecord(value) && typeof value["id"] === "string" && typeof value["provider"] === "string";
}

/** Sets a top-level field when the value differs structurally; returns whether it changed. */
function set<K extends keyof State>(draft: D, key: K, value: State[K]): boolean {
  if (jsonEqual(draft[key], value)) return false;
  (draft as State)[key] = structuredClone(value);
  return true;
}

function anomaly(draft: D): false {
  draft.anomalies += 1;
  return false;
}

/** Applies the present, well-formed fields of a worker snapshot; a malformed field counts one anomaly. */
function applyWorkerSnapshot(draft: D, snapshot: RuntimeWorkerSnapshot): boolean {
  if (!isRecord(snapshot)) return anomaly(draft);
  let changed = false;
  let bad = false;
  const field = <K extends keyof State>(key: K, value: unknown, valid: (v: unknown) => v is State[K]): void => {
    if (value === undefined) return;
    if (!valid(value)) {
      bad = true;
      return;
    }
    if (set(draft, key, value)) changed = true;
  };
  const isString = (v: unknown): v is string => typeof v === "string";
  const isBoolean = (v: unknown): v is boolean => typeof v === "boolean";
  field("model", snapshot.model, (v): v is Model | null => v === null || isModel(v));
  field("availableModels", snapshot.availableModels, (v): v is Model[] => Array.isArray(v) && v.every(isModel));
  field("thinkingLevel", snapshot.thinkingLevel, isString);
  field("availableThinkingLevels", snapshot.availableThinkingLevels, isStringArray);
  field("isStreaming", snapshot.isStreaming, isBoolean);
  field("isCompacting", snapshot.isCompacting, isBoolean);
  field("pendingToolCalls", snapshot.pendingToolCalls, isStringArray);
  field("steeringMode", snapshot.steeringMode, isString);
  field("followUpMode", snapshot.followUpMode, isString);
  field("activeToolNames", snapshot.activeToolNames, isStringArray);
  field(
    "contextUsage",
    snapshot.contextUsage,
    (v): v is ContextUsage | null => v === null || (isRecord(v) && typeof v["contextWindow"] === "number"),
  );
  field(
    "slashCommands",
    snapshot.slashCommands,
    (v): v is SlashCommand[] => Array.isArray(v) && v.every((c) => isRecord(c) && typeof c["name"] === "string"),
  );
  field(
    "queuedMessages",
    snapshot.queuedMessages,
    (v): v is QueuedMessages => isRecord(v) && isStringArray(v["steering"]) && isStringArray(v["followUp"]),
  );
  field("notices", snapshot.notices, (v): v is RuntimeNotice[] => Array.isArray(v) && v.every(isNotice));
  if (bad) draft.anomalies += 1;
  return changed;
}

function applySessionEvent(draft: D, event: RuntimeSessionEvent): boolean {
  if (!isRecord(event) || typeof event.type !== "string") return anomaly(draft);
  switch (event.type) {
    case "agent_start":
      return set(draft, "isStreaming", true);
    case "agent_end": {
      // pi 1.x: an agent_end that a retry follows (`willRetry`) does not end the work; the retry's agent_start
      // and its own agent_end come next.
      const stopped = event["willRetry"] === true ? false : set(draft, "isStreaming", false);
      return set(draft, "pendingToolCalls", []) || stopped;
    }
    case "compaction_start":
      return set(draft, "isCompacting", true);
    case "compaction_end":
      return set(draft, "isCompacting", false);
    case "tool_execution_start": {
      const id = event["toolCallId"];
      if (typeof id !== "string") return anomaly(draft);
      if (draft.pendingToolCalls.includes(id)) return false;
      draft.pendingToolCalls.push(id);
      return true;
    }
    case "tool_execution_end": {
      const id = event["toolCallId"];
      if (typeof id !== "string") return anomaly(draft);
      return set(
        draft,
        "pendingToolCalls",
        draft.pendingToolCalls.filter((callId) => callId !== id),
      );
    }
    case "queue_update": {
      const steering = event["steering"];
      const followUp = event["followUp"];
      if (!isStringArray(steering) || !isStringArray(followUp)) return anomaly(draft);
      return set(draft, "queuedMessages", { steering, followUp });
    }
    case "thinking_level_changed": {
      const level = event["level"];
      if (typeof level !== "string") return anomaly(draft);
      return set(draft, "thinkingLevel", level);
    }
    case "session_info_changed": {
      const name = event["name"];
      if (name !== undefined && typeof name !== "string") return anomaly(draft);
      draft.sessionName = name ?? null;
      return false;
    }
    default:
      return false;
  }
}

function removeConfirmation(draft: D, id: unknown): boolean {
  const confirmations = draft.extensionUi.confirmations;
  const index = confirmations.findIndex((c) => c.id === id);
  if (index < 0) return false;
  confirmations.splice(index, 1);
  return true;
}

/** Applies one input; returns whether the published snapshot changed. */
function applyInput(draft: D, input: ActiveRuntimeInput): boolean {
  if (!isRecord(input)) return false;
  const ui = draft.extensionUi;
  switch (input.type) {
    case "runtimeAttached": {
      if (typeof input.id !== "string" || typeof input.path !== "string" || typeof input.cwd !== "string") return anomaly(draft);
      const a = set(draft, "id", input.id);
      const b = set(draft, "path", input.path);
      const c = set(draft, "cwd", input.cwd);
      return a || b || c;
    }
    case "workerSnapshot":
      return applyWorkerSnapshot(draft, input.snapshot);
    case "sessionEvent":
      return applySessionEvent(draft, input.event);
    case "extensionStatus": {
      if (typeof input.key !== "string") return anomaly(draft);
      if (input.text === null || input.text === undefined) {
        if (!(input.key in ui.statuses)) return false;
        delete ui.statuses[input.key];
        return true;
      }
      if (typeof input.text !== "string") return anomaly(draft);
      if (ui.statuses[input.key] === input.text) return false;
      ui.statuses[input.key] = input.text;
      return true;
    }
    case "extensionWidget": {
      if (typeof input.key !== "string") return anomaly(draft);
      if (input.lines === null || input.lines === undefined) {
        if (!(input.key in ui.widgets)) return false;
        delete ui.widgets[input.key];
        return true;
      }
      if (!isStringArray(input.lines)) return anomaly(draft);
      const widget: ExtensionWidget = {
        lines: [...input.lines],
        placement: input.placement === "belowEditor" ? "belowEditor" : "aboveEditor",
      };
      if (jsonEqual(ui.widgets[input.key], widget)) return false;
      ui.widgets[input.key] = widget;
      return true;
    }
    case "extensionNotification": {
      const n = input.notification;
      if (!isRecord(n) || typeof n.id !== "string" || typeof n.message !== "string") return anomaly(draft);
      if (ui.notifications.some((existing) => existing.id === n.id)) return false;
      ui.notifications.push(structuredClone(n));
      if (ui.notifications.length > NOTIFICATION_LIMIT) ui.notifications.splice(0, ui.notifications.length - NOTIFICATION_LIMIT);
      return true;
    }
    case "confirmationRequested": {
      const c = input.confirmation;
      if (!isRecord(c) || typeof c.id !== "string" || typeof c.createdAt !== "number") return anomaly(draft);
      if (ui.confirmations.some((existing) => existing.id === c.id)) return false;
      ui.confirmations.push(structuredClone(c));
      return true;
    }
    case "confirmationResolved":
    case "confirmationExpired":
      return removeConfirmation(draft, input.id);
    case "extensionUiReset": {
      const changed = Object.keys(ui.statuses).length > 0 || Object.keys(ui.widgets).length > 0 || ui.confirmations.length > 0;
      if (!changed) return false;
      ui.statuses = {};
      ui.widgets = {};
      ui.confirmations = [];
      return true;
    }
    case "promptQueue":
      if (input.promptQueue !== null && !(isRecord(input.promptQueue) && Array.isArray(input.promptQueue.items))) return anomaly(draft);
      return set(draft, "promptQueue", input.promptQueue);
    case "research":
      if (input.research !== null && !isRecord(input.research)) return anomaly(draft);
      return set(draft, "research", input.research);
    case "diagnostics":
      if (!Array.isArray(input.diagnostics)) return anomaly(draft);
      return set(draft, "diagnostics", input.diagnostics);
    default:
      return false;
  }
}

export const activeRuntimeProjection: Projection<ActiveRuntimeState, ActiveRuntimeInput> = {
  name: "active-runtime",
  version: 1,
  initial,
  apply(draft, input) {
    if (applyInput(draft, input)) draft.snapshotRevision += 1;
  },
};

/** The full `Active` snapshot (for the selected session, HTTP responses, and ?sessionId-less streams). */
export function selectActive(state: ActiveRuntimeState): Active {
  const active: Active = {
    id: state.id,
    snapshotRevision: state.snapshotRevision,
    path: state.path,
    cwd: state.cwd,
    diagnostics: state.diagnostics,
    state: {
      availableModels: state.availableModels,
      thinkingLevel: state.thinkingLevel,
      availableThinkingLevels: state.availableThinkingLevels,
      isStreaming: state.isStreaming,
      isCompacting: state.isCompacting,
      pendingToolCalls: state.pendingToolCalls,
      pendingConfirmationCount: state.extensionUi.confirmations.length,
      steeringMode: state.steeringMode,
      followUpMode: state.followUpMode,
      activeToolCount: state.activeToolNames.length,
      activeToolNames: state.activeToolNames,
      slashCommands: state.slashCommands,
      queuedMessages: state.queuedMessages,
      extensionUi: state.extensionUi,
      research: state.research,
    },
  };
  if (state.model) active.state.model = state.model;
  if (state.contextUsage) active.state.contextUsage = state.contextUsage;
  if (state.promptQueue) active.state.promptQueue = state.promptQueue;
  if (state.notices.length > 0) active.state.notices = state.notices;
  return active;
}

/**
 * The compact snapshot for sessions other than the selected one: `promptQueue` as `{ count, held, error }`
 * and no confirmation records (`pendingConfirmationCount` still counts them). Everything else as `selectActive`.
 */
export function selectCompactActive(state: ActiveRuntimeState): CompactActive {
  const { promptQueue, extensionUi, ...rest } = selectActive(state).state;
  const { confirmations: _confirmations, ...compactUi } = extensionUi;
  const compact: CompactActive = {
    id: state.id,
    snapshotRevision: state.snapshotRevision,
    path: state.path,
    cwd: state.cwd,
    diagnostics: state.diagnostics,
    state: { ...rest, extensionUi: compactUi },
  };
  if (promptQueue) compact.state.promptQueue = compactPromptQueue(promptQueue);
  return compact;
}

/** The `extension_ui` event's `state` (`Active.state.extensionUi`). */
export function selectExtensionUi(state: ActiveRuntimeState): ExtensionUiState {
  return state.extensionUi;
}
