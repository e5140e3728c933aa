/**
 * Coalesces PTY output into few socket messages: at most one flush per `intervalMs`, the first text after a quiet
 * interval flushed at once (a keystroke's echo is not delayed), and everything flushed as soon as `maxChars`
 * wait. Text is kept as strings (node-pty decodes UTF-8 with a StringDecoder: no code point is ever split).
 */
export interface OutputBatcherOptions {
  /** Least time between two flushes. */
  readonly intervalMs: number;
  /** Waiting text from which to flush at once. */
  readonly maxChars: number;
  readonly onFlush: (text: string) => void;
  /** A monotonic clock in ms. Default performance.now. */
  readonly now?: () => number;
}

export const DEFAULT_BATCH_INTERVAL_MS = 8;
export const DEFAULT_BATCH_MAX_CHARS = 64 * 1024;

export class OutputBatcher {
  private chunks: string[] = [];
  private size = 0;
  private timer: NodeJS.Timeout | null = null;
  private lastFlush = Number.NEGATIVE_INFINITY;
  private readonly now: () => number;

  constructor(private readonly options: OutputBatcherOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Characters waiting to be flushed. */
  get pending(): number {
    return this.size;
  }

  push(text: string): void {
    if (text === "") return;
    this.chunks.push(text);
    this.size += text.length;
    if (this.size >= this.options.maxChars) {
      this.flush();
      return;
    }
    if (this.timer !== null) return;
    const wait = this.lastFlush + this.options.intervalMs - this.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  /** Sends what waits now. */
  flush(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.size === 0) return;
    const text = this.chunks.length === 1 ? (this.chunks[0] ?? "") : this.chunks.join("");
    this.chunks = [];
    this.size = 0;
    this.lastFlush = this.now();
    this.options.onFlush(text);
  }

  /** Drops what waits; nothing is flushed afterwards unless pushed again. */
  dispose(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.chunks = [];
    this.size = 0;
  }
}
