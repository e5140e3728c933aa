/**
 * The runtime host: every open session's `RuntimeHandle` (one worker process each), the active-session
 * selection, and supervision. It satisfies api/runtime-host.ts `RuntimeHostView` structurally (adapters may
 * not import api/): `activeWorkers()`, `openRuntimes()`, `events$`.
 *
 * Policies (all injectable through `RuntimeHostOptions`):
 * - capacity (default 16 workers, pending starts and `reserveCapacity` slots such as GET /api/pi/state
 *   previews included): at the limit, the least recently active IDLE
 *   runtime (not selected, not busy, empty queue, no pending confirmation) is closed to make room; when none
 *   is idle, `open`/`fork` throw RuntimeHostError 503 "Runtime capacity reached".
 * - idle cleanup (default 30 min; ≤0 disables): a sweep every `idleSweepMs` closes idle runtimes (as above,
 *   never a streaming one, never the selected one) whose last action or pi event is older than `idleMs`.
 *   A closed runtime is announced with `runtime_removed` and `runtime_roster`; scoped routes reopen it.
 * - watchdog (probe every `watchdogMs`, default 60 s; ≤0 disables): liveness = any valid worker message
 *   (heartbeats every `heartbeatMs`) within `livenessMs`; progress = a busy runtime (streaming/compacting)
 *   must produce a pi event within `noProgressMs` (default 15 min), except while a confirmation waits for
 *   the user. A failed probe replaces the worker like a crash does.
 * - replacement: a crashed or stalled worker is replaced and the session file reopened; after `maxRecoveries`
 *   (3) consecutive recoveries the next failure leaves the runtime `paused` until `open` (or `reopen`) again.
 * - shutdown: stops the timers, refuses new opens, disposes every worker (SIGKILL after `disposeTimeoutMs`).
 * - tool processes: forked workers carry a process tag with this host's owner key (worker-processes.ts); a
 *   worker's tagged processes are killed when it exits, and at construction the host sweeps tagged leftovers
 *   of earlier servers of the same agent dir that are no longer running (`orphanSweep`).
 * - spare worker (`spareWorker`, off by default; api/main.ts turns it on): one worker started ahead, which
 *   imports pi (`preload`) and then waits, opening nothing and writing nothing. The next runtime or preview
 *   (`createWorkerClient`) takes it instead of starting a process, so its `open` skips the start and pi's
 *   import (seconds); a new spare is started once the taken one has opened its session (or is gone). The
 *   spare is not a runtime: not in the roster, not in `activeWorkers()`, outside the capacity (so at most
 *   capacity + 1 worker processes); it carries the process tag like every worker, and `shutdown` kills it.
 *
 * The `FauxScript` (LEYLINE_FAUX_RESPONSES) is owned here and shared by every worker the host creates.
 *
 * Child runtimes (subagents): `open({ new: { cwd, child } })` opens a new child session (see
 * runtime-protocol.ts `ChildSessionOptions`) like any runtime: registered, in the roster, counted toward
 * capacity, never selected. The API base URL (`apiUrl`, set by api/main.ts once it listens) reaches every
 * worker started afterwards: LEYLINE_API_URL in a forked worker's environment and `open.options.apiUrl`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { filter, firstValueFrom, type Observable, Subject, take } from "rxjs";
import type { MovedLeaf } from "../../domain/session-tree-view.ts";
import type { CaptureWrite } from "../../domain/traces/trace-records.ts";
import { FauxScript } from "../runtime-protocol/faux-script.ts";
import { API_URL_ENV, type NewSessionTarget, type WorkerOpenOptions } from "../runtime-protocol/runtime-protocol.ts";
import { ForkedWorkerClient, type RuntimeWorkerClient } from "../runtime-client/worker-client.ts";
import { ownerKey, sweepOrphanedProcesses } from "../runtime-protocol/worker-processes.ts";
import { leylineTrashDirOf, resolveAgentDir } from "../session-files/agent-dir.ts";
import { type HostClock, type HostTimer, systemClock } from "./host-clock.ts";
import { type HostEvent, type ImagePreparer, type OpenTarget, RuntimeHandle } from "./runtime-handle.ts";
import { RuntimeHostError, SESSION_NOT_FOUND } from "./runtime-host-error.ts";

export interface RuntimeHostOptions {
  /** pi's agent dir for every worker (default: the worker's PI_CODING_AGENT_DIR). */
  agentDir?: string;
  extensionPaths?: string[];
  tools?: string[];
  /** The shared faux script; default `FauxScript.fromEnv()` (LEYLINE_FAUX_RESPONSES). null disables faux. */
  fauxScript?: FauxScript | null;
  /** Faux streaming speed (tests slow it down to interrupt a run). */
  faux?: { tokensPerSecond?: number; tokenSize?: number };
  /** Worker factory; default a `ForkedWorkerClient` child process. Tests inject `InProcessWorkerClient`. */
  createClient?: (context: { fauxScript: FauxScript | null }) => RuntimeWorkerClient;
  /** Environment of forked workers (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The API base URL workers' extensions call (LEYLINE_API_URL); read at every worker start. */
  apiUrl?: () => string | undefined;
  clock?: HostClock;
  capacity?: number;
  idleMs?: number;
  idleSweepMs?: number;
  watchdogMs?: number;
  livenessMs?: number;
  noProgressMs?: number;
  heartbeatMs?: number;
  maxRecoveries?: number;
  /** Expiry of confirmations whose extension set no timeout (default none). */
  confirmationTimeoutMs?: number | null;
  openTimeoutMs?: number;
  disposeTimeoutMs?: number;
  /** Keep one worker started ahead for the next open or preview (see the module comment). Default false. */
  spareWorker?: boolean;
  /**
   * Leyline's vision attachments folder (`<data dir>/vision-attachments`), exported to every worker as
   * LEYLINE_VISION_DIR for the bundled vision extension (domain/vision/vision-attachments.ts).
   */
  visionDir?: string;
  /** The preparation of prompts with images (api/app.ts: adapters/vision/vision-preparation.ts). */
  prepareImages?: ImagePreparer;
}

/** The spare worker as tests and diagnostics see it. */
export interface SpareWorkerInfo {
  readonly pid: number | null;
  /** Its LEYLINE_WORKER tag (null for an in-process worker or without /proc). */
  readonly processTag: string | null;
  /** Resolves true once pi is imported in it, false if it failed or was stopped first. */
  readonly warm: Promise<boolean>;
}

export const DEFAULT_CAPACITY = 16;
export const DEFAULT_IDLE_MS = 1_800_000;
export const DEFAULT_WATCHDOG_MS = 60_000;
export const DEFAULT_NO_PROGRESS_MS = 900_000;
export const DEFAULT_HEARTBEAT_MS = 5_000;
export const DEFAULT_MAX_RECOVERIES = 3;

/** One worker slot of the host's capacity, held until `release()` (see `RuntimeHost.reserveCapacity`). */
export interface CapacityReservation {
  release(): void;
}

/** Open by file (reuses an open handle for the same file) or create a new session. */
export type OpenRequest = { sessionFile: string } | { new: NewSessionTarget };

export class RuntimeHost {
  readonly fauxScript: FauxScript | null;
  private readonly subject = new Subject<HostEvent>();
  readonly events$: Observable<HostEvent> = this.subject.asObservable();
  private readonly leafSubject = new Subject<{ readonly file: string; readonly leaf: MovedLeaf | null }>();
  /**
   * A runtime's leaf moved without writing (a /tree navigation) or that ended (null: a write, or the runtime closed):
   * the read side shows the moved leaf's branch meanwhile (api/app.ts passes it to the detail feeds).
   */
  readonly leafMoves$ = this.leafSubject.asObservable();
  private readonly traceSubject = new Subject<{ readonly handle: RuntimeHandle; readonly writes: readonly CaptureWrite[] }>();
  /** Every runtime's trace capture, as its worker reports it (adapters/traces/trace-service.ts stores it). */
  readonly traceWrites$ = this.traceSubject.asObservable();
  private readonly lossSubject = new Subject<{ readonly handle: RuntimeHandle }>();
  /** A runtime's worker died or was killed (its run's trace ends; the runtime recovers with a new worker). */
  readonly workerLosses$ = this.lossSubject.asObservable();
  private readonly clock: HostClock;
  private readonly registered: RuntimeHandle[] = [];
  /** Handles still starting (they count toward capacity). */
  private readonly pendingHandles = new Set<RuntimeHandle>();
  private readonly openingFiles = new Map<string, Promise<RuntimeHandle>>();
  /** Capacity slots held through `reserveCapacity` (previews; a launch until its handle is pending). */
  private reservedSlots = 0;
  private selected: string | null = null;
  private shuttingDown = false;
  /** The worker started ahead (`spareWorker`), until a runtime or preview takes it. */
  private spare: { client: RuntimeWorkerClient; warm: Promise<boolean> } | null = null;
  private idleTimer: HostTimer | null = null;
  private watchdogTimer: HostTimer | null = null;
  private readonly workerOptions: WorkerOpenOptions;
  /**
   * `<agentDir>/leyline-trash`: every copy Leyline keeps before it deletes or rewrites a session file, wherever
   * the file lies (a session pi wrote with --session-dir inside a project included).
   */
  readonly trashDir: string;
  /** The owner key of this host's worker process tags (worker-processes.ts): one per agent dir. */
  readonly processOwner: string;
  /** The start-up sweep of tool processes a crashed earlier server left behind (the pids it killed). */
  readonly orphanSweep: Promise<number[]>;

  constructor(private readonly options: RuntimeHostOptions = {}) {
    this.clock = options.clock ?? systemClock;
    // One agent dir for the trash and the process tags: the given one, else PI_CODING_AGENT_DIR of the workers' env.
    const agentDir = options.agentDir ?? resolveAgentDir(options.env ?? process.env);
    this.trashDir = leylineTrashDirOf(agentDir);
    this.fauxScript = options.fauxScript === undefined ? FauxScript.fromEnv() : options.fauxScript;
    this.workerOptions = {
      ...(options.agentDir !== undefined ? { agentDir: options.agentDir } : {}),
      ...(options.extensionPaths ? { extensionPaths: options.extensionPaths } : {}),
      ...(options.tools ? { tools: options.tools } : {}),
      ...(this.fauxScript ? { faux: options.faux ?? {} } : {}),
      ...(options.visionDir !== undefined ? { visionDir: options.visionDir } : {}),
      heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    };
    this.processOwner = ownerKey(agentDir);
    this.orphanSweep = sweepOrphanedProcesses(this.processOwner).catch(() => []);
    this.scheduleIdleSweep();
    this.scheduleWatchdog();
    this.refillSpare();
  }

  // ------------------------------------------------------------------------------------------------------
  // RuntimeHostView
  // ------------------------------------------------------------------------------------------------------

  activeWorkers(): number {
    return [...this.registered, ...this.pendingHandles].filter((handle) => handle.hasLiveWorker).length;
  }

  /** Open runtimes in roster (open) order. */
  openRuntimes(): readonly RuntimeHandle[] {
    return [...this.registered];
  }

  handles(): readonly RuntimeHandle[] {
    return this.openRuntimes();
  }

  get(sessionId: string): RuntimeHandle | undefined {
    return this.registered.find((handle) => handle.sessionId === sessionId);
  }

  /** The handle or 404 "Session not found". */
  require(sessionId: string): RuntimeHandle {
    const handle = this.get(sessionId);
    if (!handle) throw new RuntimeHostError("session_not_found", SESSION_NOT_FOUND);
    return handle;
  }

  findByFile(sessionFile: string): RuntimeHandle | undefined {
    const resolved = path.resolve(sessionFile);
    return this.registered.find((handle) => handle.sessionFile !== null && path.resolve(handle.sessionFile) === resolved);
  }

  get activeSessionId(): string | null {
    return this.selected !== null && this.get(this.selected) ? this.selected : null;
  }

  /** True once `shutdown` began (runs cut from then on were interrupted by the stop, not failed). */
  get stopping(): boolean {
    return this.shuttingDown;
  }

  select(sessionId: string): RuntimeHandle {
    const handle = this.require(sessionId);
    this.selected = sessionId;
    return handle;
  }

  /** The selected runtime (legacy routes), or 500 "No active session". */
  active(): RuntimeHandle {
    const id = this.activeSessionId;
    const handle = id === null ? undefined : this.get(id);
    if (!handle) throw new RuntimeHostError("no_active_session", "No active session");
    return handle;
  }

  // ------------------------------------------------------------------------------------------------------
  // Opening and closing
  // ------------------------------------------------------------------------------------------------------

  async open(request: OpenRequest, options: { select?: boolean } = {}): Promise<RuntimeHandle> {
    const handle = "sessionFile" in request ? await this.openFile(request.sessionFile) : await this.openNew(request.new);
    if (options.select) this.selected = handle.sessionId;
    return handle;
  }

  private async openFile(sessionFile: string): Promise<RuntimeHandle> {
    if (typeof sessionFile !== "string" || sessionFile === "")
      throw new RuntimeHostError("invalid_request", "sessionFile must be a non-empty string");
    const file = path.resolve(sessionFile);
    const existing = this.findByFile(file);
    if (existing) {
      if (existing.status === "paused") await existing.reopen();
      return existing;
    }
    const opening = this.openingFiles.get(file);
    if (opening) return opening;
    if (!fs.existsSync(file)) throw new RuntimeHostError("session_not_found", SESSION_NOT_FOUND);
    const run = this.launch((handle) => handle.start({ sessionFile: file }));
    this.openingFiles.set(file, run);
    try {
      return await run;
    } finally {
      this.openingFiles.delete(file);
    }
  }

  private async openNew(target: NewSessionTarget): Promise<RuntimeHandle> {
    if (typeof target?.cwd !== "string" || target.cwd === "")
      throw new RuntimeHostError("invalid_request", "cwd must be a non-empty string");
    if (target.kind !== undefined && target.kind !== "session" && target.kind !== "research")
      throw new RuntimeHostError("invalid_request", "kind must be session or research");
    const open: OpenTarget = {
      new: {
        cwd: path.resolve(target.cwd),
        ...(target.kind ? { kind: target.kind } : {}),
        ...(target.child ? { child: target.child } : {}),
      },
    };
    return this.launch((handle) => handle.start(open));
  }

  /**
   * Forks `sourceId` at `entryId` into a NEW runtime (its own worker and file) and selects it. The source
   * runtime, its queue and native inputs stay as they are. `position`: "at" keeps the entry (default),
   * "before" forks before a user message (pi's editor fork), "auto" is "before" for a user message, else "at".
   */
  async fork(sourceId: string, entryId: unknown, options: { position?: "before" | "at" | "auto" } = {}): Promise<RuntimeHandle> {
    return (await this.forkWithText(sourceId, entryId, options)).handle;
  }

  /** `fork`, with the text of the user message it forked before (pi's /fork hands it back for the composer). */
  async forkWithText(
    sourceId: string,
    entryId: unknown,
    options: { position?: "before" | "at" | "auto" } = {},
  ): Promise<{ handle: RuntimeHandle; editorText: string | null }> {
    if (typeof entryId !== "string" || entryId === "") throw new RuntimeHostError("invalid_request", "entryId must be a non-empty string");
    const source = this.require(sourceId);
    if (source.active().state.isCompacting) throw new RuntimeHostError("action_blocked", "Cannot fork while the session is compacting");
    const file = source.sessionFile;
    if (source.fileDeleted()) throw new RuntimeHostError("session_not_found", SESSION_NOT_FOUND);
    if (file === null || !fs.existsSync(file)) throw new RuntimeHostError("runtime_failed", "Cannot fork an unsaved session");
    let editorText: string | null = null;
    const handle = await this.launch(async (fresh) => {
      editorText = await fresh.startFork(file, entryId, options.position ?? "at");
    });
    this.selected = handle.sessionId;
    return { handle, editorText };
  }

  /** Closes one runtime (DELETE, idle cleanup, eviction): disposes its worker, announces the removal. */
  async close(sessionId: string): Promise<void> {
    const handle = this.require(sessionId);
    await this.closeHandle(handle);
  }

  private async closeHandle(handle: RuntimeHandle): Promise<void> {
    const index = this.registered.indexOf(handle);
    if (index !== -1) this.registered.splice(index, 1);
    const id = handle.sessionId;
    if (this.selected === id) this.selected = null;
    await handle.close(this.options.disposeTimeoutMs ?? 5000);
    if (index !== -1) {
      this.emitGlobal("runtime_removed", { id });
      this.emitRoster();
    }
  }

  private createHandle(): RuntimeHandle {
    const apiUrl = this.options.apiUrl;
    return new RuntimeHandle({
      clock: this.clock,
      createClient: () => this.createWorkerClient(),
      workerOptions: this.workerOptions,
      ...(apiUrl ? { apiUrl } : {}),
      emit: (event) => this.subject.next(event),
      maxRecoveries: this.options.maxRecoveries ?? DEFAULT_MAX_RECOVERIES,
      confirmationTimeoutMs: this.options.confirmationTimeoutMs ?? null,
      openTimeoutMs: this.options.openTimeoutMs ?? 60_000,
      trashDir: this.trashDir,
      onLeafMoved: (file, leaf) => this.leafSubject.next({ file, leaf }),
      onTrace: (handle, writes) => this.traceSubject.next({ handle, writes }),
      onWorkerLost: (handle) => this.lossSubject.next({ handle }),
      ...(this.options.prepareImages ? { prepareImages: this.options.prepareImages } : {}),
      onIdentityChanged: (_handle, previousId) => {
        if (this.selected === previousId) this.selected = _handle.sessionId;
        this.emitGlobal("runtime_removed", { id: previousId });
        this.emitRoster();
      },
    });
  }

  // ------------------------------------------------------------------------------------------------------
  // Workers and the spare
  // ------------------------------------------------------------------------------------------------------

  /**
   * A worker for a new runtime or a preview: the spare when there is one (replaced once this worker has opened
   * its session, or is gone), else a new worker.
   */
  createWorkerClient(): RuntimeWorkerClient {
    const spare = this.spare;
    this.spare = null;
    if (spare === null || spare.client.exited !== null) {
      const client = this.spawnClient();
      if (this.options.spareWorker === true) this.refillAfterOpen(client);
      return client;
    }
    this.refillAfterOpen(spare.client);
    return spare.client;
  }

  /** The spare worker, or null when there is none (not enabled, taken and not yet replaced, stopped). */
  spareWorker(): SpareWorkerInfo | null {
    const spare = this.spare;
    if (spare === null) return null;
    const client = spare.client;
    return { pid: client.pid, processTag: client instanceof ForkedWorkerClient ? client.processTag : null, warm: spare.warm };
  }

  private spawnClient(): RuntimeWorkerClient {
    const fauxScript = this.fauxScript;
    if (this.options.createClient) return this.options.createClient({ fauxScript });
    return ForkedWorkerClient.spawn({ fauxScript, processOwner: this.processOwner, ...this.workerEnv() });
  }

  /** Starts a spare when one is wanted and there is none. */
  private refillSpare(): void {
    if (this.options.spareWorker !== true || this.shuttingDown || this.spare !== null) return;
    const client = this.spawnClient();
    const warm = client.request("preload", {}, { timeoutMs: 0 }).then(
      () => true,
      () => false,
    );
    this.spare = { client, warm };
    client.exit$.subscribe(() => {
      if (this.spare?.client === client) this.spare = null;
    });
  }

  /**
   * The next spare starts when `client` has opened its session (its first snapshot), or when it is gone: not
   * earlier, so that the two do not share the CPU while the person waits for the first one.
   */
  private refillAfterOpen(client: RuntimeWorkerClient): void {
    client.messages$
      .pipe(
        filter((message) => message.type === "snapshot"),
        take(1),
      )
      .subscribe({ complete: () => this.refillSpare() });
  }

  /** The environment option of a forked worker: the host's `env` plus LEYLINE_API_URL when it is known. */
  private workerEnv(): { env?: NodeJS.ProcessEnv } {
    const url = this.options.apiUrl?.();
    if (url === undefined) return this.options.env ? { env: this.options.env } : {};
    return { env: { ...(this.options.env ?? process.env), [API_URL_ENV]: url } };
  }

  /** Capacity check, start, registration and announcement of a new handle. */
  private async launch(start: (handle: RuntimeHandle) => Promise<void>): Promise<RuntimeHandle> {
    if (this.shuttingDown) throw new RuntimeHostError("capacity_reached", "The server is shutting down");
    // The slot passes from the reservation to the pending handle with no await between them.
    const slot = await this.reserveCapacity();
    let handle: RuntimeHandle;
    try {
      handle = this.createHandle();
      this.pendingHandles.add(handle);
    } finally {
      slot.release();
    }
    try {
      await start(handle);
    } catch (error) {
      this.pendingHandles.delete(handle);
      await handle.close(this.options.disposeTimeoutMs ?? 5000);
      throw error;
    }
    this.pendingHandles.delete(handle);
    if (this.shuttingDown) {
      await handle.close(this.options.disposeTimeoutMs ?? 5000);
      throw new RuntimeHostError("capacity_reached", "The server is shutting down");
    }
    // Two opens of one file can race through fork/new paths only; a duplicate file yields to the first.
    const duplicate = handle.sessionFile !== null ? this.findByFile(handle.sessionFile) : undefined;
    if (duplicate) {
      await handle.close(this.options.disposeTimeoutMs ?? 5000);
      return duplicate;
    }
    this.registered.push(handle);
    handle.publish();
    this.emitRoster();
    return handle;
  }

  /**
   * Holds one worker slot of the capacity: for `launch`, and for workers the host never registers (the
   * GET /api/pi/state previews, api/runtime-preview.ts), so that they count against the same limit. At the
   * limit the least recently active idle runtime is closed first, as for an open; when none is idle this
   * throws 503. The slot is taken in the same synchronous step as the last check, so concurrent callers
   * never overshoot. `release()` (idempotent) gives it back.
   */
  async reserveCapacity(): Promise<CapacityReservation> {
    if (this.shuttingDown) throw new RuntimeHostError("capacity_reached", "The server is shutting down");
    const capacity = this.options.capacity ?? DEFAULT_CAPACITY;
    const used = (): number =>
      this.registered.filter((handle) => handle.status !== "paused").length + this.pendingHandles.size + this.reservedSlots;
    while (used() >= capacity) {
      const victim = this.idleCandidates().sort((a, b) => a.lastActivityAt - b.lastActivityAt)[0];
      if (!victim) throw new RuntimeHostError("capacity_reached", `Runtime capacity reached (${capacity} workers in use, none idle)`);
      await this.closeHandle(victim);
    }
    this.reservedSlots += 1;
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        this.reservedSlots -= 1;
      },
    };
  }

  private idleCandidates(): RuntimeHandle[] {
    return this.registered.filter((handle) => handle.sessionId !== this.selected && handle.isIdle());
  }

  // ------------------------------------------------------------------------------------------------------
  // Supervision timers
  // ------------------------------------------------------------------------------------------------------

  /** Closes runtimes idle for longer than `idleMs`; returns the closed session ids. */
  async sweepIdle(): Promise<string[]> {
    const idleMs = this.options.idleMs ?? DEFAULT_IDLE_MS;
    if (idleMs <= 0) return [];
    const now = this.clock.now();
    const victims = this.idleCandidates().filter((handle) => now - handle.lastActivityAt >= idleMs);
    for (const victim of victims) await this.closeHandle(victim);
    return victims.map((victim) => victim.sessionId);
  }

  /** One watchdog round over every runtime; returns the runtimes that were replaced and why. */
  probe(): Array<{ sessionId: string; verdict: "unresponsive" | "stalled" }> {
    const limits = {
      livenessMs: this.options.livenessMs ?? Math.max(30_000, 6 * (this.options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS)),
      noProgressMs: this.options.noProgressMs ?? DEFAULT_NO_PROGRESS_MS,
    };
    const now = this.clock.now();
    const replaced: Array<{ sessionId: string; verdict: "unresponsive" | "stalled" }> = [];
    for (const handle of this.registered) {
      const verdict = handle.probe(now, limits);
      if (verdict !== "ok") replaced.push({ sessionId: handle.sessionId, verdict });
    }
    return replaced;
  }

  private scheduleIdleSweep(): void {
    const idleMs = this.options.idleMs ?? DEFAULT_IDLE_MS;
    if (idleMs <= 0) return;
    const every = this.options.idleSweepMs ?? Math.min(60_000, Math.max(1000, Math.floor(idleMs / 4)));
    this.idleTimer = this.clock.schedule(every, () => {
      if (this.shuttingDown) return;
      this.scheduleIdleSweep();
      void this.sweepIdle().catch(() => {});
    });
  }

  private scheduleWatchdog(): void {
    const every = this.options.watchdogMs ?? DEFAULT_WATCHDOG_MS;
    if (every <= 0) return;
    this.watchdogTimer = this.clock.schedule(every, () => {
      if (this.shuttingDown) return;
      this.probe();
      this.scheduleWatchdog();
    });
  }

  /** Stops supervision, refuses new opens, disposes every worker. Idempotent. */
  async shutdown(): Promise<void> {
    this.shuttingDown = true;
    this.idleTimer?.cancel();
    this.watchdogTimer?.cancel();
    const handles = [...this.registered, ...this.pendingHandles];
    this.registered.length = 0;
    this.selected = null;
    // The spare holds no session: nothing to dispose gracefully.
    const spare = this.spare?.client ?? null;
    this.spare = null;
    spare?.kill();
    await Promise.all([
      ...handles.map((handle) => handle.close(this.options.disposeTimeoutMs ?? 5000)),
      ...(spare !== null ? [firstValueFrom(spare.exit$)] : []),
    ]);
    this.subject.complete();
    this.traceSubject.complete();
    this.lossSubject.complete();
  }

  // ------------------------------------------------------------------------------------------------------
  // Events
  // ------------------------------------------------------------------------------------------------------

  private emitGlobal(type: string, data: unknown): void {
    this.subject.next({ type, sessionId: null, data: () => data });
  }

  private emitRoster(): void {
    this.emitGlobal("runtime_roster", { sessionIds: this.registered.map((handle) => handle.sessionId) });
  }
}
