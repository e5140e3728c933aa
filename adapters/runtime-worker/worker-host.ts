/**
 * The worker logic, independent of the transport: hosts ONE pi `AgentSessionRuntime` (created by
 * worker-runtime.ts from a session file or a new session in a cwd), executes validated `RuntimeRequest`s,
 * forwards session events (streamed output as coalesced deltas: live-event-encoder.ts), snapshots, extension
 * UI requests and extension errors, and asks the control plane for faux turns. After every runtime
 * replacement (fork / new / switch, also extension-initiated) it re-subscribes and re-binds extensions. Used
 * by the child entry (runtime-worker.ts, over process IPC) and by the in-process adapter
 * (in-process-worker-client.ts).
 *
 * Durable prompts: every session's file is created with its user message (durable-session-file.ts), pi's
 * agent loop waits on the user message's `message_end` until it is written, and a prompt is answered
 * "accepted" only then: a kill during the first reply loses neither the session nor the prompt.
 * Reload: pi's `reload()` resets pi-ai's api registry, which drops the providers Leyline registered (the
 * scripted faux provider); they are registered again right after it, and the session keeps its model.
 */
import { STOPPING_SESSIONS_KEY } from "../../domain/runtime/stopping-sessions.ts";
import { randomUUID } from "node:crypto";
import type { AgentSessionEvent, AgentSessionRuntime, ExtensionFactory } from "@earendil-works/pi-coding-agent";
import { watchResearchAppends } from "./branch-research.ts";
import { makeSessionFileDurable } from "./durable-session-file.ts";
import { ExtensionUiBridge, piGlobalTheme } from "./extension-ui-bridge.ts";
import { type FauxTurn } from "../runtime-protocol/faux-script.ts";
import { LiveEventEncoder, type WireEvent } from "./live-event-encoder.ts";
import { createTraceRecorder } from "./trace-recorder.ts";
import { buildRuntimeSnapshot } from "./runtime-snapshot.ts";
import {
  type ControlMessage,
  type ExtensionUiRequest,
  type FaultKind,
  RUNTIME_PROTOCOL_VERSION,
  type RuntimeRequest,
  type RuntimeRequestOf,
  type RuntimeResultMap,
  type RuntimeSnapshot,
  type SessionKind,
  type WorkerMessage,
} from "../runtime-protocol/runtime-protocol.ts";
import { messageIdOf, parseControlMessage } from "../runtime-protocol/runtime-protocol.validate.ts";
import { reapplyScriptedFaux } from "./scripted-faux-provider.ts";
import { createWorkerRuntime } from "./worker-runtime.ts";

type PiModule = typeof import("@earendil-works/pi-coding-agent");
type PiAiModule = typeof import("@earendil-works/pi-ai");

export interface WorkerHostOptions {
  /** Delivers a message to the control plane; `onSent` runs once it is handed to the channel. */
  send: (message: WorkerMessage, onSent?: () => void) => void;
  /** Extension factories (functions cannot cross IPC: in-process adapter only). */
  extensionFactories?: ExtensionFactory[];
  /** Runs after a `dispose` request was answered. */
  onDisposed?: () => void;
  /** How long to wait for a faux turn from the control plane before answering "No scripted reply". */
  fauxTurnTimeoutMs?: number;
}

/** How long pi's loop waits for a user message to reach the session file before it goes on regardless. */
const USER_MESSAGE_PERSIST_TIMEOUT_MS = 5000;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** JSON-safe copy of a value (drops functions and undefined; bigint becomes a string). */
function toJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (_key, inner: unknown) => (typeof inner === "bigint" ? inner.toString() : inner))) as T;
}

export class RuntimeWorkerHost {
  private pi: PiModule | null = null;
  private ai: PiAiModule | null = null;
  private runtime: AgentSessionRuntime | null = null;
  private opening = false;
  private disposed = false;
  private kind: SessionKind | null = null;
  /** The open runtime's file preparation (worker-runtime.ts): cwd check and v1/v2 upgrade before pi opens a file. */
  private prepareSessionFile: ((file: string) => { file: string; cwd: string }) | null = null;
  private revision = 0;
  private unsubscribe: (() => void) | null = null;
  private unsubscribeAgent: (() => void) | null = null;
  /** Prompts past pi's preflight, answered "accepted" once their user message is on disk (or pi returned). */
  private readonly awaitingDurable = new Set<() => void>();
  private unwatchResearch: (() => void) | null = null;
  private snapshotScheduled = false;
  private readonly pendingToolCalls = new Set<string>();
  private readonly fauxWaiters = new Map<string, (turn: FauxTurn | null) => void>();
  private releaseFaux: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private heartbeatSeq = 0;
  private readonly bridge: ExtensionUiBridge;
  /** Session events as the wire carries them: streamed output as coalesced deltas (live-event-encoder.ts). */
  private readonly live = new LiveEventEncoder({ send: (event, known) => this.sendEvent(event, known) });
  /** A session was bound before: the next bind replaces it. */
  private bound = false;
  /** Trace capture of the bound session's runs (trace-recorder.ts). */
  private readonly traces = createTraceRecorder({
    send: (writes) => this.send({ type: "trace", writes }),
    entries: () => this.runtime?.session.sessionManager ?? null,
  });

  constructor(private readonly options: WorkerHostOptions) {
    this.bridge = new ExtensionUiBridge(
      (request: ExtensionUiRequest) => this.send({ type: "extension_ui", request }),
      () => piGlobalTheme((name, watch) => this.requirePi().initTheme(name, watch)),
    );
  }

  /** Announces the worker (call once the transport listens). */
  start(): void {
    this.send({ type: "ready", protocolVersion: RUNTIME_PROTOCOL_VERSION, pid: process.pid });
  }

  /** Entry point for every raw message from the control plane; never throws. */
  handleMessage(raw: unknown): void {
    const parsed = parseControlMessage(raw);
    if (!parsed.ok) {
      const id = messageIdOf(raw);
      if (id !== null) this.send({ type: "reply", id, ok: false, error: `invalid request: ${parsed.error}` });
      else this.fault("protocol", `invalid message rejected: ${parsed.error}`, false);
      return;
    }
    const message: ControlMessage = parsed.value;
    if (message.type === "faux_turn_reply") {
      const waiter = this.fauxWaiters.get(message.id);
      if (waiter) waiter(message.turn);
      else this.fault("protocol", `faux_turn_reply for unknown id ${message.id}`, false);
      return;
    }
    void this.execute(message);
  }

  /** Reports a problem to the control plane. */
  fault(kind: FaultKind, message: string, fatal: boolean): void {
    this.send({ type: "fault", kind, message, fatal });
  }

  /** Disposes the runtime (idempotent); used by dispose requests and by the child when its parent vanished. */
  async shutdown(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    // First stop relaying faux turns: in-process workers share one faux provider that relays every request
    // through the newest registered worker, and a disposing worker answers every request "No scripted reply".
    this.releaseFaux?.();
    this.releaseFaux = null;
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.live.dispose();
    this.bridge.dismissAll("disposed");
    this.traces.abandon("The runtime closed during the run");
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.unsubscribeAgent?.();
    this.unsubscribeAgent = null;
    this.unwatchResearch?.();
    this.unwatchResearch = null;
    const runtime = this.runtime;
    this.runtime = null;
    // pi 1.x aborts the running turn before session_shutdown: tell the bundled extensions first.
    const sessionId = runtime?.session.sessionId;
    if (sessionId !== undefined) stoppingSessions().add(sessionId);
    try {
      if (runtime) await runtime.dispose();
    } finally {
      if (sessionId !== undefined) stoppingSessions().delete(sessionId);
      // Pending faux turns may belong to another in-process runtime (the shared provider relayed them through
      // this worker): their replies can still land while the runtime disposes, so they are cut only now.
      for (const waiter of [...this.fauxWaiters.values()]) waiter(null);
    }
  }

  private send(message: WorkerMessage, onSent?: () => void): void {
    try {
      this.options.send(message, onSent);
    } catch (error) {
      // A message that cannot be sent (channel closed) must not take the worker down.
      process.emitWarning(`runtime worker could not send ${message.type}: ${errorMessage(error)}`);
    }
  }

  private requirePi(): PiModule {
    if (!this.pi) throw new Error("pi is not loaded");
    return this.pi;
  }

  /** The open runtime's preparation of a file pi is about to open (see WorkerRuntime.prepareSessionFile). */
  private prepare(file: string): { file: string; cwd: string } {
    if (this.prepareSessionFile === null) throw new Error("no session is open (send open first)");
    return this.prepareSessionFile(file);
  }

  private requireRuntime(): AgentSessionRuntime {
    if (this.disposed) throw new Error("the runtime was disposed");
    if (!this.runtime) throw new Error("no session is open (send open first)");
    return this.runtime;
  }

  private snapshot(): RuntimeSnapshot {
    const runtime = this.requireRuntime();
    if (!this.ai) throw new Error("pi is not loaded");
    return buildRuntimeSnapshot(this.ai, runtime, {
      revision: ++this.revision,
      kind: this.kind,
      pendingToolCalls: [...this.pendingToolCalls],
    });
  }

  /** Coalesces state-change snapshots into one per macrotask (after pi updated its flags). */
  private scheduleSnapshot(): void {
    if (this.snapshotScheduled) return;
    this.snapshotScheduled = true;
    setImmediate(() => {
      this.snapshotScheduled = false;
      if (!this.runtime || this.disposed) return;
      try {
        this.send({ type: "snapshot", snapshot: this.snapshot() });
      } catch (error) {
        this.fault("runtime", `snapshot failed: ${errorMessage(error)}`, false);
      }
    });
  }

  private async execute(request: RuntimeRequest): Promise<void> {
    let replied = false;
    const reply = (outcome: { ok: true; result: unknown } | { ok: false; error: string }, onSent?: () => void): void => {
      if (replied) return;
      replied = true;
      this.send(
        outcome.ok
          ? { type: "reply", id: request.id, ok: true, result: outcome.result }
          : { type: "reply", id: request.id, ok: false, error: outcome.error },
        onSent,
      );
    };
    try {
      if (request.type === "prompt") {
        await this.prompt(request, (result) => reply({ ok: true, result }));
        return;
      }
      if (request.type === "dispose") {
        await this.shutdown();
        const result: RuntimeResultMap["dispose"] = { disposed: true };
        reply({ ok: true, result }, () => this.options.onDisposed?.());
        return;
      }
      reply({ ok: true, result: await this.run(request) });
    } catch (error) {
      // After an early reply (accepted prompt) the failure is still reported, as a non-fatal fault.
      if (replied) this.fault("runtime", `${request.type} failed after it was accepted: ${errorMessage(error)}`, false);
      reply({ ok: false, error: errorMessage(error) });
    }
  }

  private async prompt(request: RuntimeRequestOf<"prompt">, accept: (result: RuntimeResultMap["prompt"]) => void): Promise<void> {
    const session = this.requireRuntime().session;
    let accepted = false;
    const onAccepted = (): void => {
      this.awaitingDurable.delete(onAccepted);
      if (accepted) return;
      accepted = true;
      if (!request.awaitCompletion) accept({ accepted: true, completed: false });
    };
    // pi runs an extension command to completion before its preflight succeeds; a command may wait on a
    // dialog the control plane answers only after this reply, so accept it up front.
    const commandName = request.text.startsWith("/") ? (request.text.slice(1).split(/\s/, 1)[0] ?? "") : "";
    if (commandName !== "" && session.extensionRunner.getRegisteredCommands().some((command) => command.invocationName === commandName)) {
      onAccepted();
    }
    try {
      await session.prompt(request.text, {
        ...(request.images ? { images: request.images } : {}),
        ...(request.streamingBehavior ? { streamingBehavior: request.streamingBehavior } : {}),
        source: "rpc",
        // Past preflight, pi either returns (queued, or handled by an extension) or appends the user message:
        // the accept waits for whichever comes first (see the agent listener in bind).
        preflightResult: (ok) => {
          if (ok && !accepted) this.awaitingDurable.add(onAccepted);
        },
      });
    } finally {
      this.awaitingDurable.delete(onAccepted);
    }
    if (request.awaitCompletion) accept({ accepted: true, completed: true });
    else onAccepted();
  }

  private async run(request: Exclude<RuntimeRequest, { type: "prompt" | "dispose" }>): Promise<unknown> {
    switch (request.type) {
      case "open":
        return this.open(request);
      case "preload": {
        await this.loadPi();
        const result: RuntimeResultMap["preload"] = { preloaded: true };
        return result;
      }
      case "snapshot":
        return this.snapshot();
      case "steer":
        await this.requireRuntime().session.steer(request.text, request.images);
        return this.snapshot();
      case "followUp":
        await this.requireRuntime().session.followUp(request.text, request.images);
        return this.snapshot();
      case "abort":
        await this.requireRuntime().session.abort();
        return this.snapshot();
      case "clearQueue": {
        const cleared = this.requireRuntime().session.clearQueue();
        this.scheduleSnapshot();
        return cleared;
      }
      case "compact": {
        const result = await this.requireRuntime().session.compact(request.customInstructions);
        return { summary: result.summary, firstKeptEntryId: result.firstKeptEntryId, tokensBefore: result.tokensBefore };
      }
      case "setModel": {
        const session = this.requireRuntime().session;
        const model = session.modelRuntime.getModel(request.provider, request.modelId);
        if (!model) throw new Error(`unknown model ${request.provider}/${request.modelId}`);
        // A model the person picks becomes pi's default, as pi 1.x's model selector does (`persist`); the
        // thinking level stays per session, as in pi's CLI.
        await session.setModel(model, { persist: true });
        return this.snapshot();
      }
      case "setThinkingLevel":
        this.requireRuntime().session.setThinkingLevel(request.level);
        return this.snapshot();
      case "bash": {
        const session = this.requireRuntime().session;
        // Leyline's bash_execution_start/end frame the streamed output (pi 1.x sends only per-chunk updates, dropped in onEvent).
        this.live.bashStarted(request.command);
        try {
          const result = await session.executeBash(request.command, (chunk) => this.live.bashChunk(chunk), {
            ...(request.excludeFromContext !== undefined ? { excludeFromContext: request.excludeFromContext } : {}),
          });
          return toJson(result);
        } finally {
          this.live.bashEnded();
        }
      }
      case "reload":
        await this.reload();
        return this.snapshot();
      case "navigateTree": {
        const { targetId, summarize, customInstructions, replaceInstructions, label } = request;
        const result = await this.requireRuntime().session.navigateTree(targetId, {
          ...(summarize !== undefined ? { summarize } : {}),
          ...(customInstructions !== undefined ? { customInstructions } : {}),
          ...(replaceInstructions !== undefined ? { replaceInstructions } : {}),
          ...(label !== undefined ? { label } : {}),
        });
        this.scheduleSnapshot();
        return {
          cancelled: result.cancelled,
          ...(result.editorText !== undefined ? { editorText: result.editorText } : {}),
          ...(result.aborted !== undefined ? { aborted: result.aborted } : {}),
          ...(result.summaryEntry ? { summaryEntryId: result.summaryEntry.id } : {}),
        };
      }
      case "fork": {
        const result = await this.requireRuntime().fork(request.entryId, { position: request.position ?? "before" });
        return {
          cancelled: result.cancelled,
          ...(result.selectedText !== undefined ? { selectedText: result.selectedText } : {}),
          snapshot: this.snapshot(),
        };
      }
      case "newSession": {
        const result = await this.requireRuntime().newSession();
        return { cancelled: result.cancelled, snapshot: this.snapshot() };
      }
      case "switchSession": {
        const runtime = this.requireRuntime();
        const { file } = this.prepare(request.sessionFile);
        const result = await runtime.switchSession(file);
        return { cancelled: result.cancelled, snapshot: this.snapshot() };
      }
      case "setLabel": {
        const manager = this.requireRuntime().session.sessionManager;
        if (manager.getEntry(request.entryId) === undefined) throw new Error(`Entry ${request.entryId} not found`);
        manager.appendLabelChange(request.entryId, request.label === "" ? undefined : request.label);
        return this.snapshot();
      }
      case "setSessionName":
        this.requireRuntime().session.setSessionName(request.name);
        return this.snapshot();
      case "extensionUiReply": {
        const { requestId, confirmed, value, cancelled } = request;
        const delivered = this.bridge.reply(requestId, {
          ...(confirmed !== undefined ? { confirmed } : {}),
          ...(value !== undefined ? { value } : {}),
          ...(cancelled !== undefined ? { cancelled } : {}),
        });
        return { delivered };
      }
    }
  }

  private async open(request: RuntimeRequestOf<"open">): Promise<RuntimeSnapshot> {
    if (this.runtime || this.opening) throw new Error("a session is already open in this worker");
    if (this.disposed) throw new Error("the worker was disposed");
    this.opening = true;
    try {
      return await this.openRuntime(request);
    } catch (error) {
      this.releaseFaux?.();
      this.releaseFaux = null;
      throw error;
    } finally {
      this.opening = false;
    }
  }

  /** pi and pi-ai, imported once: by a `preload` request (a spare worker) or by the first `open`. */
  private async loadPi(): Promise<{ pi: PiModule; ai: PiAiModule }> {
    const pi = (this.pi ??= await import("@earendil-works/pi-coding-agent"));
    const ai = (this.ai ??= await import("@earendil-works/pi-ai"));
    return { pi, ai };
  }

  private async openRuntime(request: RuntimeRequestOf<"open">): Promise<RuntimeSnapshot> {
    const { pi, ai } = await this.loadPi();
    const opened = await createWorkerRuntime(pi, ai, request, {
      extensionFactories: this.options.extensionFactories ?? [],
      askFauxTurn: (text) => this.askFauxTurn(text),
      onFauxRegistered: (release) => {
        this.releaseFaux = release;
      },
    });
    const runtime = opened.runtime;
    this.runtime = runtime;
    this.kind = opened.kind;
    this.prepareSessionFile = opened.prepareSessionFile;
    runtime.setRebindSession(async () => this.bind());
    await this.bind();
    opened.afterBind?.();
    this.startHeartbeat(request.options?.heartbeatMs ?? 5000);
    return this.snapshot();
  }

  /** (Re)binds the current `runtime.session`: subscription, extension UI, command actions. */
  private async bind(): Promise<void> {
    const runtime = this.requireRuntime();
    this.unsubscribe?.();
    this.bridge.dismissAll("replaced");
    this.pendingToolCalls.clear();
    // A replaced session's listeners are gone: whatever it was streaming never ends on the receivers' side.
    if (this.bound) this.live.reset();
    if (this.bound) this.traces.abandon("The session was replaced during the run");
    this.bound = true;
    const session = runtime.session;
    // Before anything can append: the file is created with the first user message (see the module comment).
    const durable = makeSessionFileDurable(session.sessionManager);
    this.unsubscribe = session.subscribe((event) => this.onEvent(event));
    // pi's loop awaits its agent listeners: this one holds the loop (before the model call) until pi's
    // persistence queue wrote the user message.
    this.unsubscribeAgent?.();
    this.unsubscribeAgent = session.agent.subscribe(async (event) => {
      if (event.type !== "message_end" || event.message.role !== "user") return;
      const written = await durable.persisted(event.message, USER_MESSAGE_PERSIST_TIMEOUT_MS);
      if (!written && session.sessionManager.isPersisted()) {
        this.fault("runtime", `the user message was not written within ${USER_MESSAGE_PERSIST_TIMEOUT_MS} ms`, false);
      }
      for (const accept of [...this.awaitingDurable]) accept();
    });
    // Research entries appended by extensions raise no pi event: snapshot them as they land.
    this.unwatchResearch?.();
    this.unwatchResearch = watchResearchAppends(session.sessionManager, () => this.scheduleSnapshot());
    await session.bindExtensions({
      uiContext: this.bridge.createContext(),
      commandContextActions: {
        waitForIdle: () => runtime.session.agent.waitForIdle(),
        newSession: async (options) => runtime.newSession(options),
        fork: async (entryId, options) => ({ cancelled: (await runtime.fork(entryId, options)).cancelled }),
        navigateTree: async (targetId, options) => ({ cancelled: (await runtime.session.navigateTree(targetId, options)).cancelled }),
        switchSession: async (sessionPath, options) => runtime.switchSession(this.prepare(sessionPath).file, options),
        reload: async () => this.reload(),
      },
      shutdownHandler: () => this.fault("runtime", "an extension requested shutdown", false),
      onError: (error) =>
        this.send({
          type: "extension_error",
          error: {
            extensionPath: error.extensionPath,
            event: error.event,
            error: error.error,
            ...(error.stack ? { stack: error.stack } : {}),
          },
        }),
    });
    this.scheduleSnapshot();
  }

  /** pi's reload, then Leyline's providers again (pi reset the api registry) and the model the session had. */
  private async reload(): Promise<void> {
    const session = this.requireRuntime().session;
    const model = session.model;
    await session.reload();
    const current = this.requireRuntime().session;
    await reapplyScriptedFaux(current.modelRuntime);
    if (model && (current.model?.provider !== model.provider || current.model.id !== model.id)) {
      const again = current.modelRuntime.getModel(model.provider, model.id);
      if (again) await current.setModel(again);
    }
  }

  private onEvent(event: AgentSessionEvent): void {
    // pi 1.x also emits a `!` command's output chunk by chunk; it already streams, coalesced, through
    // executeBash's onChunk (live.bashChunk), so the per-chunk events never travel.
    if (event.type === "bash_execution_update") return;
    if (event.type === "tool_execution_start") this.pendingToolCalls.add(event.toolCallId);
    if (event.type === "tool_execution_end") this.pendingToolCalls.delete(event.toolCallId);
    if (event.type === "agent_end") this.pendingToolCalls.clear();
    this.live.push(event as unknown as WireEvent);
    this.traces.push(event as unknown as WireEvent);
    switch (event.type) {
      case "agent_start":
      case "agent_end":
      case "agent_settled":
      case "turn_end":
      case "queue_update":
      case "compaction_start":
      case "compaction_end":
      case "tool_execution_start":
      case "tool_execution_end":
      case "thinking_level_changed":
      case "session_info_changed":
      case "auto_retry_start":
      case "auto_retry_end":
        this.scheduleSnapshot();
    }
  }

  /** Sends a session event; one the encoder did not build itself is copied JSON-safe first (extension data). */
  private sendEvent(event: WireEvent, known: boolean): void {
    let copy = event;
    if (!known) {
      try {
        copy = toJson(event);
      } catch (error) {
        this.fault("runtime", `event ${event.type} is not serialisable: ${errorMessage(error)}`, false);
        return;
      }
    }
    this.send({ type: "event", event: copy });
  }

  private startHeartbeat(intervalMs: number): void {
    if (intervalMs <= 0 || this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      this.send({ type: "heartbeat", seq: ++this.heartbeatSeq, at: Date.now(), isStreaming: this.runtime?.session.isStreaming ?? false });
    }, intervalMs);
    this.heartbeat.unref();
  }

  private askFauxTurn(latestUserText: string): Promise<FauxTurn | null> {
    if (this.disposed) return Promise.resolve(null);
    const id = randomUUID();
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(null), this.options.fauxTurnTimeoutMs ?? 30_000);
      const finish = (turn: FauxTurn | null): void => {
        clearTimeout(timer);
        this.fauxWaiters.delete(id);
        resolve(turn);
      };
      this.fauxWaiters.set(id, finish);
      this.send({ type: "faux_turn_request", id, latestUserText });
    });
  }
}

/** The ids of sessions this process is shutting down (domain/runtime/stopping-sessions.ts). */
function stoppingSessions(): Set<string> {
  const key = Symbol.for(STOPPING_SESSIONS_KEY);
  const global = globalThis as Record<symbol, unknown>;
  const existing = global[key];
  if (existing instanceof Set) return existing as Set<string>;
  const created = new Set<string>();
  global[key] = created;
  return created;
}
