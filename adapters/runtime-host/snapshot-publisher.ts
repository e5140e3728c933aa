/**
 * The snapshot publisher of one runtime: owns its `Active` snapshot (the active-runtime projection, folded
 * with `fold`), what it is streaming right now (`liveStream()`, domain/live/live-stream.ts, for a subscriber
 * that arrives mid-stream) and the session's identity as the worker last reported it. Worker snapshots, pi
 * session events and extension UI inputs are folded here; once the host registered the runtime (`publish`),
 * every rise of `snapshotRevision` is published as `active_session` (plus `extension_ui` when the extension
 * UI changed), every session event as `runtime_event`, extension errors as `extension_error`.
 */
import * as fs from "node:fs";
import { applyLiveEvent, EMPTY_LIVE_STREAM, type LiveStreamState } from "../../domain/live/live-stream.ts";
import { summarizeResearch } from "../../domain/research/research.fold.ts";
import type { ResearchState } from "../../domain/research/research-types.ts";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import { FIRST_MESSAGE_LIMIT, NO_MESSAGES, truncateText, type SessionSummary } from "../../domain/session-summary.ts";
import type { ActiveRuntimeInput, RuntimeSessionEvent } from "../../domain/runtime/runtime-inputs.ts";
import type { Active, CompactActive, RuntimeDiagnostic } from "../../domain/runtime/runtime-types.ts";
import type { MovedLeaf } from "../../domain/session-tree-view.ts";
import {
  activeRuntimeProjection,
  type ActiveRuntimeState,
  selectActive,
  selectCompactActive,
} from "../../projections/active-runtime.projection.ts";
import { fold, rebuild } from "../../projections/projection.ts";
import { selectSessionSummary, sessionSummaryProjection } from "../../projections/session-summary.projection.ts";
import type { ChildSessionOptions, RuntimeSnapshot, SessionKind } from "../runtime-protocol/runtime-protocol.ts";
import type { WorkerNotification } from "../runtime-client/worker-client.ts";
import { workerDiagnostics, workerResearchInputs, workerSnapshotInput } from "./worker-snapshot-input.ts";

/** One live message for the events sockets (structurally api/runtime-host.ts `RuntimeHostEvent`). */
export interface HostEvent {
  readonly type: string;
  readonly sessionId: string | null;
  data(full: boolean): unknown;
}

export interface SessionIdentity {
  readonly sessionId: string;
  readonly sessionFile: string | null;
  readonly cwd: string;
  readonly sessionName: string | null;
  readonly kind: SessionKind | null;
  /** The child options a new child session was opened with (a never-saved child reopens with them). */
  readonly child: ChildSessionOptions | null;
  /** The session file existed at some point (opened from it, or seen after pi wrote it). */
  readonly fileSeen: boolean;
}

/**
 * Events that compact sockets (sessions other than the one they focus) do not receive: the streamed deltas
 * (pi's own streaming events never leave the worker; listed in case a worker of another build sends them).
 */
const FULL_ONLY_EVENTS = new Set(["stream_delta", "message_update", "tool_execution_update"]);

/** A model a runtime offers, as its worker reported it. */
export interface ModelRoute {
  readonly provider: string;
  readonly id: string;
  readonly api: string;
}

export interface SnapshotPublisherDeps {
  emit: (event: HostEvent) => void;
  /** The supervision log, shown after the worker's own diagnostics. */
  supervisionLog: () => readonly RuntimeDiagnostic[];
  /** A wait for the user began or ended (the watchdog's progress deadline restarts). */
  waitingForUserChanged: () => void;
  /** The session id changed after publishing (a never-saved session was recovered into a new one). */
  identityChanged: (previousId: string) => void;
  /** A worker snapshot was folded (pi may be idle now). */
  snapshotApplied: () => void;
  /** pi's leaf moved without writing, or a write ended such a move (null) (domain/session-tree-view.ts). */
  leafMoved: (leaf: MovedLeaf | null) => void;
}

interface PublisherState {
  projection: ActiveRuntimeState;
  /** What the current worker is streaming (folded from every forwarded event; empty for a new worker). */
  live: LiveStreamState;
  published: boolean;
  /** The revision of the last folded snapshot of the current worker (older replies are ignored). */
  workerRevision: number;
  workerDiagnostics: RuntimeDiagnostic[];
  identity: SessionIdentity;
  /** The last snapshot's moved leaf (null: pi's leaf is the file's last entry). */
  leaf: MovedLeaf | null;
}

export interface SnapshotPublisher {
  /** The projection state (pi's flags, extension UI, models) for the other parts' decisions. */
  state(): ActiveRuntimeState;
  /** The spec's `Active`: full, or compact (promptQueue count/held/error, no confirmation records). */
  snapshot(full: boolean): Active | CompactActive;
  active(): Active;
  liveStream(): LiveStreamState;
  researchState(): ResearchState | null;
  /** The available models of the last worker snapshot with their API (never sent to clients). */
  modelRoutes(): readonly ModelRoute[];
  identity(): SessionIdentity;
  /** pi's leaf when it moved without writing (the last snapshot's), else null. */
  movedLeaf(): MovedLeaf | null;
  /** The list row: folded from the session file when it exists, else a minimal row. */
  summary(): SessionSummary;
  /** Starts publishing host events (the host calls this once the runtime is registered). */
  publish(): void;
  feed(inputs: ActiveRuntimeInput[]): void;
  applySnapshot(snapshot: RuntimeSnapshot): void;
  /** A new session was opened: its kind and child options are the ones asked for. */
  openedNew(kind: SessionKind, child: ChildSessionOptions | null): void;
  /** The session was opened from its file. */
  openedFile(): void;
  /** The session file was removed behind the runtime's back after it existed. */
  fileDeleted(): boolean;
  /** A pi session event: folded into the live stream and the projection, published as `runtime_event`. */
  sessionEvent(event: RuntimeSessionEvent, handoffId: string | null): void;
  /** A new worker starts: nothing streamed, snapshot revisions start over. */
  workerStarting(): void;
  clearLiveStream(): void;
  /** The worker died mid-stream: subscribers are told the stream is empty now. */
  cutLiveStream(): void;
  extensionError(error: Extract<WorkerNotification, { type: "extension_error" }>["error"]): void;
  /** Folds the worker's diagnostics and the supervision log. */
  publishDiagnostics(): void;
}

export function createSnapshotPublisher(deps: SnapshotPublisherDeps): SnapshotPublisher {
  let state: PublisherState = {
    projection: activeRuntimeProjection.initial(),
    live: EMPTY_LIVE_STREAM,
    published: false,
    workerRevision: 0,
    workerDiagnostics: [],
    identity: { sessionId: "", sessionFile: null, cwd: "", sessionName: null, kind: null, child: null, fileSeen: false },
    leaf: null,
  };

  const update = (patch: Partial<PublisherState>): void => {
    state = { ...state, ...patch };
  };

  const updateIdentity = (patch: Partial<SessionIdentity>): void => {
    update({ identity: { ...state.identity, ...patch } });
  };

  const emit = (type: string, data: (full: boolean) => unknown): void => {
    if (!state.published) return;
    deps.emit({ type, sessionId: state.identity.sessionId, data });
  };

  const emitActive = (): void => {
    if (!state.published) return;
    const projection = state.projection;
    emit("active_session", (full) => (full ? selectActive(projection) : selectCompactActive(projection)));
  };

  const emitExtensionUi = (): void => {
    const ui = state.projection.extensionUi;
    const activeSessionId = state.identity.sessionId;
    emit("extension_ui", (full) => {
      if (full) return { activeSessionId, state: ui };
      const { confirmations: _confirmations, ...compact } = ui;
      return { activeSessionId, state: compact };
    });
  };

  const feed = (inputs: ActiveRuntimeInput[]): void => {
    const before = state.projection;
    const after = fold(activeRuntimeProjection, before, inputs);
    update({ projection: after });
    if (before.extensionUi.confirmations.length > 0 !== after.extensionUi.confirmations.length > 0) deps.waitingForUserChanged();
    if (after.snapshotRevision === before.snapshotRevision) return;
    emitActive();
    if (after.extensionUi !== before.extensionUi) emitExtensionUi();
  };

  const diagnostics = (): RuntimeDiagnostic[] => [...state.workerDiagnostics, ...deps.supervisionLog()];

  const markFileSeen = (): void => {
    const file = state.identity.sessionFile;
    if (!state.identity.fileSeen && file !== null && fs.existsSync(file)) updateIdentity({ fileSeen: true });
  };

  /** The models of the last worker snapshot with their API (server-side only: the Pi Settings sign-in guard). */
  let modelRoutes: ModelRoute[] = [];

  const foldSnapshot = (snapshot: RuntimeSnapshot): void => {
    const previousId = state.identity.sessionId;
    modelRoutes = snapshot.availableModels.map((model) => ({ provider: model.provider, id: model.id, api: model.api }));
    const worker = workerDiagnostics(snapshot);
    update({ workerRevision: snapshot.revision, workerDiagnostics: worker });
    // Another file (a fork, a new session): whether it was ever seen on disk starts over. A fork before the first
    // prompt has no file yet, and the source's `fileSeen` must not make it look deleted.
    if (snapshot.sessionFile !== state.identity.sessionFile) updateIdentity({ fileSeen: false });
    updateIdentity({
      sessionId: snapshot.sessionId,
      sessionFile: snapshot.sessionFile,
      cwd: snapshot.cwd,
      sessionName: snapshot.sessionName,
      ...(snapshot.kind !== null ? { kind: snapshot.kind } : {}),
    });
    feed([
      { type: "runtimeAttached", id: snapshot.sessionId, path: snapshot.sessionFile ?? "", cwd: snapshot.cwd },
      { type: "workerSnapshot", snapshot: workerSnapshotInput(snapshot) },
      ...workerResearchInputs(snapshot),
      { type: "diagnostics", diagnostics: diagnostics() },
    ]);
    if (previousId !== "" && previousId !== snapshot.sessionId && state.published) deps.identityChanged(previousId);
    const leaf = snapshot.leaf ?? null;
    if (leaf?.leafId !== state.leaf?.leafId || leaf?.lastEntryId !== state.leaf?.lastEntryId) {
      update({ leaf });
      deps.leafMoved(leaf);
    }
    deps.snapshotApplied();
  };

  return {
    state: () => state.projection,
    snapshot: (full) => (full ? selectActive(state.projection) : selectCompactActive(state.projection)),
    active: () => selectActive(state.projection),
    liveStream: () => state.live,
    researchState: () => state.projection.research,
    modelRoutes: () => modelRoutes,
    identity: () => state.identity,
    movedLeaf: () => state.leaf,
    summary() {
      const { sessionFile: file, sessionId, cwd, sessionName, child } = state.identity;
      if (file !== null && fs.existsSync(file)) {
        try {
          const { records } = decodeSessionText(fs.readFileSync(file, "utf8"));
          const folded = selectSessionSummary(rebuild(sessionSummaryProjection, records), {
            path: file,
            mtimeMs: fs.statSync(file).mtimeMs,
          });
          if (folded) return folded;
        } catch {
          // fall through to the minimal row
        }
      }
      // Not saved yet: the research state comes from the worker snapshots (spec: open-runtime summaries use the
      // research objective for firstMessage when the branch has no user message).
      const research = state.projection.research;
      return {
        id: sessionId,
        path: file ?? "",
        cwd,
        ...(sessionName !== null ? { name: sessionName } : {}),
        ...(child?.parentSession !== undefined ? { parentSessionPath: child.parentSession } : {}),
        isSubagentSession: child !== null,
        research: research !== null ? summarizeResearch(research) : null,
        firstMessage: research !== null && research.objective !== "" ? truncateText(research.objective, FIRST_MESSAGE_LIMIT) : NO_MESSAGES,
        messageCount: 0,
      };
    },
    publish() {
      update({ published: true });
      emitActive();
    },
    feed,
    applySnapshot(snapshot) {
      if (snapshot.revision > state.workerRevision) foldSnapshot(snapshot);
      markFileSeen();
    },
    openedNew(kind, child) {
      updateIdentity({ kind, child });
    },
    openedFile() {
      updateIdentity({ fileSeen: true });
    },
    fileDeleted() {
      const file = state.identity.sessionFile;
      if (file === null) return false;
      if (fs.existsSync(file)) {
        updateIdentity({ fileSeen: true });
        return false;
      }
      return state.identity.fileSeen;
    },
    sessionEvent(event, handoffId) {
      update({ live: applyLiveEvent(state.live, event) });
      // The Active projection has nothing to take from a delta (and a fold per 30 ms batch is wasted work).
      if (event.type !== "stream_delta") feed([{ type: "sessionEvent", event }]);
      const activeSessionId = state.identity.sessionId;
      emit("runtime_event", (full) => {
        if (!full && FULL_ONLY_EVENTS.has(event.type)) return null;
        return handoffId !== null ? { activeSessionId, event, handoffId } : { activeSessionId, event };
      });
    },
    workerStarting() {
      update({ workerRevision: 0, live: EMPTY_LIVE_STREAM });
    },
    clearLiveStream() {
      update({ live: EMPTY_LIVE_STREAM });
    },
    cutLiveStream() {
      // The dead worker's stream never ends; the new worker starts with nothing streamed. Subscribers are told,
      // or they would show the cut reply (and a running tool) as streaming for good.
      if (state.live === EMPTY_LIVE_STREAM) return;
      update({ live: EMPTY_LIVE_STREAM });
      const activeSessionId = state.identity.sessionId;
      const event = { type: "stream_snapshot", state: EMPTY_LIVE_STREAM };
      emit("runtime_event", (full) => (full ? { activeSessionId, event } : null));
    },
    extensionError(error) {
      const activeSessionId = state.identity.sessionId;
      emit("extension_error", () => ({ activeSessionId, error }));
    },
    publishDiagnostics() {
      feed([{ type: "diagnostics", diagnostics: diagnostics() }]);
    },
  };
}
