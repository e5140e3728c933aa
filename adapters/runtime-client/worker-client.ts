/**
 * The control-plane side of one runtime worker. `RuntimeWorkerClient` is the interface the supervisor (and
 * the API) uses; `ForkedWorkerClient` runs the worker in its own Node child process, and
 * `InProcessWorkerClient` (in-process-worker-client.ts) runs the same worker logic in this process for fast
 * unit tests. Both validate every incoming message with `parseWorkerMessage`; an invalid one is reported on
 * `messages$` as `protocol_error` and otherwise ignored. Faux-turn requests are answered from the shared
 * `FauxScript` given in the options.
 *
 * A forked worker carries a process tag (worker-processes.ts) that its tool processes inherit; when it exits,
 * for whatever reason, every process with that tag is killed before the exit is announced, so a recovery or
 * a shutdown never leaves a worker's shell commands running.
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { type Observable, ReplaySubject, Subject } from "rxjs";
import { resolveAgentDir } from "../session-files/agent-dir.ts";
import type { FauxScript } from "../runtime-protocol/faux-script.ts";
import type {
  ControlMessage,
  RuntimePayload,
  RuntimeRequestType,
  RuntimeResultMap,
  WorkerMessage,
} from "../runtime-protocol/runtime-protocol.ts";
import { parseWorkerMessage } from "../runtime-protocol/runtime-protocol.validate.ts";
import { workerEntry } from "./worker-bundle.ts";
import { killWorkerProcesses, newWorkerTag, ownerKey, WORKER_TAG_ENV } from "../runtime-protocol/worker-processes.ts";

/** Everything a client publishes besides replies and faux requests (which it consumes itself). */
export type WorkerNotification =
  | Exclude<WorkerMessage, { type: "reply" } | { type: "faux_turn_request" }>
  /** An invalid message from the worker, rejected. */
  | { type: "protocol_error"; error: string };

export interface WorkerExit {
  code: number | null;
  signal: string | null;
  /** True when the exit followed `dispose()` or `kill()`; false for a crash. */
  expected: boolean;
}

export interface RequestOptions {
  /** Reject after this long (ms); 0 = no timeout. Default 60 000 (10 min for `prompt` with awaitCompletion). */
  timeoutMs?: number;
}

export class WorkerRequestError extends Error {
  constructor(
    readonly requestType: string,
    message: string,
    readonly reason: "rejected" | "timeout" | "exited" | "not-ready",
  ) {
    super(message);
    this.name = "WorkerRequestError";
  }
}

export interface RuntimeWorkerClient {
  readonly id: string;
  /** OS pid of the worker (this process's pid for the in-process adapter); null before spawn. */
  readonly pid: number | null;
  /** Worker notifications (events, snapshots, extension UI, heartbeats, faults, protocol errors); completes on exit. */
  readonly messages$: Observable<WorkerNotification>;
  /** Emits once when the worker is gone (replays to late subscribers). */
  readonly exit$: Observable<WorkerExit>;
  /** Resolves when the worker announced itself; rejects if it exits first. */
  readonly ready: Promise<void>;
  /** The exit, once it happened. */
  readonly exited: WorkerExit | null;
  /** ms timestamp of the last valid message from the worker (liveness). */
  readonly lastMessageAt: number;
  request<T extends RuntimeRequestType>(type: T, payload: RuntimePayload<T>, options?: RequestOptions): Promise<RuntimeResultMap[T]>;
  /** Sends a raw, unvalidated message (tests and diagnostics). */
  sendRaw(message: unknown): void;
  /** Graceful `dispose` request, then SIGKILL after `timeoutMs` (default 5000). Resolves with the exit. */
  dispose(options?: { timeoutMs?: number }): Promise<WorkerExit>;
  /** Immediate hard stop (SIGKILL for a child). */
  kill(): void;
}

export interface WorkerClientOptions {
  /** The shared faux script (LEYLINE_FAUX_RESPONSES); without it faux requests get no turn. */
  fauxScript?: FauxScript | null;
  /** Client id (default a random UUID). */
  id?: string;
}

interface Pending {
  type: string;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout | null;
}

/** Shared request/reply bookkeeping, validation and faux answering for both adapters. */
export abstract class BaseWorkerClient implements RuntimeWorkerClient {
  readonly id: string;
  abstract readonly pid: number | null;
  readonly ready: Promise<void>;
  lastMessageAt = Date.now();
  exited: WorkerExit | null = null;
  protected stopRequested = false;
  private readonly subject = new Subject<WorkerNotification>();
  private readonly exitSubject = new ReplaySubject<WorkerExit>(1);
  private readonly pending = new Map<string, Pending>();
  private resolveReady: () => void = () => {};
  private rejectReady: (error: Error) => void = () => {};
  private isReady = false;
  readonly messages$: Observable<WorkerNotification> = this.subject.asObservable();
  readonly exit$: Observable<WorkerExit> = this.exitSubject.asObservable();

  protected constructor(private readonly clientOptions: WorkerClientOptions) {
    this.id = clientOptions.id ?? randomUUID();
    this.ready = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    this.ready.catch(() => {});
  }

  /** Delivers a message to the worker. */
  protected abstract transmit(message: unknown): void;
  abstract kill(): void;

  sendRaw(message: unknown): void {
    this.transmit(message);
  }

  async request<T extends RuntimeRequestType>(
    type: T,
    payload: RuntimePayload<T>,
    options: RequestOptions = {},
  ): Promise<RuntimeResultMap[T]> {
    if (this.exited) throw new WorkerRequestError(type, `worker ${this.id} has exited`, "exited");
    await this.ready.catch((error: unknown) => {
      throw new WorkerRequestError(
        type,
        `worker ${this.id} never became ready: ${error instanceof Error ? error.message : String(error)}`,
        "not-ready",
      );
    });
    const long = type === "prompt" && (payload as { awaitCompletion?: unknown }).awaitCompletion === true;
    const timeoutMs = options.timeoutMs ?? (long ? 600_000 : 60_000);
    const id = randomUUID();
    return new Promise<RuntimeResultMap[T]>((resolve, reject) => {
      const timer =
        timeoutMs > 0
          ? setTimeout(() => {
              this.pending.delete(id);
              reject(new WorkerRequestError(type, `${type} timed out after ${timeoutMs} ms`, "timeout"));
            }, timeoutMs)
          : null;
      this.pending.set(id, { type, resolve: resolve as (value: unknown) => void, reject, timer });
      try {
        this.transmit({ ...payload, id, type } as ControlMessage);
      } catch (error) {
        this.pending.delete(id);
        if (timer) clearTimeout(timer);
        reject(new WorkerRequestError(type, `cannot send ${type}: ${error instanceof Error ? error.message : String(error)}`, "exited"));
      }
    });
  }

  async dispose(options: { timeoutMs?: number } = {}): Promise<WorkerExit> {
    if (this.exited) return this.exited;
    this.stopRequested = true;
    const timeoutMs = options.timeoutMs ?? 5000;
    const exit = new Promise<WorkerExit>((resolve) => this.exit$.subscribe(resolve));
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    if (this.isReady) this.request("dispose", {}, { timeoutMs }).catch(() => {});
    const outcome = await Promise.race([exit, deadline]);
    clearTimeout(timer);
    if (outcome === "timeout") this.kill();
    return exit;
  }

  /** Entry for every raw message from the worker; never throws. */
  protected receive(raw: unknown): void {
    const parsed = parseWorkerMessage(raw);
    if (!parsed.ok) {
      this.subject.next({ type: "protocol_error", error: parsed.error });
      return;
    }
    this.lastMessageAt = Date.now();
    const message = parsed.value;
    switch (message.type) {
      case "reply": {
        const pending = this.pending.get(message.id);
        if (!pending) {
          const detail = message.ok ? "" : `: ${message.error}`;
          this.subject.next({ type: "protocol_error", error: `reply for unknown request ${message.id}${detail}` });
          return;
        }
        this.pending.delete(message.id);
        if (pending.timer) clearTimeout(pending.timer);
        if (message.ok) pending.resolve(message.result);
        else pending.reject(new WorkerRequestError(pending.type, message.error, "rejected"));
        return;
      }
      case "faux_turn_request": {
        // A worker being stopped may never get the reply (its waiters are cut): answer null WITHOUT taking a
        // turn from the script, so the shared provider asks another worker and the turn is not lost.
        const turn = this.stopRequested ? null : (this.clientOptions.fauxScript?.next(message.latestUserText) ?? null);
        try {
          this.transmit({ type: "faux_turn_reply", id: message.id, turn } satisfies ControlMessage);
        } catch {
          // the worker is going away; its request dies with it
        }
        return;
      }
      case "ready":
        this.isReady = true;
        this.resolveReady();
        break;
    }
    this.subject.next(message);
  }

  /** Marks the worker gone: rejects pending requests, completes the streams. */
  protected markExited(code: number | null, signal: string | null): void {
    if (this.exited) return;
    const exit: WorkerExit = { code, signal, expected: this.stopRequested };
    this.exited = exit;
    this.rejectReady(new Error(`worker exited (code ${code}, signal ${signal})`));
    for (const [id, pending] of this.pending) {
      if (pending.timer) clearTimeout(pending.timer);
      pending.reject(
        new WorkerRequestError(pending.type, `worker exited during ${pending.type} (code ${code}, signal ${signal})`, "exited"),
      );
      this.pending.delete(id);
    }
    this.exitSubject.next(exit);
    this.exitSubject.complete();
    this.subject.complete();
  }
}

export interface ForkedWorkerOptions extends WorkerClientOptions {
  /**
   * Worker entry file (a `.ts` file is loaded through tsx); default the bundle of runtime-worker.ts
   * (worker-bundle.ts), or runtime-worker.ts itself when no bundle can be made.
   */
  workerEntry?: string;
  /** Environment for the child; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Bytes of the child's stderr kept for diagnostics (default 16 KiB). */
  stderrLimit?: number;
  /** Owner key of the process tag (worker-processes.ts); default: from the agent dir of `env`. */
  processOwner?: string;
}

function tsxLoaderUrl(): string {
  return pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;
}

/** A worker in its own Node child process (IPC with JSON serialisation). */
export class ForkedWorkerClient extends BaseWorkerClient {
  readonly child: ChildProcess;
  /** The `LEYLINE_WORKER` value this worker and its descendants carry (null without /proc). */
  readonly processTag: string | null;
  private stderr = "";

  private constructor(options: ForkedWorkerOptions) {
    super(options);
    const entry = options.workerEntry ?? workerEntry();
    const limit = options.stderrLimit ?? 16 * 1024;
    const env = options.env ?? process.env;
    const tagId = /^[A-Za-z0-9-]+$/.test(this.id) ? this.id : randomUUID();
    this.processTag = newWorkerTag(options.processOwner ?? ownerKey(resolveAgentDir(env)), tagId);
    this.child = fork(entry, [], {
      execArgv: entry.endsWith(".ts") ? ["--import", tsxLoaderUrl()] : [],
      serialization: "json",
      env: this.processTag !== null ? { ...env, [WORKER_TAG_ENV]: this.processTag } : env,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    this.child.stdout?.resume();
    this.child.stderr?.setEncoding("utf8");
    this.child.stderr?.on("data", (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-limit);
    });
    this.child.on("message", (message: unknown) => this.receive(message));
    this.child.on("error", (error) => {
      // spawn failure or a send on a closed channel; exit follows for a dead child
      this.stderr = (this.stderr + `\n[client] ${error.message}`).slice(-limit);
    });
    this.child.on("exit", (code, signal) => {
      // The worker's tool processes go first: whoever reacts to the exit (recovery, shutdown) finds them gone.
      const tag = this.processTag;
      if (tag === null) this.markExited(code, signal);
      else
        void killWorkerProcesses(tag).then(
          () => this.markExited(code, signal),
          () => this.markExited(code, signal),
        );
    });
  }

  static spawn(options: ForkedWorkerOptions = {}): ForkedWorkerClient {
    return new ForkedWorkerClient(options);
  }

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  /** The tail of the child's stderr (crash diagnostics). */
  stderrTail(): string {
    return this.stderr;
  }

  protected transmit(message: unknown): void {
    if (!this.child.connected) throw new Error("worker IPC channel is closed");
    this.child.send(message as object);
  }

  kill(): void {
    this.stopRequested = true;
    if (!this.exited) this.child.kill("SIGKILL");
  }
}
