/**
 * The detail feed host on its own (in this thread; the detail worker runs the same code): real session files in a
 * temp dir, written and appended to as pi does.
 */
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionDeltaData, SessionLoadingData, SessionSnapshotData, SessionUnavailableData } from "../../domain/live/live-messages.ts";
import type { SessionDetail } from "../../domain/session-detail.ts";
import { applyTranscriptDelta, mapTranscriptDelta } from "../../domain/transcript/transcript-delta.ts";
import { unpackEntry } from "../../domain/transcript/transcript-wire.ts";
import type { TranscriptEntry } from "../../domain/transcript/transcript-types.ts";
import { headerLine, sessionText, tempDir, userLine } from "../session-files/session-lines.fixture.ts";
import { createDetailFeedHost, type DetailFeedHost, type FeedMessage } from "./detail-feed-host.ts";

const hosts: DetailFeedHost[] = [];
afterEach(() => {
  for (const host of hosts.splice(0)) host.close();
});

/** A message head as the socket would send it (the stream adds the seq). */
function decode<T>(head: Uint8Array): { type: string; data: T } {
  return JSON.parse(Buffer.concat([Buffer.from(head), Buffer.from(',"seq":1}')]).toString("utf8")) as { type: string; data: T };
}

function host(options: Partial<Parameters<typeof createDetailFeedHost>[0]> = {}): {
  host: DetailFeedHost;
  messages: FeedMessage[];
  next: (feed: number, type: FeedMessage["type"]) => Promise<FeedMessage>;
} {
  const messages: FeedMessage[] = [];
  const waiters: Array<{ feed: number; type: string; resolve: (message: FeedMessage) => void }> = [];
  const created = createDetailFeedHost({
    send: (message) => {
      const waiter = waiters.findIndex((w) => w.feed === message.feed && w.type === message.type);
      if (waiter >= 0) waiters.splice(waiter, 1)[0]?.resolve(message);
      else messages.push(message);
    },
    ...options,
  });
  hosts.push(created);
  const next = (feed: number, type: FeedMessage["type"]): Promise<FeedMessage> => {
    const queued = messages.findIndex((m) => m.feed === feed && m.type === type);
    if (queued >= 0) return Promise.resolve(messages.splice(queued, 1)[0] as FeedMessage);
    return new Promise((resolve) => waiters.push({ feed, type, resolve }));
  };
  return { host: created, messages, next };
}

function snapshotEntries(message: FeedMessage): { data: SessionSnapshotData; entries: TranscriptEntry[] } {
  if (message.type !== "snapshot") throw new Error(message.type);
  const chunks = message.chunks.map((chunk) => decode<SessionSnapshotData>(chunk).data);
  return { data: chunks[0] as SessionSnapshotData, entries: chunks.flatMap((chunk) => chunk.entries.map(unpackEntry)) };
}

describe("detail feed host", () => {
  it("sends a feed its snapshot, then a delta for each change another writer makes, then gone when the file goes", async () => {
    const dir = tempDir("detail-host");
    const file = path.join(dir, "s.jsonl");
    fs.writeFileSync(file, sessionText("aaaa-0001", 2));
    const { host: feeds, next } = host();
    feeds.open(1, file, "aaaa-0001");
    const snapshot = snapshotEntries(await next(1, "snapshot"));
    expect(snapshot.data).toMatchObject({ sessionId: "aaaa-0001", revision: 1, offset: 0, total: 2, done: true, leafId: "aaaa0001" });
    expect(snapshot.entries.map((e) => (e as { text: string }).text)).toEqual(["hello 0", "hello 1"]);

    fs.appendFileSync(file, userLine("three", "aaaa0001", "aaaa0002"));
    const delta = await next(1, "delta");
    const data = decode<SessionDeltaData>((delta as { head: Uint8Array }).head).data;
    expect(data).toMatchObject({ sessionId: "aaaa-0001", base: 1, revision: 2, leafId: "aaaa0002" });
    const entries = applyTranscriptDelta(snapshot.entries, mapTranscriptDelta(data.transcript ?? {}, unpackEntry));
    expect(entries.map((e) => (e as { text: string }).text)).toEqual(["hello 0", "hello 1", "three"]);
    expect(data.session?.messageCount).toBe(3);

    fs.rmSync(file);
    const gone = decode<SessionUnavailableData>(((await next(1, "unavailable")) as { head: Uint8Array }).head).data;
    expect(gone).toEqual({ sessionId: "aaaa-0001", reason: "gone", message: "The session file no longer exists" });
  });

  it("answers the detail's JSON, and leaves it out for a version the asker holds until the file changes", async () => {
    const dir = tempDir("detail-host");
    const file = path.join(dir, "s.jsonl");
    fs.writeFileSync(file, sessionText("bbbb-0001", 1));
    const { host: feeds } = host();
    const first = await feeds.detail(file);
    if (first === null || first.json === null) throw new Error("no detail");
    const detail = JSON.parse(Buffer.concat(first.json.map((part) => Buffer.from(part))).toString("utf8")) as SessionDetail;
    expect(detail.session.id).toBe("bbbb-0001");
    expect(detail.entries).toHaveLength(1);
    expect(await feeds.detail(file, first.version)).toEqual({
      sessionId: "bbbb-0001",
      revision: first.revision,
      version: first.version,
      json: null,
    });
    // A write just before the request is seen (the request reads the file, whatever the folder watch says).
    fs.appendFileSync(file, userLine("two", "bbbb0000", "bbbb0001"));
    const changed = await feeds.detail(file, first.version);
    expect(changed?.version).not.toBe(first.version);
    expect(changed?.json).not.toBeNull();
    expect(await feeds.detail(path.join(dir, "missing.jsonl"))).toBeNull();
  });

  it("reports loading progress while a large file's first read runs in slices, then the snapshot in chunks", async () => {
    const dir = tempDir("detail-host");
    const file = path.join(dir, "big.jsonl");
    let text = headerLine("cccc-0001");
    let parent: string | null = null;
    for (let i = 0; i < 400; i++) {
      const id = `c${i.toString(16).padStart(7, "0")}`;
      text += userLine(`line ${i} ${"words ".repeat(100)}`, parent, id);
      parent = id;
    }
    fs.writeFileSync(file, text);
    const { host: feeds, messages, next } = host({ slices: { sliceBytes: 16 * 1024, budgetMs: 0 } });
    feeds.open(7, file, "cccc-0001");
    const snapshot = await next(7, "snapshot");
    const loading = messages
      .filter((m) => m.feed === 7 && m.type === "loading")
      .map((m) => decode<SessionLoadingData>((m as { head: Uint8Array }).head).data);
    expect(loading.length).toBeGreaterThan(3);
    expect(loading.map((l) => l.loadedBytes)).toEqual([...loading.map((l) => l.loadedBytes)].sort((a, b) => a - b));
    expect(loading.at(-1)?.totalBytes).toBe(fs.statSync(file).size);
    if (snapshot.type !== "snapshot") throw new Error(snapshot.type);
    expect(snapshot.chunks.length).toBeGreaterThan(1);
    expect(snapshotEntries(snapshot).entries).toHaveLength(400);
  });

  it("keeps files nobody subscribes to only within its limits, most recently used first", async () => {
    const dir = tempDir("detail-host");
    const files = ["a", "b", "c"].map((name) => {
      const file = path.join(dir, `${name}.jsonl`);
      fs.writeFileSync(file, sessionText(`${name}${name}${name}${name}-0001`, 1));
      return file;
    });
    const { host: feeds, next } = host({ keep: 1 });
    for (const [i, file] of files.entries()) {
      feeds.open(i + 1, file, "x");
      await next(i + 1, "snapshot");
    }
    expect(feeds.openFiles()).toBe(3);
    for (let i = 1; i <= 3; i++) feeds.closeFeed(i);
    expect(feeds.openFiles()).toBe(1);
    feeds.reset();
    expect(feeds.openFiles()).toBe(0);
  });
});
