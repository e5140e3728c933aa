/**
 * One events *stream*: the numbered series of messages one client receives on WS /api/pi/events, which outlives
 * its socket for a while so that a client that reconnects gets exactly what it missed (domain/live/live-messages.ts).
 *
 * - Messages are queued as encoded heads (`{"type":…,"data":…` without the closing brace: encodeMessageHead) and
 *   get their `seq` when they are written; each is sent as two fragments of one text message, the shared head and
 *   this stream's `,"seq":N}` (`hello`, seq 0, also carries the server run's `epoch`: one per connection is enough,
 *   and 46 bytes on every message were a fifth of a streamed delta's envelope). A *producer* stands for a series of messages made on demand (a large
 *   snapshot in chunks): it is asked for its next message only when the socket has room.
 * - Flow control: at most `highWaterBytes` are written and not yet flushed to the socket; the rest waits in the
 *   queue (a send's callback, fired once ws handed the frame to the socket, lets the next one go).
 * - A slow reader: when the live messages waiting in the queue exceed `queueLimitBytes` (a reader that stopped
 *   reading, or a detached stream nobody resumes), the stream ends: its socket closes with 1013 "slow reader:
 *   resync" and the client starts a fresh stream (snapshots again). What a stream holds stays bounded: the queue
 *   limit plus the resume log plus the socket's high water mark.
 * - Resume: the last `logLimitBytes` of written messages are kept with their seq. `attach(socket, after)` sends
 *   `hello`, then every logged message after `after`, then the queue. A stream whose log no longer reaches back
 *   to `after` cannot be resumed (`canResume`): the caller starts a fresh one.
 */
import type { WebSocket } from "ws";
import { UNNUMBERED_SEQ, type HelloData } from "../../domain/live/live-messages.ts";
import { encodeMessageHead } from "../../adapters/live/message-encoding.ts";

export { encodeMessageHead };

/** WebSocket close code "Try Again Later": the slow-reader close (the client reconnects with a fresh stream). */
export const CLOSE_SLOW_READER = 1013;
export const SLOW_READER_REASON = "slow reader: resync";

/** A series of messages made on demand, in order; `next()` returns null when it has no more. */
export interface MessageProducer {
  next(): Buffer | null;
}

export interface EventStreamOptions {
  readonly id: string;
  readonly epoch: string;
  /** Live bytes waiting in the queue past which the reader is too slow (default 8 MiB). */
  readonly queueLimitBytes?: number;
  /** Bytes written and not yet flushed before the stream waits (default 512 KiB). */
  readonly highWaterBytes?: number;
  /** Bytes of written messages kept for a resume (default 4 MiB). */
  readonly logLimitBytes?: number;
  /** The stream ended (slow reader, expiry, or `end()`): release what it holds. */
  readonly onEnd?: (reason: string) => void;
  /** A slow reader was cut (for the log). */
  readonly onSlowReader?: (details: { queuedBytes: number; limitBytes: number; sentMessages: number }) => void;
}

export const DEFAULT_QUEUE_LIMIT_BYTES = 8 * 1024 * 1024;
const DEFAULT_HIGH_WATER_BYTES = 512 * 1024;
const DEFAULT_LOG_LIMIT_BYTES = 4 * 1024 * 1024;

interface Logged {
  readonly seq: number;
  readonly head: Buffer;
}

/** One socket attached to the stream; its late callbacks are ignored once it is detached. */
interface Attachment {
  readonly socket: WebSocket;
  inFlight: number;
  /** Logged messages still to send after a resume. */
  replay: Logged[];
}

export class EventStream {
  readonly id: string;
  private readonly helloTail: string;
  private seq = 0;
  private readonly log: Logged[] = [];
  private logBytes = 0;
  private readonly queue: Array<Buffer | MessageProducer> = [];
  private queuedBytes = 0;
  private attachment: Attachment | null = null;
  private pumping = false;
  private ended = false;
  private readonly queueLimitBytes: number;
  private readonly highWaterBytes: number;
  private readonly logLimitBytes: number;

  constructor(private readonly options: EventStreamOptions) {
    this.id = options.id;
    this.helloTail = `,"seq":${UNNUMBERED_SEQ},"epoch":${JSON.stringify(options.epoch)}}`;
    this.queueLimitBytes = options.queueLimitBytes ?? DEFAULT_QUEUE_LIMIT_BYTES;
    this.highWaterBytes = options.highWaterBytes ?? DEFAULT_HIGH_WATER_BYTES;
    this.logLimitBytes = options.logLimitBytes ?? DEFAULT_LOG_LIMIT_BYTES;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  get isAttached(): boolean {
    return this.attachment !== null;
  }

  /** The seq of the last message written. */
  get latestSeq(): number {
    return this.seq;
  }

  /** Queues one message. */
  enqueue(head: Buffer): void {
    if (this.ended) return;
    this.queue.push(head);
    this.queuedBytes += head.length;
    if (this.queuedBytes > this.queueLimitBytes) {
      this.cutSlowReader();
      return;
    }
    this.pump();
  }

  /** Queues a producer: its messages follow the ones queued before it, and precede the ones queued after. */
  enqueueProducer(producer: MessageProducer): void {
    if (this.ended) return;
    this.queue.push(producer);
    this.pump();
  }

  /** Whether a client that applied every message up to `after` can continue this stream. */
  canResume(after: number): boolean {
    if (this.ended || !Number.isInteger(after) || after < 0 || after > this.seq) return false;
    if (after === this.seq) return true;
    const oldest = this.log[0];
    return oldest !== undefined && oldest.seq <= after + 1;
  }

  /**
   * Sends `hello` on the socket and then the stream: with `after`, the logged messages after it first (call
   * `canResume(after)` before); without, the stream from its current queue (a fresh stream).
   */
  attach(socket: WebSocket, after: number | null): void {
    if (this.ended) throw new Error("the stream has ended");
    const replay = after === null ? [] : this.log.filter((entry) => entry.seq > after);
    this.attachment = { socket, inFlight: 0, replay };
    // What the client will have when it has caught up: the messages written so far and those waiting (a producer
    // counts as one).
    const hello: HelloData = { stream: this.id, resumed: after !== null, latestSeq: this.seq + this.queue.length };
    this.write(this.attachment, encodeMessageHead("hello", hello), UNNUMBERED_SEQ);
    this.pump();
  }

  /** Detaches the current socket (if any) and closes it: another connection resumes the stream. */
  takeOver(code: number, reason: string): void {
    const attachment = this.attachment;
    if (attachment === null) return;
    this.attachment = null;
    attachment.socket.close(code, reason);
  }

  /** The socket closed: the stream keeps queueing (bounded) until it is resumed or ends. */
  detach(socket: WebSocket): void {
    if (this.attachment?.socket === socket) this.attachment = null;
  }

  /** Ends the stream (its socket, if any, is closed with `code`). */
  end(reason: string, close?: { code: number; text: string }): void {
    if (this.ended) return;
    this.ended = true;
    const attachment = this.attachment;
    this.attachment = null;
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.log.length = 0;
    this.logBytes = 0;
    if (attachment !== null && close !== undefined) attachment.socket.close(close.code, close.text);
    this.options.onEnd?.(reason);
  }

  private cutSlowReader(): void {
    this.options.onSlowReader?.({ queuedBytes: this.queuedBytes, limitBytes: this.queueLimitBytes, sentMessages: this.seq });
    this.end("slow reader", { code: CLOSE_SLOW_READER, text: SLOW_READER_REASON });
  }

  /** The next message to write and its seq, or null when there is none (or a producer finished). */
  private take(attachment: Attachment): Logged | null {
    const replayed = attachment.replay.shift();
    if (replayed !== undefined) return replayed;
    while (this.queue.length > 0) {
      const item = this.queue[0] as Buffer | MessageProducer;
      let head: Buffer | null;
      if (Buffer.isBuffer(item)) {
        this.queue.shift();
        this.queuedBytes -= item.length;
        head = item;
      } else {
        head = item.next();
        if (head === null) {
          this.queue.shift();
          continue;
        }
      }
      const logged: Logged = { seq: ++this.seq, head };
      this.log.push(logged);
      this.logBytes += head.length;
      while (this.logBytes > this.logLimitBytes && this.log.length > 1) {
        const dropped = this.log.shift() as Logged;
        this.logBytes -= dropped.head.length;
      }
      return logged;
    }
    return null;
  }

  private pump(): void {
    if (this.pumping || this.ended) return;
    this.pumping = true;
    try {
      for (;;) {
        const attachment = this.attachment;
        if (attachment === null || attachment.inFlight >= this.highWaterBytes) return;
        if (attachment.socket.readyState !== attachment.socket.OPEN) return;
        const next = this.take(attachment);
        if (next === null) return;
        this.write(attachment, next.head, next.seq);
      }
    } finally {
      this.pumping = false;
    }
  }

  private write(attachment: Attachment, head: Buffer, seq: number): void {
    const { socket } = attachment;
    if (socket.readyState !== socket.OPEN) return;
    attachment.inFlight += head.length;
    socket.send(head, { binary: false, fin: false });
    socket.send(seq === UNNUMBERED_SEQ ? this.helloTail : `,"seq":${seq}}`, { binary: false, fin: true }, () => {
      attachment.inFlight -= head.length;
      if (this.attachment === attachment) this.pump();
    });
  }
}
