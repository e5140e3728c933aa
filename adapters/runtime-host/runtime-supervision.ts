/**
 * Worker supervision of one runtime: owns the worker client (starting, stopping, replacing it), the runtime
 * status, the watchdog's inputs (last activity, last worker message, last progress), the recovery count and
 * the supervision log.
 *
 * An unexpected worker exit, or a failing watchdog probe, replaces the worker and reopens the same session
 * file (`recover`); the runtime's other parts are told through `worker.lost` (the queue holds as on reload,
 * pending confirmations drop). `maxRecoveries` consecutive recoveries without a finished run in between, then
 * the next failure → `paused` (no worker; actions answer 409 until `reopen`). Policy (when to probe, capacity,
 * idle cleanup) is the host's (runtime-host.ts).
 */
import * as fs from "node:fs";
import type { RuntimeDiagnostic } from "../../domain/runtime/runtime-types.ts";
import type {
  ChildSessionOptions,
  NewSessionTarget,
  RuntimePayload,
  RuntimeRequestType,
  RuntimeResultMap,
  RuntimeSnapshot,
  SessionKind,
  WorkerOpenOptions,
} from "../runtime-protocol/runtime-protocol.ts";
import type { RequestOptions, RuntimeWorkerClient, WorkerNotification } from "../runtime-client/worker-client.ts";
import type { HostClock } from "./host-clock.ts";
import { asHostError, errorText, RuntimeHostError, SESSION_NOT_FOUND } from "./runtime-host-error.ts";

export type OpenTarget = { sessionFile: string } | { new: NewSessionTarget };

export type RuntimeStatus = "starting" | "ready" | "recovering" | "paused" | "closed";

/** A request to the current worker (awaiting its start); failures become RuntimeHostErrors. */
export type WorkerCall = <T extends RuntimeRequestType>(
  type: T,
  payload: RuntimePayload<T>,
  options?: RequestOptions,
) => Promise<RuntimeResultMap[T]>;

export type ProbeVerdict = "ok" | "unresponsive" | "stalled";

export interface ProbeLimits {
  livenessMs: number;
  noProgressMs: number;
}

export interface ProbeInputs {
  now: number;
  lastMessageAt: number;
  lastProgressAt: number;
  /** pi is running or compacting. */
  piBusy: boolean;
  /** A confirmation waits for the user (no progress is expected meanwhile). */
  waitingForUser: boolean;
}

/**
 * The watchdog's verdict with the reason for the log. Liveness: no valid worker message (heartbeats
 * included) for `livenessMs`. Progress: pi busy without any pi event for `noProgressMs`, unless a confirmation
 * is waiting for the user. Non-positive limits disable a check.
 */
export function probeVerdict(
  inputs: ProbeInputs,
  limits: ProbeLimits,
): { verdict: "ok" } | { verdict: "unresponsive" | "stalled"; reason: string } {
  const silentFor = inputs.now - inputs.lastMessageAt;
  if (limits.livenessMs > 0 && silentFor > limits.livenessMs)
    return { verdict: "unresponsive", reason: `worker sent nothing for ${silentFor} ms` };
  const stuckFor = inputs.now - inputs.lastProgressAt;
  if (limits.noProgressMs > 0 && inputs.piBusy && !inputs.waitingForUser && stuckFor > limits.noProgressMs) {
    return { verdict: "stalled", reason: `no progress for ${stuckFor} ms while busy` };
  }
  return { verdict: "ok" };
}

/** What a replacement worker needs to know about the session it reopens. */
export interface ReopenIdentity {
  sessionId: string;
  sessionFile: string | null;
  cwd: string;
  kind: SessionKind | null;
  child: ChildSessionOptions | null;
}

/**
 * Where a replacement worker reopens the session: its file once pi has written it, else a new session with
 * the same id (the roster, the selection and clients keep it).
 */
export function reopenTarget(identity: ReopenIdentity, fileExists: (file: string) => boolean): OpenTarget {
  if (identity.sessionFile !== null && fileExists(identity.sessionFile)) return { sessionFile: identity.sessionFile };
  const sameId = identity.sessionId !== "" ? { sessionId: identity.sessionId } : {};
  return {
    new: {
      cwd: identity.cwd,
      ...(identity.kind ? { kind: identity.kind } : {}),
      ...(identity.child ? { child: identity.child } : {}),
      ...sameId,
    },
  };
}

export interface RuntimeSupervisionDeps {
  clock: HostClock;
  createClient: () => RuntimeWorkerClient;
  workerOptions: WorkerOpenOptions;
  /** The API base URL for the worker's extensions (read at every worker start; see runtime-protocol.ts). */
  apiUrl?: () => string | undefined;
  /** Consecutive automatic recoveries allowed before the runtime pauses. */
  maxRecoveries: number;
  openTimeoutMs: number;
  /** The session a replacement worker reopens. */
  identity: () => ReopenIdentity;
  /** pi's state for the progress check. */
  progress: () => { piBusy: boolean; waitingForUser: boolean };
  /** The supervision log changed. */
  logChanged: () => void;
  worker: {
    /** A new worker is opening: nothing is streamed yet and its snapshot revisions start over. */
    starting(): void;
    /** The worker opened `target` and answered with this snapshot. */
    opened(snapshot: RuntimeSnapshot, target: OpenTarget): void;
    /** Every message of the current worker (after the liveness stamp). */
    message(message: WorkerNotification): void;
    /** The worker was disposed on purpose: nothing streams any more. */
    stopped(): void;
    /** The worker failed and was killed: whatever it had going (stream, queue submissions, dialogs) is gone. */
    lost(): void;
    /** The runtime paused: pi's run and compaction count as ended. */
    paused(): void;
  };
}

interface SupervisionState {
  status: RuntimeStatus;
  client: RuntimeWorkerClient | null;
  /** The worker start in progress (actions await it). */
  starting: Promise<RuntimeWorkerClient> | null;
  recovering: boolean;
  /** Consecutive automatic recoveries (reset by a finished run and by `reopen`). */
  recoveries: number;
  /** ms (host clock) of the last action or pi event: idle cleanup and capacity eviction. */
  lastActivityAt: number;
  /** ms (host clock) of the last valid worker message: liveness. */
  lastMessageAt: number;
  /** ms (host clock) of the last pi event, submission or start/end of a wait for the user: progress. */
  lastProgressAt: number;
  log: readonly RuntimeDiagnostic[];
}

const SUPERVISION_LOG_LIMIT = 10;

export interface RuntimeSupervision {
  status(): RuntimeStatus;
  recoveries(): number;
  lastActivityAt(): number;
  lastMessageAt(): number;
  lastProgressAt(): number;
  log(): readonly RuntimeDiagnostic[];
  /** The worker process id (null without a live worker). */
  workerPid(): number | null;
  hasLiveWorker(): boolean;
  /** A worker start is in progress. */
  isStarting(): boolean;
  /** Spawns a worker and opens the target in it. */
  start(target: OpenTarget): Promise<void>;
  /** Explicit reopen of a paused (or broken) runtime: resets the recovery count. */
  reopen(): Promise<void>;
  /** Disposes the worker; the runtime is unusable afterwards. */
  close(timeoutMs: number): Promise<void>;
  /** The watchdog's probe; a failing probe replaces the worker. */
  probe(now: number, limits: ProbeLimits): ProbeVerdict;
  /** Replaces the worker after a failure (see the module comment). */
  recover(reason: string): Promise<void>;
  /**
   * Disposes the worker on purpose (the exit is not a crash), runs `rewrite`, and opens `target` in a new
   * worker whether or not the rewrite succeeded (reset-to-entry).
   */
  restartAround<T>(target: OpenTarget, rewrite: () => T): Promise<T>;
  /** The current worker, awaiting its start; 404 closed, 409 paused, 500 not running. */
  worker(): Promise<RuntimeWorkerClient>;
  call: WorkerCall;
  /** Sends a request to the worker if one is alive, without waiting or reporting (cancelled dialogs). */
  tell<T extends RuntimeRequestType>(type: T, payload: RuntimePayload<T>): void;
  noteActivity(): void;
  noteProgress(): void;
  /** A run finished: the recovery count starts over. */
  runFinished(): void;
  logDiagnostic(record: RuntimeDiagnostic): void;
}

export function createRuntimeSupervision(deps: RuntimeSupervisionDeps): RuntimeSupervision {
  const now = deps.clock.now();
  let state: SupervisionState = {
    status: "starting",
    client: null,
    starting: null,
    recovering: false,
    recoveries: 0,
    lastActivityAt: now,
    lastMessageAt: now,
    lastProgressAt: now,
    log: [],
  };

  const update = (patch: Partial<SupervisionState>): void => {
    state = { ...state, ...patch };
  };

  const appendLog = (record: RuntimeDiagnostic): void => {
    update({ log: [...state.log, record].slice(-SUPERVISION_LOG_LIMIT) });
    deps.logChanged();
  };

  const logSupervision = (record: { status: string; reason: string }): void => {
    appendLog({ type: "supervision", ...record, recoveries: state.recoveries, at: deps.clock.now() });
  };

  const currentStatus = (): RuntimeStatus => state.status;

  const hasLiveWorker = (): boolean => state.client !== null && state.client.exited === null;

  const onMessage = (client: RuntimeWorkerClient, message: WorkerNotification): void => {
    if (client !== state.client) return;
    update({ lastMessageAt: deps.clock.now() });
    deps.worker.message(message);
  };

  const startWorker = (target: OpenTarget): Promise<RuntimeWorkerClient> => {
    const run = (async () => {
      const client = deps.createClient();
      update({ client });
      deps.worker.starting();
      update({ lastMessageAt: deps.clock.now() });
      client.messages$.subscribe((message) => onMessage(client, message));
      client.exit$.subscribe((exit) => {
        if (client !== state.client) return;
        update({ client: null });
        if (exit.expected || state.status === "closed") return;
        void recover(`worker exited (code ${exit.code}, signal ${exit.signal})`);
      });
      try {
        const apiUrl = deps.apiUrl?.();
        const options = apiUrl !== undefined ? { ...deps.workerOptions, apiUrl } : deps.workerOptions;
        const snapshot = await client.request("open", { ...target, options }, { timeoutMs: deps.openTimeoutMs });
        if (state.client !== client) throw new Error("the runtime was closed while opening");
        deps.worker.opened(snapshot, target);
        return client;
      } catch (error) {
        if (state.client === client) update({ client: null });
        client.kill();
        throw asHostError(error, "Cannot open the session");
      }
    })();
    update({ starting: run });
    const clear = (): void => {
      if (state.starting === run) update({ starting: null });
    };
    run.then(clear, clear);
    return run;
  };

  const currentTarget = (): OpenTarget => reopenTarget(deps.identity(), fs.existsSync);

  const recover = async (reason: string): Promise<void> => {
    if (state.status === "closed" || state.status === "paused" || state.recovering) return;
    update({ recovering: true });
    try {
      const old = state.client;
      update({ client: null });
      old?.kill();
      deps.worker.lost();
      // Each failed restart counts as one more recovery, until the limit pauses the runtime.
      for (;;) {
        if (state.recoveries >= deps.maxRecoveries) {
          update({ status: "paused" });
          deps.worker.paused();
          logSupervision({ status: "paused", reason });
          return;
        }
        update({ recoveries: state.recoveries + 1, status: "recovering" });
        logSupervision({ status: "recovering", reason });
        try {
          await startWorker(currentTarget());
          if (state.status !== "recovering") return;
          update({ status: "ready" });
          logSupervision({ status: "ready", reason: "recovered" });
          return;
        } catch (error) {
          // `close` may have run while the restart was awaited.
          if (currentStatus() === "closed") return;
          reason = `restart failed: ${errorText(error)}`;
        }
      }
    } finally {
      update({ recovering: false });
    }
  };

  const worker = async (): Promise<RuntimeWorkerClient> => {
    if (state.status === "closed") throw new RuntimeHostError("session_not_found", SESSION_NOT_FOUND);
    if (state.status === "paused")
      throw new RuntimeHostError("conflict", "The runtime is paused after repeated failures; reopen the session");
    if (state.starting) await state.starting;
    const client = state.client;
    if (!client || client.exited) throw new RuntimeHostError("runtime_failed", "The runtime worker is not running");
    return client;
  };

  const call: WorkerCall = async (type, payload, options) => {
    const client = await worker();
    try {
      return await client.request(type, payload, options);
    } catch (error) {
      throw asHostError(error, `${type} failed`);
    }
  };

  return {
    status: currentStatus,
    recoveries: () => state.recoveries,
    lastActivityAt: () => state.lastActivityAt,
    lastMessageAt: () => state.lastMessageAt,
    lastProgressAt: () => state.lastProgressAt,
    log: () => state.log,
    workerPid: () => (state.client && !state.client.exited ? state.client.pid : null),
    hasLiveWorker,
    isStarting: () => state.starting !== null,
    async start(target) {
      await startWorker(target);
      update({ status: "ready" });
    },
    async reopen() {
      if (state.status === "closed") throw new RuntimeHostError("session_not_found", SESSION_NOT_FOUND);
      if (state.status !== "paused" && hasLiveWorker()) return;
      update({ recoveries: 0, status: "recovering" });
      logSupervision({ status: "reopening", reason: "explicit reopen" });
      await startWorker(currentTarget());
      update({ status: "ready" });
      logSupervision({ status: "ready", reason: "reopened" });
    },
    async close(timeoutMs) {
      if (state.status === "closed") return;
      update({ status: "closed" });
      deps.worker.stopped();
      const client = state.client;
      update({ client: null });
      if (state.starting) await state.starting.catch(() => {});
      // A start in progress may have set its client meanwhile.
      const late = state.client;
      update({ client: null });
      await Promise.all([client, late].filter((c): c is RuntimeWorkerClient => c !== null).map((c) => c.dispose({ timeoutMs })));
    },
    probe(at, limits) {
      if (state.status !== "ready" || state.starting !== null || !hasLiveWorker()) return "ok";
      const outcome = probeVerdict(
        { now: at, lastMessageAt: state.lastMessageAt, lastProgressAt: state.lastProgressAt, ...deps.progress() },
        limits,
      );
      if (outcome.verdict !== "ok") void recover(outcome.reason);
      return outcome.verdict;
    },
    recover,
    async restartAround(target, rewrite) {
      update({ status: "recovering" });
      const client = state.client;
      update({ client: null });
      deps.worker.stopped();
      if (client) await client.dispose();
      try {
        return rewrite();
      } finally {
        await startWorker(target);
        update({ status: "ready" });
      }
    },
    worker,
    call,
    tell(type, payload) {
      const client = state.client;
      if (client && !client.exited) void client.request(type, payload).catch(() => {});
    },
    noteActivity: () => update({ lastActivityAt: deps.clock.now() }),
    noteProgress: () => update({ lastProgressAt: deps.clock.now() }),
    runFinished: () => update({ recoveries: 0 }),
    logDiagnostic: (record) => appendLog({ ...record, at: deps.clock.now() }),
  };
}
