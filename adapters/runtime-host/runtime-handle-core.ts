/**
 * One open session on the control plane: owns the session's worker client, its editable prompt queue (the
 * decider in domain/prompt-queue) and its `Active` snapshot (the active-runtime projection, folded with
 * `fold`). Worker snapshots, pi session events and extension UI requests go into the projection; every rise
 * of `snapshotRevision` is published as `active_session` (plus `extension_ui` when the extension UI changed),
 * every session event as `runtime_event`, extension errors as `extension_error`. It also folds what the
 * runtime is streaming right now (`liveStream()`, domain/live/live-stream.ts), for a subscriber that arrives
 * mid-stream.
 *
 * Supervision (this file) and policy (runtime-host.ts): an unexpected worker exit, or the host's watchdog
 * (`probe`), replaces the worker and reopens the same session file; the queue is held (reload semantics) and
 * pending confirmations are dropped. `maxRecoveries` consecutive recoveries without a finished run in
 * between, then the next failure → `paused` (no worker; actions answer 409 until `reopen`).
 *
 * The actions (prompt, queue, interrupt, …) live in the subclass `RuntimeHandle` (runtime-handle.ts).
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import { applyLiveEvent, EMPTY_LIVE_STREAM, type LiveStreamState } from "../../domain/live/live-stream.ts";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import { FIRST_MESSAGE_LIMIT, NO_MESSAGES, truncateText, type SessionSummary } from "../../domain/session-summary.ts";
import { summarizeResearch } from "../../domain/research/research.fold.ts";
import type { ResearchState } from "../../domain/research/research-types.ts";
import { handle as handleQueue, initialState as initialQueue } from "../../domain/prompt-queue/prompt-queue.decider.ts";
import type { PromptQueueCommand, PromptQueueDecision, PromptQueueState } from "../../domain/prompt-queue/prompt-queue-types.ts";
import { selectPromptQueue } from "../../domain/prompt-queue/prompt-queue.selectors.ts";
import type { ActiveRuntimeInput, RuntimeSessionEvent } from "../../domain/runtime/runtime-inputs.ts";
import type { Active, CompactActive, ExtensionUiState, RuntimeDiagnostic } from "../../domain/runtime/runtime-types.ts";
import { activeRuntimeProjection, type ActiveRuntimeState, selectActive, selectCompactActive } from "../../projections/active-runtime.projection.ts";
import { fold, rebuild } from "../../projections/projection.ts";
import { selectSessionSummary, sessionSummaryProjection } from "../../projections/session-summary.projection.ts";
import type {
  ChildSessionOptions,
  ExtensionUiRequest,
  NewSessionTarget,
  RuntimePayload,
  RuntimeRequestType,
  RuntimeResultMap,
  RuntimeSnapshot,
  SessionKind,
  WorkerOpenOptions,
} from "../runtime-protocol/runtime-protocol.ts";
import type { RequestOptions, RuntimeWorkerClient, WorkerExit, WorkerNotification } from "../runtime-client/worker-client.ts";
import type { HostClock, HostTimer } from "./host-clock.ts";
import { asHostError, errorText, RuntimeHostError, SESSION_NOT_FOUND } from "./runtime-host-error.ts";
import { workerDiagnostics, workerResearchInputs, workerSnapshotInput } from "./worker-snapshot-input.ts";

/** One live message for the events sockets (structurally api/runtime-host.ts `RuntimeHostEvent`). */
export interface HostEvent {
  readonly type: string;
  readonly sessionId: string | null;
  data(full: boolean): unknown;
}

export type OpenTarget = { sessionFile: string } | { new: NewSessionTarget };

export type RuntimeStatus = "starting" | "ready" | "recovering" | "paused" | "closed";

export interface RuntimeHandleOptions {
  clock: HostClock;
  createClient: () => RuntimeWorkerClient;
  workerOptions: WorkerOpenOptions;
  /** The API base URL for the worker's extensions (read at every worker start; see runtime-protocol.ts). */
  apiUrl?: () => string | undefined;
  emit: (event: HostEvent) => void;
  /** Consecutive automatic recoveries allowed before the runtime pauses. */
  maxRecoveries: number;
  /** Expiry for confirmations whose extension set no timeout; null = none. */
  confirmationTimeoutMs: number | null;
  openTimeoutMs: number;
  /** The session id changed (a never-saved session was recovered into a new one). */
  onIdentityChanged?: (handle: RuntimeHandleCore, previousId: string) => void;
  /** `<agentDir>/leyline-trash` (reset copies); default: the one of PI_CODING_AGENT_DIR. */
  trashDir?: string;
}

/**
 * Events that compact sockets (sessions other than the one they focus) do not receive: the streamed deltas
 * (pi's own streaming events never leave the worker; listed in case a worker of another build sends them).
 */
const FULL_ONLY_EVENTS = new Set(["stream_delta", "message_update", "tool_execution_update"]);
const SUPERVISION_LOG_LIMIT = 10;

export class RuntimeHandleCore {
  status: RuntimeStatus = "starting";
  sessionId = "";
  sessionFile: string | null = null;
  cwd = "";
  kind: SessionKind | null = null;
  /** The child options a new child session was opened with (a never-saved child reopens with them). */
  child: ChildSessionOptions | null = null;
  sessionName: string | null = null;
  /** ms (host clock) of the last action or pi event: idle cleanup and capacity eviction. */
  lastActivityAt: number;
  /** ms (host clock) of the last valid worker message: liveness. */
  lastMessageAt: number;
  /** ms (host clock) of the last pi event or submission: progress. */
  lastProgressAt: number;
  /** Consecutive automatic recoveries (reset by a finished run and by `reopen`). */
  recoveries = 0;
  totalRecoveries = 0;

  protected state: ActiveRuntimeState = activeRuntimeProjection.initial();
  /** What the current worker is streaming (folded from every forwarded event; empty for a new worker). */
  private live: LiveStreamState = EMPTY_LIVE_STREAM;
  protected queueState: PromptQueueState = initialQueue();
  protected client: RuntimeWorkerClient | null = null;
  protected starting: Promise<RuntimeWorkerClient> | null = null;
  protected published = false;
  /** Prompt submissions between the request and pi's confirmed state (pi flips isStreaming after preflight). */
  protected runStarting = 0;
  protected dispatchProbe = false;
  /**
   * The per-runtime submission lock (spec "Prompt"): a model or Ultrafast change holds it; prompts answer 500
   * and queue dispatch waits while it is held.
   */
  protected configChange: "model change" | "Ultrafast change" | null = null;
  protected stopping = false;
  protected bashRunning = false;
  protected handoffId: string | null = null;
  private workerRevision = 0;
  private workerDiagnostics: RuntimeDiagnostic[] = [];
  private supervisionLog: RuntimeDiagnostic[] = [];
  private readonly confirmTimers = new Map<string, HostTimer>();
  private dispatchScheduled = false;
  private dispatchRetries = 0;
  private recovering = false;

  constructor(protected readonly options: RuntimeHandleOptions) {
    const now = options.clock.now();
    this.lastActivityAt = now;
    this.lastMessageAt = now;
    this.lastProgressAt = now;
  }

  // ------------------------------------------------------------------------------------------------------
  // Read side
  // ------------------------------------------------------------------------------------------------------

  /** The spec's `Active`: full, or compact (promptQueue count/held/error, no confirmation records). */
  snapshot(full: boolean): Active | CompactActive {
    return full ? selectActive(this.state) : selectCompactActive(this.state);
  }

  active(): Active {
    return selectActive(this.state);
  }

  /** What the runtime is streaming right now: the reply so far, running tools' and the `!` command's output. */
  liveStream(): LiveStreamState {
    return this.live;
  }

  /** The research state of the current branch as the last worker snapshot reported it (null without research). */
  researchState(): ResearchState | null {
    return this.state.research;
  }

  get promptQueue(): PromptQueueState {
    return this.queueState;
  }

  /** The worker process id (null without a live worker). */
  get workerPid(): number | null {
    return this.client && !this.client.exited ? this.client.pid : null;
  }

  get hasLiveWorker(): boolean {
    return this.client !== null && this.client.exited === null;
  }

  /** pi is running, compacting, or a submission is between request and pi's confirmed state. */
  busy(): boolean {
    return this.state.isStreaming || this.state.isCompacting || this.runStarting > 0 || this.dispatchProbe || this.configChange !== null;
  }

  /** Nothing to lose: no run, no tasks, no dialogs, no shell command. */
  isIdle(): boolean {
    return (
      this.status === "ready" &&
      this.starting === null &&
      !this.busy() &&
      !this.bashRunning &&
      this.queueState.items.length === 0 &&
      this.state.extensionUi.confirmations.length === 0
    );
  }

  /** The list row: folded from the session file when it exists, else a minimal row. */
  summary(): SessionSummary {
    const file = this.sessionFile;
    if (file !== null && fs.existsSync(file)) {
      try {
        const { records } = decodeSessionText(fs.readFileSync(file, "utf8"));
        const folded = selectSessionSummary(rebuild(sessionSummaryProjection, records), { path: file, mtimeMs: fs.statSync(file).mtimeMs });
        if (folded) return folded;
      } catch {
        // fall through to the minimal row
      }
    }
    // Not saved yet: the research state comes from the worker snapshots (spec: open-runtime summaries use the
    // research objective for firstMessage when the branch has no user message).
    const research = this.state.research;
    return {
      id: this.sessionId,
      path: file ?? "",
      cwd: this.cwd,
      ...(this.sessionName !== null ? { name: this.sessionName } : {}),
      ...(this.child?.parentSession !== undefined ? { parentSessionPath: this.child.parentSession } : {}),
      isSubagentSession: this.child !== null,
      research: research !== null ? summarizeResearch(research) : null,
      firstMessage: research !== null && research.objective !== "" ? truncateText(research.objective, FIRST_MESSAGE_LIMIT) : NO_MESSAGES,
      messageCount: 0,
    };
  }

  // ------------------------------------------------------------------------------------------------------
  // Lifecycle
  // ------------------------------------------------------------------------------------------------------

  /** Spawns a worker and opens the target in it. */
  async start(target: OpenTarget): Promise<void> {
    await this.startWorker(target);
    this.status = "ready";
  }

  /** Starts publishing host events (the host calls this once the handle is registered). */
  publish(): void {
    this.published = true;
    this.emitActive();
  }

  /** Explicit reopen of a paused (or broken) runtime: resets the recovery count. */
  async reopen(): Promise<void> {
    if (this.status === "closed") throw new RuntimeHostError(404, SESSION_NOT_FOUND);
    if (this.status !== "paused" && this.hasLiveWorker) return;
    this.recoveries = 0;
    this.status = "recovering";
    this.logSupervision({ status: "reopening", reason: "explicit reopen" });
    await this.startWorker(this.reopenTarget());
    this.status = "ready";
    this.logSupervision({ status: "ready", reason: "reopened" });
  }

  /** Disposes the worker; the handle is unusable afterwards. */
  async close(timeoutMs = 5000): Promise<void> {
    if (this.status === "closed") return;
    this.status = "closed";
    this.live = EMPTY_LIVE_STREAM;
    for (const timer of this.confirmTimers.values()) timer.cancel();
    this.confirmTimers.clear();
    const client = this.client;
    this.client = null;
    if (this.starting) await this.starting.catch(() => {});
    const late = this.client as RuntimeWorkerClient | null;
    this.client = null;
    await Promise.all([client, late].filter((c): c is RuntimeWorkerClient => c !== null).map((c) => c.dispose({ timeoutMs })));
  }

  /**
   * The watchdog's probe. Liveness: no valid worker message (heartbeats included) for `livenessMs`.
   * Progress: pi busy without any pi event for `noProgressMs`, unless a confirmation is waiting for the user.
   * A failing probe replaces the worker. Non-positive limits disable a check.
   */
  probe(now: number, limits: { livenessMs: number; noProgressMs: number }): "ok" | "unresponsive" | "stalled" {
    if (this.status !== "ready" || this.starting !== null || !this.hasLiveWorker) return "ok";
    if (limits.livenessMs > 0 && now - this.lastMessageAt > limits.livenessMs) {
      void this.recover(`worker sent nothing for ${now - this.lastMessageAt} ms`);
      return "unresponsive";
    }
    const busy = this.state.isStreaming || this.state.isCompacting;
    const waitingForUser = this.state.extensionUi.confirmations.length > 0;
    if (limits.noProgressMs > 0 && busy && !waitingForUser && now - this.lastProgressAt > limits.noProgressMs) {
      void this.recover(`no progress for ${now - this.lastProgressAt} ms while busy`);
      return "stalled";
    }
    return "ok";
  }

  /** Replaces the worker after a failure (see the module comment). */
  async recover(reason: string): Promise<void> {
    if (this.status === "closed" || this.status === "paused" || this.recovering) return;
    this.recovering = true;
    try {
      const old = this.client;
      this.client = null;
      old?.kill();
      // The dead worker's stream never ends; the new worker starts with nothing streamed. Subscribers are told,
      // or they would show the cut reply (and a running tool) as streaming for good.
      if (this.live !== EMPTY_LIVE_STREAM) {
        this.live = EMPTY_LIVE_STREAM;
        const activeSessionId = this.sessionId;
        const event = { type: "stream_snapshot", state: EMPTY_LIVE_STREAM };
        this.emit("runtime_event", (full) => (full ? { activeSessionId, event } : null));
      }
      this.holdQueueFor({ type: "reload" });
      this.dropConfirmations();
      this.feed([{ type: "extensionUiReset" }]);
      for (;;) {
        if (this.recoveries >= this.options.maxRecoveries) {
          this.status = "paused";
          this.feed([{ type: "sessionEvent", event: { type: "agent_end" } }, { type: "sessionEvent", event: { type: "compaction_end" } }]);
          this.logSupervision({ status: "paused", reason });
          return;
        }
        this.recoveries += 1;
        this.totalRecoveries += 1;
        this.status = "recovering";
        this.logSupervision({ status: "recovering", reason });
        try {
          await this.startWorker(this.reopenTarget());
          if (this.status !== "recovering") return;
          this.status = "ready";
          this.logSupervision({ status: "ready", reason: "recovered" });
          return;
        } catch (error) {
          if ((this.status as RuntimeStatus) === "closed") return;
          reason = `restart failed: ${errorText(error)}`;
        }
      }
    } finally {
      this.recovering = false;
    }
  }

  protected reopenTarget(): OpenTarget {
    if (this.sessionFile !== null && fs.existsSync(this.sessionFile)) return { sessionFile: this.sessionFile };
    // Never saved: a new session with the same id (the roster, the selection and clients keep it).
    const sameId = this.sessionId !== "" ? { sessionId: this.sessionId } : {};
    return { new: { cwd: this.cwd, ...(this.kind ? { kind: this.kind } : {}), ...(this.child ? { child: this.child } : {}), ...sameId } };
  }

  /** Disposes the current worker on purpose (reset-to-entry); the exit is not a crash. */
  protected async stopWorker(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.live = EMPTY_LIVE_STREAM;
    if (client) await client.dispose();
  }

  protected startWorker(target: OpenTarget): Promise<RuntimeWorkerClient> {
    const run = (async () => {
      const client = this.options.createClient();
      this.client = client;
      this.workerRevision = 0;
      this.live = EMPTY_LIVE_STREAM;
      this.lastMessageAt = this.options.clock.now();
      client.messages$.subscribe((message) => this.onMessage(client, message));
      client.exit$.subscribe((exit) => this.onExit(client, exit));
      try {
        const apiUrl = this.options.apiUrl?.();
        const options = apiUrl !== undefined ? { ...this.options.workerOptions, apiUrl } : this.options.workerOptions;
        const snapshot = await client.request("open", { ...target, options }, { timeoutMs: this.options.openTimeoutMs });
        if (this.client !== client) throw new Error("the runtime was closed while opening");
        this.applySnapshot(snapshot);
        if ("new" in target) {
          this.kind = target.new.kind ?? "session";
          this.child = target.new.child ?? null;
        }
        return client;
      } catch (error) {
        if (this.client === client) this.client = null;
        client.kill();
        throw asHostError(error, "Cannot open the session");
      }
    })();
    this.starting = run;
    const clear = (): void => {
      if (this.starting === run) this.starting = null;
    };
    run.then(clear, clear);
    return run;
  }

  // ------------------------------------------------------------------------------------------------------
  // Worker requests
  // ------------------------------------------------------------------------------------------------------

  protected async worker(): Promise<RuntimeWorkerClient> {
    if (this.status === "closed") throw new RuntimeHostError(404, SESSION_NOT_FOUND);
    if (this.status === "paused") throw new RuntimeHostError(409, "The runtime is paused after repeated failures; reopen the session");
    if (this.starting) await this.starting;
    const client = this.client;
    if (!client || client.exited) throw new RuntimeHostError(500, "The runtime worker is not running");
    return client;
  }

  protected async call<T extends RuntimeRequestType>(type: T, payload: RuntimePayload<T>, options?: RequestOptions): Promise<RuntimeResultMap[T]> {
    const client = await this.worker();
    try {
      return await client.request(type, payload, options);
    } catch (error) {
      throw asHostError(error, `${type} failed`);
    }
  }

  /** Requests a fresh snapshot and folds it. */
  protected async refresh(): Promise<void> {
    this.applySnapshot(await this.call("snapshot", {}));
  }

  // ------------------------------------------------------------------------------------------------------
  // Projection and publishing
  // ------------------------------------------------------------------------------------------------------

  protected feed(inputs: ActiveRuntimeInput[]): void {
    const before = this.state;
    this.state = fold(activeRuntimeProjection, before, inputs);
    // Waiting for the user is excluded from the no-progress deadline: it restarts when a wait begins or ends.
    if ((before.extensionUi.confirmations.length > 0) !== (this.state.extensionUi.confirmations.length > 0)) {
      this.lastProgressAt = this.options.clock.now();
    }
    if (this.state.snapshotRevision === before.snapshotRevision) return;
    this.emitActive();
    if (this.state.extensionUi !== before.extensionUi) this.emitExtensionUi();
  }

  private emitActive(): void {
    if (!this.published) return;
    const state = this.state;
    this.emit("active_session", (full) => (full ? selectActive(state) : selectCompactActive(state)));
  }

  private emitExtensionUi(): void {
    const ui: ExtensionUiState = this.state.extensionUi;
    const activeSessionId = this.sessionId;
    this.emit("extension_ui", (full) => {
      if (full) return { activeSessionId, state: ui };
      const { confirmations: _confirmations, ...compact } = ui;
      return { activeSessionId, state: compact };
    });
  }

  protected emit(type: string, data: (full: boolean) => unknown): void {
    if (!this.published) return;
    this.options.emit({ type, sessionId: this.sessionId, data });
  }

  protected feedQueue(): void {
    this.feed([{ type: "promptQueue", promptQueue: selectPromptQueue(this.queueState) }]);
  }

  /** Runs a queue command through the decider, applies its events, publishes the DTO. */
  protected runQueue(command: PromptQueueCommand): PromptQueueDecision {
    const { state, decision } = handleQueue(this.queueState, command);
    if (state !== this.queueState) {
      this.queueState = state;
      this.feedQueue();
    }
    return decision;
  }

  protected holdQueueFor(command: { type: "reload" } | { type: "interrupt" }): void {
    this.runQueue(command);
  }

  private logSupervision(record: { status: string; reason: string }): void {
    this.supervisionLog = [
      ...this.supervisionLog,
      { type: "supervision", ...record, recoveries: this.recoveries, at: this.options.clock.now() },
    ].slice(-SUPERVISION_LOG_LIMIT);
    this.feedDiagnostics();
  }

  protected logDiagnostic(record: RuntimeDiagnostic): void {
    this.supervisionLog = [...this.supervisionLog, { ...record, at: this.options.clock.now() }].slice(-SUPERVISION_LOG_LIMIT);
    this.feedDiagnostics();
  }

  private feedDiagnostics(): void {
    this.feed([{ type: "diagnostics", diagnostics: [...this.workerDiagnostics, ...this.supervisionLog] }]);
  }

  protected applySnapshot(snapshot: RuntimeSnapshot): void {
    if (snapshot.revision <= this.workerRevision) return;
    this.workerRevision = snapshot.revision;
    const previousId = this.sessionId;
    this.sessionId = snapshot.sessionId;
    this.sessionFile = snapshot.sessionFile;
    this.cwd = snapshot.cwd;
    this.sessionName = snapshot.sessionName;
    if (snapshot.kind !== null) this.kind = snapshot.kind;
    this.workerDiagnostics = workerDiagnostics(snapshot);
    this.feed([
      { type: "runtimeAttached", id: snapshot.sessionId, path: snapshot.sessionFile ?? "", cwd: snapshot.cwd },
      { type: "workerSnapshot", snapshot: workerSnapshotInput(snapshot) },
      ...workerResearchInputs(snapshot),
      { type: "diagnostics", diagnostics: [...this.workerDiagnostics, ...this.supervisionLog] },
    ]);
    if (previousId !== "" && previousId !== snapshot.sessionId && this.published) this.options.onIdentityChanged?.(this, previousId);
    if (!this.busy()) this.scheduleDispatch();
  }

  // ------------------------------------------------------------------------------------------------------
  // Worker messages
  // ------------------------------------------------------------------------------------------------------

  private onMessage(client: RuntimeWorkerClient, message: WorkerNotification): void {
    if (client !== this.client) return;
    this.lastMessageAt = this.options.clock.now();
    switch (message.type) {
      case "snapshot":
        this.applySnapshot(message.snapshot);
        return;
      case "event":
        this.onSessionEvent(message.event);
        return;
      case "extension_ui":
        this.onExtensionUi(message.request);
        return;
      case "extension_error": {
        const activeSessionId = this.sessionId;
        const error = message.error;
        this.emit("extension_error", () => ({ activeSessionId, error }));
        return;
      }
      case "fault":
        this.logDiagnostic({ type: "fault", kind: message.kind, message: message.message, fatal: message.fatal });
        return;
      case "protocol_error":
        this.logDiagnostic({ type: "protocol_error", message: message.error });
        return;
      default:
        return;
    }
  }

  private onExit(client: RuntimeWorkerClient, exit: WorkerExit): void {
    if (client !== this.client) return;
    this.client = null;
    if (exit.expected || this.status === "closed") return;
    void this.recover(`worker exited (code ${exit.code}, signal ${exit.signal})`);
  }

  private onSessionEvent(event: RuntimeSessionEvent): void {
    const now = this.options.clock.now();
    this.lastProgressAt = now;
    this.lastActivityAt = now;
    this.live = applyLiveEvent(this.live, event);
    // The Active projection has nothing to take from a delta (and a fold per 30 ms batch is wasted work).
    if (event.type !== "stream_delta") this.feed([{ type: "sessionEvent", event }]);
    const activeSessionId = this.sessionId;
    const handoffId = this.handoffId;
    this.emit("runtime_event", (full) => {
      if (!full && FULL_ONLY_EVENTS.has(event.type)) return null;
      return handoffId !== null ? { activeSessionId, event, handoffId } : { activeSessionId, event };
    });
    if (event.type === "agent_end") {
      this.handoffId = null;
      this.recoveries = 0;
      this.scheduleDispatch();
    }
  }

  private onExtensionUi(request: ExtensionUiRequest): void {
    const now = this.options.clock.now();
    switch (request.method) {
      case "confirm": {
        const timeoutMs = request.timeoutMs ?? this.options.confirmationTimeoutMs;
        const expiresAt = timeoutMs !== null && timeoutMs > 0 ? now + timeoutMs : null;
        this.feed([
          { type: "confirmationRequested", confirmation: { id: request.requestId, title: request.title, message: request.message, createdAt: now, expiresAt } },
        ]);
        if (expiresAt !== null) {
          this.confirmTimers.set(
            request.requestId,
            this.options.clock.schedule(expiresAt - now, () => this.expireConfirmation(request.requestId)),
          );
        }
        return;
      }
      case "select":
      case "input":
      case "editor":
        // The web UI has confirmations only: other dialogs are cancelled at once (pi then uses its default).
        void this.call("extensionUiReply", { requestId: request.requestId, cancelled: true }).catch(() => {});
        this.logDiagnostic({ type: "extension_ui", message: `${request.method} dialogs are not supported; cancelled "${request.title}"` });
        return;
      case "dismiss":
        this.confirmTimers.get(request.requestId)?.cancel();
        this.confirmTimers.delete(request.requestId);
        this.feed([{ type: request.reason === "timeout" ? "confirmationExpired" : "confirmationResolved", id: request.requestId }]);
        return;
      case "notify":
        this.feed([{ type: "extensionNotification", notification: { id: randomUUID(), message: request.message, level: request.level, createdAt: now } }]);
        return;
      case "setStatus":
        this.feed([{ type: "extensionStatus", key: request.key, text: request.text }]);
        return;
      case "setWidget":
        this.feed([
          { type: "extensionWidget", key: request.key, lines: request.lines, ...(request.placement ? { placement: request.placement } : {}) },
        ]);
        return;
      case "setTitle":
        return;
    }
  }

  private expireConfirmation(requestId: string): void {
    this.confirmTimers.delete(requestId);
    if (!this.state.extensionUi.confirmations.some((confirmation) => confirmation.id === requestId)) return;
    this.feed([{ type: "confirmationExpired", id: requestId }]);
    const client = this.client;
    if (client && !client.exited) void client.request("extensionUiReply", { requestId, cancelled: true }).catch(() => {});
  }

  /** Answers every pending confirmation with "cancelled" (interrupt) and removes it. */
  protected dropConfirmations(): void {
    const client = this.client;
    for (const confirmation of this.state.extensionUi.confirmations) {
      this.confirmTimers.get(confirmation.id)?.cancel();
      this.confirmTimers.delete(confirmation.id);
      if (client && !client.exited) void client.request("extensionUiReply", { requestId: confirmation.id, cancelled: true }).catch(() => {});
      this.feed([{ type: "confirmationResolved", id: confirmation.id }]);
    }
  }

  protected hasPendingConfirmation(requestId: string): boolean {
    return this.state.extensionUi.confirmations.some((confirmation) => confirmation.id === requestId);
  }

  protected resolveConfirmation(requestId: string): void {
    this.confirmTimers.get(requestId)?.cancel();
    this.confirmTimers.delete(requestId);
    this.feed([{ type: "confirmationResolved", id: requestId }]);
  }

  // ------------------------------------------------------------------------------------------------------
  // Queue dispatch
  // ------------------------------------------------------------------------------------------------------

  /** Dispatches the next queued task once pi is idle (coalesced; re-checked with a fresh worker snapshot). */
  protected scheduleDispatch(): void {
    if (this.dispatchScheduled) return;
    this.dispatchScheduled = true;
    setImmediate(() => {
      this.dispatchScheduled = false;
      void this.dispatchNext().catch(() => {});
    });
  }

  private canDispatch(): boolean {
    const queue = this.queueState;
    return (
      this.status === "ready" &&
      this.starting === null &&
      this.configChange === null &&
      !this.stopping &&
      !this.busy() &&
      !queue.held &&
      !queue.items.some((item) => item.status === "sending") &&
      queue.items.some((item) => item.status === "pending")
    );
  }

  private async dispatchNext(): Promise<void> {
    if (!this.canDispatch()) return;
    // pi emits agent_end before its run is really over (isStreaming clears after the listeners ran): confirm.
    this.dispatchProbe = true;
    let snapshot: RuntimeSnapshot;
    try {
      snapshot = await this.call("snapshot", {});
    } finally {
      this.dispatchProbe = false;
    }
    this.applySnapshot(snapshot);
    if (snapshot.isStreaming || snapshot.isCompacting) {
      if (this.dispatchRetries++ < 250) setTimeout(() => this.scheduleDispatch(), 20).unref();
      return;
    }
    this.dispatchRetries = 0;
    if (!this.canDispatch()) return;
    const decision = this.runQueue({ type: "dispatchNext", busy: this.busy() });
    if (decision.ok && decision.submission) await this.submit(decision.submission, null).catch(() => {});
  }

  /**
   * Hands a submission to pi. A queued task is marked accepted or failed in the queue (never throws for
   * it); a direct prompt's failure is thrown as 500.
   */
  protected async submit(
    submission: { via: "prompt" | "steer"; taskId: string | null; text: string; images: Array<{ type: "image"; data: string; mimeType: string }>; handoffId: string | null },
    streamingBehavior: "steer" | "followUp" | null,
  ): Promise<void> {
    const images = submission.images.length > 0 ? { images: submission.images } : {};
    this.lastProgressAt = this.options.clock.now();
    try {
      if (submission.via === "steer") {
        this.applySnapshot(await this.call("steer", { text: submission.text, ...images }));
      } else {
        this.runStarting += 1;
        try {
          await this.call("prompt", { text: submission.text, ...images, ...(streamingBehavior ? { streamingBehavior } : {}) });
          this.handoffId = submission.handoffId;
          // pi sets isStreaming right after preflight; this snapshot is ordered after it.
          await this.refresh();
        } finally {
          this.runStarting -= 1;
        }
      }
    } catch (error) {
      if (submission.taskId === null) throw asHostError(error, "Prompt failed");
      this.runQueue({ type: "dispatchFailed", id: submission.taskId, error: errorText(error) });
      return;
    }
    if (submission.taskId !== null) this.runQueue({ type: "dispatchAccepted", id: submission.taskId });
    if (!this.busy()) this.scheduleDispatch();
  }
}
