/**
 * `RuntimeHandle`: one open session on the control plane. It is a composition of four parts, each owning
 * one state:
 * - worker supervision (runtime-supervision.ts): the worker client, status, recoveries, watchdog inputs;
 * - the snapshot publisher (snapshot-publisher.ts): the `Active` projection, the live stream, host events;
 * - the prompt dispatcher (prompt-dispatcher.ts): the prompt queue and the submission phase;
 * - the confirmation timers (confirmation-timers.ts): expiry of extension-UI confirmations.
 * This file wires them (worker messages are routed in `onWorkerMessage`) and exposes the runtime actions
 * (runtime-actions.ts) as methods.
 */
import { randomUUID } from "node:crypto";
import type { LiveStreamState } from "../../domain/live/live-stream.ts";
import type { PromptQueueState } from "../../domain/prompt-queue/prompt-queue-types.ts";
import { selectPromptQueue } from "../../domain/prompt-queue/prompt-queue.selectors.ts";
import type { ResearchState } from "../../domain/research/research-types.ts";
import type { RuntimeSessionEvent } from "../../domain/runtime/runtime-inputs.ts";
import type { Active, CompactActive, Model, PromptImage } from "../../domain/runtime/runtime-types.ts";
import type { SessionSummary } from "../../domain/session-summary.ts";
import type { MovedLeaf } from "../../domain/session-tree-view.ts";
import type {
  BashResultInfo,
  ChildSessionOptions,
  CompactionResultInfo,
  ExtensionUiRequest,
  SessionKind,
  WorkerOpenOptions,
} from "../runtime-protocol/runtime-protocol.ts";
import type { RuntimeWorkerClient, WorkerNotification } from "../runtime-client/worker-client.ts";
import type { CaptureWrite } from "../../domain/traces/trace-records.ts";
import { leylineTrashDirOf, resolveAgentDir } from "../session-files/agent-dir.ts";
import { type ConfirmationTimers, createConfirmationTimers } from "./confirmation-timers.ts";
import type { HostClock } from "./host-clock.ts";
import { createPromptDispatcher, type PromptDispatcher } from "./prompt-dispatcher.ts";
import { createRuntimeActions, type RuntimeActions, savedEntries } from "./runtime-actions.ts";
import { RuntimeHostError } from "./runtime-host-error.ts";
import {
  createRuntimeSupervision,
  type OpenTarget,
  type ProbeLimits,
  type ProbeVerdict,
  type RuntimeStatus,
  type RuntimeSupervision,
} from "./runtime-supervision.ts";
import { createSnapshotPublisher, type HostEvent, type ModelRoute, type SnapshotPublisher } from "./snapshot-publisher.ts";

export { ULTRAFAST_COMMAND_MISSING } from "./runtime-actions.ts";
export type { HostEvent } from "./snapshot-publisher.ts";
export type { OpenTarget, RuntimeStatus } from "./runtime-supervision.ts";

/** What the vision preparation of a submission with images sees (adapters/vision/vision-preparation.ts). */
export interface ImagePreparationContext {
  readonly sessionId: string;
  readonly sessionFile: string | null;
  readonly cwd: string;
  /** The session's model (undefined: none), and the models with credentials, as the runtime reports them. */
  readonly model: Model | undefined;
  readonly availableModels: readonly Model[];
  readonly images: readonly PromptImage[];
}

/**
 * Prepares the images of a submission before pi gets them (spec "Prompt": image preparation). It throws to fail
 * the submission (a direct prompt answers the error, a queued task stays, the queue holds with the error).
 */
export type ImagePreparer = (context: ImagePreparationContext) => Promise<void>;

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
  onIdentityChanged?: (handle: RuntimeHandle, previousId: string) => void;
  /** `<agentDir>/leyline-trash` (reset copies); default: the one of PI_CODING_AGENT_DIR. */
  trashDir?: string;
  /** pi's leaf of `file` moved without writing (a /tree navigation), or that ended (null). */
  onLeafMoved?: (file: string, leaf: MovedLeaf | null) => void;
  /** The preparation of submissions with images (none: images go to pi as they are). */
  prepareImages?: ImagePreparer;
  /** The worker's trace capture of this runtime's runs (domain/traces/trace-capture.ts writes). */
  onTrace?: (handle: RuntimeHandle, writes: CaptureWrite[]) => void;
  /** The worker died or was killed (a crash, the watchdog): what it was running is lost. */
  onWorkerLost?: (handle: RuntimeHandle) => void;
}

export class RuntimeHandle {
  private readonly supervision: RuntimeSupervision;
  private readonly publisher: SnapshotPublisher;
  private readonly dispatcher: PromptDispatcher;
  private readonly confirmations: ConfirmationTimers;
  private readonly actions: RuntimeActions;

  constructor(private readonly options: RuntimeHandleOptions) {
    // The parts reach one another only through the callbacks given here, and none calls them while it is
    // being created, so each may name a part created after it.
    const publisher = createSnapshotPublisher({
      emit: options.emit,
      supervisionLog: () => supervision.log(),
      waitingForUserChanged: () => supervision.noteProgress(),
      identityChanged: (previousId) => options.onIdentityChanged?.(this, previousId),
      snapshotApplied: () => dispatcher.dispatchIfIdle(),
      leafMoved: (leaf) => {
        const file = publisher.identity().sessionFile;
        if (file !== null) options.onLeafMoved?.(file, leaf);
      },
    });
    const supervision = createRuntimeSupervision({
      clock: options.clock,
      createClient: options.createClient,
      workerOptions: options.workerOptions,
      ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
      maxRecoveries: options.maxRecoveries,
      openTimeoutMs: options.openTimeoutMs,
      identity: () => publisher.identity(),
      progress: () => {
        const state = publisher.state();
        return { piBusy: state.isStreaming || state.isCompacting, waitingForUser: state.extensionUi.confirmations.length > 0 };
      },
      logChanged: () => publisher.publishDiagnostics(),
      worker: {
        starting: () => publisher.workerStarting(),
        opened: (snapshot, target) => {
          publisher.applySnapshot(snapshot);
          if ("new" in target) publisher.openedNew(target.new.kind ?? "session", target.new.child ?? null);
        },
        message: (message) => this.onWorkerMessage(message),
        stopped: () => publisher.clearLiveStream(),
        lost: () => {
          publisher.cutLiveStream();
          this.forgetWorkerState();
          // The worker's run (if any) is gone with it: its trace ends (a new worker starts its own).
          options.onWorkerLost?.(this);
        },
        paused: () =>
          publisher.feed([
            { type: "sessionEvent", event: { type: "agent_end" } },
            { type: "sessionEvent", event: { type: "compaction_end" } },
          ]),
      },
    });
    const dispatcher = createPromptDispatcher({
      clock: options.clock,
      nextTurn: (fn) => setImmediate(fn),
      call: supervision.call,
      applySnapshot: (snapshot) => publisher.applySnapshot(snapshot),
      pi: () => publisher.state(),
      runtimeReady: () => supervision.status() === "ready" && !supervision.isStarting(),
      queueChanged: (queue) => publisher.feed([{ type: "promptQueue", promptQueue: selectPromptQueue(queue) }]),
      submitted: () => supervision.noteProgress(),
      ...(options.prepareImages ? { prepareImages: (images) => this.prepareImages(images) } : {}),
    });
    const confirmations = createConfirmationTimers({
      clock: options.clock,
      defaultTimeoutMs: options.confirmationTimeoutMs,
      pending: () => publisher.state().extensionUi.confirmations.map((confirmation) => confirmation.id),
      feed: (inputs) => publisher.feed(inputs),
      cancelInWorker: (requestId) => supervision.tell("extensionUiReply", { requestId, cancelled: true }),
    });
    this.supervision = supervision;
    this.publisher = publisher;
    this.dispatcher = dispatcher;
    this.confirmations = confirmations;
    this.actions = createRuntimeActions({
      clock: options.clock,
      supervision,
      publisher,
      dispatcher,
      confirmations,
      trashDir: () => this.trashDir,
      forgetWorkerState: () => this.forgetWorkerState(),
    });
  }

  // ------------------------------------------------------------------------------------------------------
  // Read side
  // ------------------------------------------------------------------------------------------------------

  get status(): RuntimeStatus {
    return this.supervision.status();
  }

  get sessionId(): string {
    return this.publisher.identity().sessionId;
  }

  get sessionFile(): string | null {
    return this.publisher.identity().sessionFile;
  }

  get cwd(): string {
    return this.publisher.identity().cwd;
  }

  get kind(): SessionKind | null {
    return this.publisher.identity().kind;
  }

  /** The child options a new child session was opened with (a never-saved child reopens with them). */
  get child(): ChildSessionOptions | null {
    return this.publisher.identity().child;
  }

  get sessionName(): string | null {
    return this.publisher.identity().sessionName;
  }

  /** ms (host clock) of the last action or pi event: idle cleanup and capacity eviction. */
  get lastActivityAt(): number {
    return this.supervision.lastActivityAt();
  }

  /** ms (host clock) of the last valid worker message: liveness. */
  get lastMessageAt(): number {
    return this.supervision.lastMessageAt();
  }

  /** ms (host clock) of the last pi event or submission: progress. */
  get lastProgressAt(): number {
    return this.supervision.lastProgressAt();
  }

  /** Consecutive automatic recoveries (reset by a finished run and by `reopen`). */
  get recoveries(): number {
    return this.supervision.recoveries();
  }

  /** The spec's `Active`: full, or compact (promptQueue count/held/error, no confirmation records). */
  snapshot(full: boolean): Active | CompactActive {
    return this.publisher.snapshot(full);
  }

  active(): Active {
    return this.publisher.active();
  }

  /** The models the runtime's worker offers, with their API (the Pi Settings sign-in guard; not a client DTO). */
  modelRoutes(): readonly ModelRoute[] {
    return this.publisher.modelRoutes();
  }

  /** What the runtime is streaming right now: the reply so far, running tools' and the `!` command's output. */
  liveStream(): LiveStreamState {
    return this.publisher.liveStream();
  }

  /** The research state of the current branch as the last worker snapshot reported it (null without research). */
  researchState(): ResearchState | null {
    return this.publisher.researchState();
  }

  get promptQueue(): PromptQueueState {
    return this.dispatcher.queue();
  }

  /** The worker process id (null without a live worker). */
  get workerPid(): number | null {
    return this.supervision.workerPid();
  }

  get hasLiveWorker(): boolean {
    return this.supervision.hasLiveWorker();
  }

  /** pi is running, compacting, or a submission is between request and pi's confirmed state. */
  busy(): boolean {
    return this.dispatcher.busy();
  }

  /** Nothing to lose: no run, no tasks, no dialogs, no shell command. */
  isIdle(): boolean {
    return (
      this.supervision.status() === "ready" &&
      !this.supervision.isStarting() &&
      !this.dispatcher.busy() &&
      !this.dispatcher.shellCommandRunning() &&
      this.dispatcher.queue().items.length === 0 &&
      this.publisher.state().extensionUi.confirmations.length === 0
    );
  }

  /** The list row: folded from the session file when it exists, else a minimal row. */
  summary(): SessionSummary {
    return this.publisher.summary();
  }

  /**
   * The session's file was removed behind the runtime's back (deleted by hand, by another tool). Acting on
   * it would make pi append entries to a new file without a header, so every action answers 404 instead.
   * A new session whose file pi has not written yet is not deleted.
   */
  fileDeleted(): boolean {
    return this.publisher.fileDeleted();
  }

  /** `<agentDir>/leyline-trash` (the host's; PI_CODING_AGENT_DIR's for a handle made without one). */
  get trashDir(): string {
    return this.options.trashDir ?? leylineTrashDirOf(resolveAgentDir());
  }

  // ------------------------------------------------------------------------------------------------------
  // Lifecycle and supervision
  // ------------------------------------------------------------------------------------------------------

  /** Spawns a worker and opens the target in it. */
  async start(target: OpenTarget): Promise<void> {
    await this.supervision.start(target);
    if ("sessionFile" in target) this.publisher.openedFile();
  }

  /** Starts publishing host events (the host calls this once the handle is registered). */
  publish(): void {
    this.publisher.publish();
  }

  /** Explicit reopen of a paused (or broken) runtime: resets the recovery count. */
  reopen(): Promise<void> {
    return this.supervision.reopen();
  }

  /** Disposes the worker; the handle is unusable afterwards. */
  async close(timeoutMs = 5000): Promise<void> {
    if (this.supervision.status() === "closed") return;
    this.confirmations.cancelAll();
    try {
      await this.supervision.close(timeoutMs);
    } finally {
      // A leaf moved without writing lives in the runtime only: pi reopens the file at its last entry.
      const file = this.publisher.identity().sessionFile;
      if (file !== null && this.publisher.movedLeaf() !== null) this.options.onLeafMoved?.(file, null);
    }
  }

  /** pi's leaf when it moved without writing (a /tree navigation not yet followed by a write), else null. */
  movedLeaf(): MovedLeaf | null {
    return this.publisher.movedLeaf();
  }

  /**
   * The watchdog's probe. Liveness: no valid worker message (heartbeats included) for `livenessMs`.
   * Progress: pi busy without any pi event for `noProgressMs`, unless a confirmation is waiting for the user.
   * A failing probe replaces the worker. Non-positive limits disable a check.
   */
  probe(now: number, limits: ProbeLimits): ProbeVerdict {
    return this.supervision.probe(now, limits);
  }

  /** Replaces the worker after a failure (see runtime-supervision.ts). */
  recover(reason: string): Promise<void> {
    return this.supervision.recover(reason);
  }

  /** The host's image preparation for a submission of this runtime (see `ImagePreparer`). */
  private async prepareImages(images: readonly PromptImage[]): Promise<void> {
    const state = this.publisher.state();
    const identity = this.publisher.identity();
    await this.options.prepareImages?.({
      sessionId: identity.sessionId,
      sessionFile: identity.sessionFile,
      cwd: identity.cwd,
      model: state.model ?? undefined,
      availableModels: state.availableModels,
      images,
    });
  }

  /** What the worker had going is gone: unsent tasks stay, held; dialogs are cancelled; extensions publish afresh. */
  private forgetWorkerState(): void {
    this.dispatcher.hold({ type: "reload" });
    this.confirmations.dropAll();
    this.publisher.feed([{ type: "extensionUiReset" }]);
  }

  private onWorkerMessage(message: WorkerNotification): void {
    switch (message.type) {
      case "snapshot":
        this.publisher.applySnapshot(message.snapshot);
        return;
      case "event":
        this.onSessionEvent(message.event);
        return;
      case "extension_ui":
        this.onExtensionUi(message.request);
        return;
      case "extension_error":
        this.publisher.extensionError(message.error);
        return;
      case "trace":
        this.options.onTrace?.(this, message.writes);
        return;
      case "fault":
        this.supervision.logDiagnostic({ type: "fault", kind: message.kind, message: message.message, fatal: message.fatal });
        return;
      case "protocol_error":
        this.supervision.logDiagnostic({ type: "protocol_error", message: message.error });
        return;
      default:
        return;
    }
  }

  private onSessionEvent(event: RuntimeSessionEvent): void {
    this.supervision.noteProgress();
    this.supervision.noteActivity();
    this.publisher.sessionEvent(event, this.dispatcher.handoffId());
    if (event.type === "agent_end") {
      this.supervision.runFinished();
      this.dispatcher.runEnded();
    }
  }

  private onExtensionUi(request: ExtensionUiRequest): void {
    switch (request.method) {
      case "confirm":
        this.confirmations.requested(request);
        return;
      case "select":
      case "input":
      case "editor":
        // The web UI has confirmations only: other dialogs are cancelled at once (pi then uses its default).
        void this.supervision.call("extensionUiReply", { requestId: request.requestId, cancelled: true }).catch(() => {});
        this.supervision.logDiagnostic({
          type: "extension_ui",
          message: `${request.method} dialogs are not supported; cancelled "${request.title}"`,
        });
        return;
      case "dismiss":
        this.confirmations.dismissed(request.requestId, request.reason);
        return;
      case "notify":
        this.publisher.feed([
          {
            type: "extensionNotification",
            notification: { id: randomUUID(), message: request.message, level: request.level, createdAt: this.options.clock.now() },
          },
        ]);
        return;
      case "setStatus":
        this.publisher.feed([{ type: "extensionStatus", key: request.key, text: request.text }]);
        return;
      case "setWidget":
        this.publisher.feed([
          {
            type: "extensionWidget",
            key: request.key,
            lines: request.lines,
            ...(request.placement ? { placement: request.placement } : {}),
          },
        ]);
        return;
      case "setTitle":
        return;
    }
  }

  // ------------------------------------------------------------------------------------------------------
  // Actions (runtime-actions.ts)
  // ------------------------------------------------------------------------------------------------------

  prompt(...args: Parameters<RuntimeActions["prompt"]>): Promise<{ queued: boolean; active: Active }> {
    return this.actions.prompt(...args);
  }

  editPrompt(...args: Parameters<RuntimeActions["editPrompt"]>): Promise<Active> {
    return this.actions.editPrompt(...args);
  }

  queue(...args: Parameters<RuntimeActions["queue"]>): Promise<Active> {
    return this.actions.queue(...args);
  }

  interrupt(): Promise<Active> {
    return this.actions.interrupt();
  }

  compact(...args: Parameters<RuntimeActions["compact"]>): Promise<{ result: CompactionResultInfo; active: Active }> {
    return this.actions.compact(...args);
  }

  bash(...args: Parameters<RuntimeActions["bash"]>): Promise<{ result: BashResultInfo; active: Active }> {
    return this.actions.bash(...args);
  }

  setModel(...args: Parameters<RuntimeActions["setModel"]>): Promise<Active> {
    return this.actions.setModel(...args);
  }

  setUltrafast(...args: Parameters<RuntimeActions["setUltrafast"]>): Promise<Active> {
    return this.actions.setUltrafast(...args);
  }

  setThinkingLevel(...args: Parameters<RuntimeActions["setThinkingLevel"]>): Promise<Active> {
    return this.actions.setThinkingLevel(...args);
  }

  reload(): Promise<Active> {
    return this.actions.reload();
  }

  navigate(...args: Parameters<RuntimeActions["navigate"]>): ReturnType<RuntimeActions["navigate"]> {
    return this.actions.navigate(...args);
  }

  setLabel(...args: Parameters<RuntimeActions["setLabel"]>): Promise<Active> {
    return this.actions.setLabel(...args);
  }

  rename(...args: Parameters<RuntimeActions["rename"]>): Promise<Active> {
    return this.actions.rename(...args);
  }

  confirm(...args: Parameters<RuntimeActions["confirm"]>): Promise<void> {
    return this.actions.confirm(...args);
  }

  resetToEntry(...args: Parameters<RuntimeActions["resetToEntry"]>): Promise<{ trashPath: string; active: Active }> {
    return this.actions.resetToEntry(...args);
  }

  runToCompletion(...args: Parameters<RuntimeActions["runToCompletion"]>): Promise<Active> {
    return this.actions.runToCompletion(...args);
  }

  /**
   * Used by the host's fork: opens `sourceFile` in this (fresh) handle's worker and forks there. `auto`: before a
   * user message (pi's /fork), at any other entry. Answers the text of the user message it forked before (for the
   * composer), else null.
   */
  async startFork(sourceFile: string, entryId: string, position: "before" | "at" | "auto"): Promise<string | null> {
    // An unknown entry is the client's error (404), not a worker failure: checked before a worker starts.
    const entry = savedEntries(sourceFile).find((candidate) => candidate.id === entryId);
    if (entry === undefined) throw new RuntimeHostError("entry_not_found", `Entry ${entryId} not found`);
    const where = position !== "auto" ? position : entry.type === "message" && entry.message.role === "user" ? "before" : "at";
    await this.start({ sessionFile: sourceFile });
    const result = await this.supervision.call("fork", { entryId, position: where });
    if (result.cancelled) throw new RuntimeHostError("runtime_failed", "The fork was cancelled by an extension");
    this.publisher.applySnapshot(result.snapshot);
    return result.selectedText ?? null;
  }
}
