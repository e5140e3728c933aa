/**
 * One program on a real PTY (@lydell/node-pty): input, resize, output coalesced by an OutputBatcher, flow
 * control, its exit, and its end.
 *
 * Rules it keeps:
 * - output reaches `onOutput` in order and complete: on exit the batch is flushed before `onExit` (node-pty
 *   reports the exit only once the PTY has been read to its end);
 * - `pause()` stops reading the PTY (the program blocks once the kernel's PTY buffer is full: memory stays
 *   bounded whatever it writes); while paused the program's exit is watched, and reading resumes when it exits,
 *   so that node-pty (which drops a PTY 200 ms after its program exited) does not cut the last output;
 * - `end()` ends every process of the terminal (process-tree.ts: SIGHUP, SIGKILL after a grace period), then
 *   the PTY itself; after it, no output and no exit are reported. It is idempotent;
 * - the exit code is the program's, or 128 + the signal that ended it (as shells report it).
 * Spawn failures node-pty reports as an exit (a missing cwd or executable exits 1 with a message): callers
 * check the folder and the executable first (terminal-launch.ts).
 */
import pty, { type IDisposable, type IPty } from "@lydell/node-pty";
import { DEFAULT_BATCH_INTERVAL_MS, DEFAULT_BATCH_MAX_CHARS, OutputBatcher } from "./output-batcher.ts";
import { endProcessTree, readProcessEntry, type EndedProcessTree } from "./process-tree.ts";

export interface PtySpawn {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly cols: number;
  readonly rows: number;
}

export interface PtySessionHandlers {
  /** Coalesced output. */
  readonly onOutput: (text: string) => void;
  /** The program exited (all output was reported before). Not called after `end()`. */
  readonly onExit: (exitCode: number) => void;
}

export interface PtySessionOptions {
  readonly batchIntervalMs?: number;
  readonly batchMaxChars?: number;
  /** How long the terminal's processes may take to act on SIGHUP before SIGKILL. Default 1000 ms. */
  readonly killGraceMs?: number;
}

/** How often a paused session checks whether its program exited. */
const PAUSED_EXIT_CHECK_MS = 50;
/** How long `end()` waits for node-pty to release the PTY before it destroys it. */
const RELEASE_WAIT_MS = 2000;

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class PtySession {
  private readonly batcher: OutputBatcher;
  private readonly subscriptions: IDisposable[];
  private readonly released: Promise<void>;
  private readonly leaderStart: Promise<string | null>;
  private exitedFlag = false;
  private ending: Promise<EndedProcessTree> | null = null;
  private paused = false;
  private exitWatch: NodeJS.Timeout | null = null;

  private constructor(
    private readonly term: IPty,
    private readonly handlers: PtySessionHandlers,
    private readonly options: PtySessionOptions,
  ) {
    this.batcher = new OutputBatcher({
      intervalMs: options.batchIntervalMs ?? DEFAULT_BATCH_INTERVAL_MS,
      maxChars: options.batchMaxChars ?? DEFAULT_BATCH_MAX_CHARS,
      onFlush: (text) => {
        if (this.ending === null) handlers.onOutput(text);
      },
    });
    this.leaderStart = readProcessEntry(term.pid).then((entry) => entry?.start ?? null);
    let release: () => void = () => undefined;
    this.released = new Promise((resolve) => (release = resolve));
    this.subscriptions = [
      term.onData((text) => {
        if (this.ending === null) this.batcher.push(text);
      }),
      term.onExit(({ exitCode, signal }) => {
        this.exitedFlag = true;
        this.stopExitWatch();
        release();
        if (this.ending !== null) return;
        this.batcher.flush();
        handlers.onExit(exitCode === 0 && signal !== undefined && signal > 0 ? 128 + signal : exitCode);
      }),
    ];
  }

  /** Starts `spawn.file` on a new PTY; throws what node-pty throws. */
  static start(spawn: PtySpawn, handlers: PtySessionHandlers, options: PtySessionOptions = {}): PtySession {
    const term = pty.spawn(spawn.file, [...spawn.args], {
      name: spawn.env["TERM"] ?? "xterm-256color",
      cols: spawn.cols,
      rows: spawn.rows,
      cwd: spawn.cwd,
      env: { ...spawn.env },
      encoding: "utf8",
    });
    return new PtySession(term, handlers, options);
  }

  /** The program's pid (the leader of the terminal's session and process group). */
  get pid(): number {
    return this.term.pid;
  }

  get exited(): boolean {
    return this.exitedFlag;
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  write(data: string): void {
    if (this.exitedFlag || this.ending !== null || data === "") return;
    this.term.write(data);
  }

  resize(cols: number, rows: number): void {
    if (this.exitedFlag || this.ending !== null) return;
    try {
      this.term.resize(cols, rows);
    } catch {
      // The PTY closed meanwhile; its exit follows.
    }
  }

  /** Stops reading the PTY (the socket cannot take more for now). */
  pause(): void {
    if (this.paused || this.exitedFlag || this.ending !== null) return;
    this.paused = true;
    this.term.pause();
    this.exitWatch = setInterval(() => {
      if (!isAlive(this.term.pid)) this.resume();
    }, PAUSED_EXIT_CHECK_MS);
    this.exitWatch.unref();
  }

  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.stopExitWatch();
    this.term.resume();
  }

  get isPaused(): boolean {
    return this.paused;
  }

  /** Ends the terminal's processes and closes the PTY; resolves once done (see the module comment). */
  end(): Promise<EndedProcessTree> {
    this.ending ??= this.finish();
    return this.ending;
  }

  private async finish(): Promise<EndedProcessTree> {
    this.batcher.dispose();
    // Keep reading (and dropping) so that writers blocked on a full PTY see their signals and node-pty sees the end.
    this.resume();
    const ended = await endProcessTree(this.term.pid, { graceMs: this.options.killGraceMs ?? 1000, leaderStart: await this.leaderStart });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      this.released.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), RELEASE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    // A process outside the terminal's tree still holds the PTY open: close our side.
    if (timedOut) (this.term as IPty & { destroy?: () => void }).destroy?.();
    for (const subscription of this.subscriptions) subscription.dispose();
    return ended;
  }

  private stopExitWatch(): void {
    if (this.exitWatch !== null) clearInterval(this.exitWatch);
    this.exitWatch = null;
  }
}
