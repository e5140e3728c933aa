import { describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { CLOSE_SLOW_READER, encodeMessageHead, EventStream, type MessageProducer } from "./event-stream.ts";

/** A socket that records the messages it was given and flushes them only when told to. */
class FakeSocket {
  readonly OPEN = 1;
  readyState = 1;
  readonly messages: Array<{ type: string; seq: number; data?: unknown }> = [];
  closed: { code: number; reason: string } | null = null;
  private fragments: Buffer[] = [];
  private readonly unflushed: Array<() => void> = [];

  send(data: Buffer | string, options: { fin: boolean }, callback?: () => void): void {
    this.fragments.push(Buffer.isBuffer(data) ? data : Buffer.from(data, "utf8"));
    if (!options.fin) return;
    this.messages.push(JSON.parse(Buffer.concat(this.fragments).toString("utf8")) as { type: string; seq: number; data?: unknown });
    this.fragments = [];
    if (callback !== undefined) this.unflushed.push(callback);
  }

  close(code: number, reason: string): void {
    this.closed = { code, reason };
    this.readyState = 3;
  }

  /** The socket wrote what it was given. */
  flush(): void {
    for (const callback of this.unflushed.splice(0)) callback();
  }

  get seqs(): number[] {
    return this.messages.map((m) => m.seq);
  }
}

const head = (n: number, bytes = 10): Buffer => encodeMessageHead("m", { n, pad: "x".repeat(bytes) });

function stream(options: Partial<ConstructorParameters<typeof EventStream>[0]> = {}): { stream: EventStream; ended: string[] } {
  const ended: string[] = [];
  return { stream: new EventStream({ id: "s1", epoch: "e1", onEnd: (reason) => ended.push(reason), ...options }), ended };
}

describe("EventStream", () => {
  it("sends hello (with the epoch), then its messages numbered from 1, each `head + seq` as one JSON text", () => {
    const { stream: s } = stream();
    s.enqueue(head(1));
    const socket = new FakeSocket();
    s.attach(socket as unknown as WebSocket, null);
    s.enqueue(head(2));
    expect(socket.messages).toEqual([
      { type: "hello", data: { stream: "s1", resumed: false, latestSeq: 1 }, seq: 0, epoch: "e1" },
      { type: "m", data: { n: 1, pad: "x".repeat(10) }, seq: 1 },
      { type: "m", data: { n: 2, pad: "x".repeat(10) }, seq: 2 },
    ]);
  });

  it("writes no more than its high water mark before the socket flushes, and goes on when it does", () => {
    const { stream: s } = stream({ highWaterBytes: 100 });
    const socket = new FakeSocket();
    s.attach(socket as unknown as WebSocket, null);
    for (let i = 1; i <= 10; i++) s.enqueue(head(i, 40));
    const written = socket.messages.length;
    expect(written).toBeLessThan(6); // hello + ~2 messages of ~60 bytes
    socket.flush();
    expect(socket.messages.length).toBeGreaterThan(written);
    for (let i = 0; i < 10; i++) socket.flush();
    expect(socket.seqs).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it("asks a producer for its next message only when there is room, in queue order", () => {
    const { stream: s } = stream({ highWaterBytes: 50 });
    const socket = new FakeSocket();
    s.attach(socket as unknown as WebSocket, null);
    socket.flush(); // the hello
    let asked = 0;
    const producer: MessageProducer = { next: () => (asked < 5 ? head(100 + ++asked, 40) : null) };
    s.enqueueProducer(producer);
    s.enqueue(head(1));
    expect(asked).toBe(1);
    for (let i = 0; i < 10; i++) socket.flush();
    expect(asked).toBe(5);
    expect(socket.messages.slice(1).map((m) => (m.data as { n: number }).n)).toEqual([101, 102, 103, 104, 105, 1]);
  });

  it("ends a reader whose waiting live messages pass the limit: 1013, nothing more queued (producers do not count)", () => {
    const { stream: s, ended } = stream({ highWaterBytes: 10, queueLimitBytes: 500 });
    const socket = new FakeSocket();
    s.attach(socket as unknown as WebSocket, null);
    socket.flush(); // the hello
    s.enqueueProducer({ next: () => head(0, 1000) }); // an endless snapshot: waits, never counted
    for (let i = 1; i <= 3; i++) s.enqueue(head(i, 100));
    expect(s.isEnded).toBe(false);
    for (let i = 4; i <= 8; i++) s.enqueue(head(i, 100));
    expect(s.isEnded).toBe(true);
    expect(ended).toEqual(["slow reader"]);
    expect(socket.closed).toEqual({ code: CLOSE_SLOW_READER, reason: "slow reader: resync" });
    s.enqueue(head(9));
    expect(socket.messages.length).toBe(2); // hello and the first chunk
  });

  it("resumes: replays what was written after `after`, then the queue; a log that no longer reaches back refuses", () => {
    const { stream: s } = stream({ logLimitBytes: 200 });
    const first = new FakeSocket();
    s.attach(first as unknown as WebSocket, null);
    for (let i = 1; i <= 3; i++) s.enqueue(head(i));
    s.detach(first as unknown as WebSocket);
    s.enqueue(head(4)); // queued while detached
    expect(s.canResume(1)).toBe(true);
    const second = new FakeSocket();
    s.attach(second as unknown as WebSocket, 1);
    expect(second.messages[0]).toMatchObject({ type: "hello", seq: 0, data: { resumed: true, latestSeq: 4 } });
    expect(second.seqs.slice(1)).toEqual([2, 3, 4]);

    for (let i = 5; i <= 20; i++) s.enqueue(head(i, 30));
    expect(s.canResume(20)).toBe(true);
    expect(s.canResume(19)).toBe(true);
    expect(s.canResume(2)).toBe(false); // trimmed from the log
    expect(s.canResume(21)).toBe(false); // ahead of the stream
  });

  it("hands the stream to a new socket: the old one is closed and its late callbacks change nothing", () => {
    const { stream: s } = stream();
    const first = new FakeSocket();
    s.attach(first as unknown as WebSocket, null);
    s.enqueue(head(1));
    s.takeOver(4001, "resumed on another connection");
    expect(first.closed).toEqual({ code: 4001, reason: "resumed on another connection" });
    const second = new FakeSocket();
    s.attach(second as unknown as WebSocket, 1);
    first.flush();
    s.enqueue(head(2));
    expect(second.seqs).toEqual([0, 2]);
    expect(first.seqs).toEqual([0, 1]);
  });
});
