import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { decodeSessionText } from "../domain/session-decoder.ts";
import type { LogRecord, SessionEntry } from "../domain/session-log.ts";
import { systemPromptEntry } from "../domain/transcript/system-prompt.ts";
import type { ToolTranscriptEntry, TranscriptEntry } from "../domain/transcript/transcript-types.ts";
import { LIST_CHUNK_SIZE, RECORD_FANOUT } from "../domain/chunked-collections.ts";
import { entryOf } from "../domain/session-tree.ts";
import { unsharedObjects } from "../test/support/structural-sharing.ts";
import { fold, rebuild } from "./projection.ts";
import { selectTranscript, transcriptProjection, type TranscriptState } from "./transcript.projection.ts";
import { PI_SESSION_FIXTURES_DIR } from "../test/support/fixtures.ts";

const FIXTURES = PI_SESSION_FIXTURES_DIR;
const fixtureFiles = fs.existsSync(FIXTURES) ? fs.readdirSync(FIXTURES).filter((f) => f.endsWith(".jsonl")) : [];

type Json = Record<string, unknown>;

/** Counts straight from the raw JSON lines (the v1 fixtures are linear, so the active branch is the whole file). */
function independentCounts(text: string): Record<string, number> {
  const counts: Record<string, number> = {
    user: 0,
    assistant: 0,
    custom: 0,
    tool: 0,
    toolError: 0,
    toolPending: 0,
    orphan: 0,
    bash: 0,
    model_change: 0,
    thinking_level_change: 0,
    compaction: 0,
    branch_summary: 0,
  };
  const open = new Set<string>();
  for (const line of text.split("\n").slice(1)) {
    if (line.trim() === "") continue;
    const entry = JSON.parse(line) as Json;
    const type = entry["type"] as string;
    if (type !== "message") {
      if (type in counts) counts[type] = (counts[type] ?? 0) + 1;
      continue;
    }
    const message = entry["message"] as Json;
    const role = message["role"] as string;
    if (role === "user" || role === "assistant" || role === "custom") counts[role] = (counts[role] ?? 0) + 1;
    if (role === "bashExecution") counts["bash"] = (counts["bash"] ?? 0) + 1;
    if (role === "assistant") {
      for (const block of message["content"] as Json[]) {
        if (block["type"] !== "toolCall") continue;
        counts["tool"] = (counts["tool"] ?? 0) + 1;
        open.add(block["id"] as string);
      }
    }
    if (role === "toolResult") {
      const id = message["toolCallId"] as string;
      if (message["isError"] === true) counts["toolError"] = (counts["toolError"] ?? 0) + 1;
      if (open.has(id)) open.delete(id);
      else {
        counts["orphan"] = (counts["orphan"] ?? 0) + 1;
        counts["tool"] = (counts["tool"] ?? 0) + 1;
      }
    }
  }
  counts["toolPending"] = open.size;
  return counts;
}

function projectedCounts(entries: readonly TranscriptEntry[]): Record<string, number> {
  const counts: Record<string, number> = {
    user: 0,
    assistant: 0,
    custom: 0,
    tool: 0,
    toolError: 0,
    toolPending: 0,
    orphan: 0,
    bash: 0,
    model_change: 0,
    thinking_level_change: 0,
    compaction: 0,
    branch_summary: 0,
  };
  const bump = (key: string) => (counts[key] = (counts[key] ?? 0) + 1);
  for (const entry of entries) {
    if (entry.type === "message") bump(entry.role);
    else if (entry.type === "tool") {
      bump("tool");
      if (entry.status === "error") bump("toolError");
      if (entry.status === "pending") bump("toolPending");
      if (entry.callEntryId === null) bump("orphan");
    } else bump(entry.type);
  }
  return counts;
}

describe("transcript projection on the real fixtures", () => {
  it("has fixtures to read", () => {
    expect(fixtureFiles.length).toBeGreaterThanOrEqual(2);
  });

  for (const file of fixtureFiles) {
    it(`projects ${file} with the counts of the file`, () => {
      const text = fs.readFileSync(path.join(FIXTURES, file), "utf8");
      const { records } = decodeSessionText(text);
      const state = rebuild(transcriptProjection, records);
      const transcript = selectTranscript(state);
      expect(projectedCounts(transcript)).toEqual(independentCounts(text));
      expect(state.malformedRecords).toBe(0);
      expect(state.transcript.anomalies).toBe(0);
      // ids are unique and every entry has an ISO timestamp and default feedback
      expect(new Set(transcript.map((e) => e.id)).size).toBe(transcript.length);
      for (const entry of transcript) {
        expect(Number.isNaN(Date.parse(entry.timestamp))).toBe(false);
        expect([entry.rolloutFeedback, entry.rolloutFeedbackText]).toEqual(["", ""]);
      }
      // each tool entry follows its assistant message (or an earlier tool entry of the same message)
      transcript.forEach((entry, i) => {
        if (entry.type !== "tool" || entry.callEntryId === null) return;
        let j = i - 1;
        while (j >= 0 && transcript[j]?.type === "tool" && (transcript[j] as ToolTranscriptEntry).callEntryId === entry.callEntryId) j--;
        expect(transcript[j]?.id).toBe(entry.callEntryId);
      });
      // appending the file line by line gives the same state as one batch
      let incremental = transcriptProjection.initial();
      for (const record of records) incremental = fold(transcriptProjection, incremental, [record]);
      expect(incremental).toEqual(state);
    });
  }

  it("surfaces edit diffs and keeps the compactions' first kept entry ids", () => {
    const file = fixtureFiles.find((f) => f.includes("compaction"));
    if (file === undefined) throw new Error("compaction fixture missing");
    const transcript = selectTranscript(
      rebuild(transcriptProjection, decodeSessionText(fs.readFileSync(path.join(FIXTURES, file), "utf8")).records),
    );
    const ids = new Set(transcript.map((e) => e.id));
    const compactions = transcript.filter((e) => e.type === "compaction");
    expect(compactions.length).toBe(2);
    for (const c of compactions) expect(ids.has(c.firstKeptEntryId)).toBe(true);
    const edits = transcript.filter((e): e is ToolTranscriptEntry => e.type === "tool" && e.name === "edit" && e.status === "done");
    expect(edits.length).toBeGreaterThan(0);
    expect(edits.every((e) => typeof e.diff === "string" && typeof e.file === "string")).toBe(true);
  });
});

const T = "2026-01-01T00:00:00.000Z";
const rec = (entry: Record<string, unknown>, line = 0): LogRecord => ({
  kind: "entry",
  line,
  entry: { timestamp: T, ...entry } as SessionEntry,
});
const userRec = (id: string, parentId: string | null, text: string) =>
  rec({ type: "message", id, parentId, message: { role: "user", content: text, timestamp: 1 } });
const texts = (state: TranscriptState) => selectTranscript(state).map((e) => (e.type === "message" ? e.text : e.type));

describe("transcript projection", () => {
  it("follows the leaf to another branch and back", () => {
    const base = [userRec("a", null, "A"), userRec("b", "a", "B"), userRec("c", "b", "C")];
    let state = rebuild(transcriptProjection, base);
    expect(texts(state)).toEqual(["A", "B", "C"]);
    state = fold(transcriptProjection, state, [userRec("d", "a", "D")]);
    expect(texts(state)).toEqual(["A", "D"]);
    state = fold(transcriptProjection, state, [userRec("e", "c", "E")]);
    expect(texts(state)).toEqual(["A", "B", "C", "E"]);
  });

  it("pairs a tool result that arrives in a later batch", () => {
    const call = rec({
      type: "message",
      id: "a1",
      parentId: null,
      message: {
        role: "assistant",
        content: [{ type: "toolCall", id: "t1", name: "read", arguments: { path: "x" } }],
        provider: "p",
        model: "m",
        usage: {},
        stopReason: "toolUse",
        timestamp: 1,
      },
    });
    const resultRec = rec({
      type: "message",
      id: "r1",
      parentId: "a1",
      message: {
        role: "toolResult",
        toolCallId: "t1",
        toolName: "read",
        content: [{ type: "text", text: "ok" }],
        isError: false,
        timestamp: 2,
      },
    });
    const pending = rebuild(transcriptProjection, [call]);
    expect(selectTranscript(pending)[1]).toMatchObject({ status: "pending" });
    const done = fold(transcriptProjection, pending, [resultRec]);
    expect(selectTranscript(done)[1]).toMatchObject({ status: "done", resultText: "ok", resultEntryId: "r1" });
    expect(selectTranscript(pending)[1]).toMatchObject({ status: "pending" }); // the old state is untouched
    expect(done.transcript.pendingToolIndexByCallId).toEqual({});
  });

  it("diffs system prompts against the previous snapshot of the active branch", () => {
    const s1 = systemPromptEntry({ id: "s1", parentId: null, timestamp: T }, "Base.\n# Tools\nx", [{ name: "read", description: "r" }]);
    const s2 = systemPromptEntry({ id: "s2", parentId: "s1", timestamp: T }, "Base.\n# Tools\nx", [
      { name: "read", description: "r" },
      { name: "vision_agent", description: "v" },
    ]);
    const s3 = systemPromptEntry({ id: "s3", parentId: "s1", timestamp: T }, "Base.\n# Tools\ny", [{ name: "read", description: "r" }]);
    const state = rebuild(
      transcriptProjection,
      [s1, s2, s3].map((entry) => ({ kind: "entry", line: 0, entry }) as LogRecord),
    );
    // s3 branches from s1: its diff is against s1, not against s2 (another branch)
    expect(selectTranscript(state).map((e) => e.type === "system" && e.code)).toEqual([
      "system prompt: 2 sections, 1 tool",
      "sections changed: Tools",
    ]);
  });

  it("counts malformed records, ignores headers and unusable ids", () => {
    const state = rebuild(transcriptProjection, [
      { kind: "header", line: 1, header: { type: "session", id: "s", timestamp: T, cwd: "/" } },
      { kind: "malformed", line: 2, reason: "invalid JSON" },
      userRec("a", null, "A"),
      rec({ type: "message", id: 42, parentId: "a", message: { role: "user", content: "bad id", timestamp: 1 } }),
    ]);
    expect(state.malformedRecords).toBe(1);
    expect(state.tree.anomalies).toBe(1);
    expect(texts(state)).toEqual(["A"]);
  });

  it("rebuilds on a duplicate id and a self-parented entry", () => {
    let state = rebuild(transcriptProjection, [userRec("a", null, "A"), userRec("b", "a", "B")]);
    state = fold(transcriptProjection, state, [userRec("b", "a", "B2")]);
    expect(texts(state)).toEqual(["A", "B2"]);
    state = fold(transcriptProjection, state, [userRec("b", "b", "B3")]);
    expect(texts(state)).toEqual(["B3"]);
  });

  it("an append copies only the last chunk and one bucket per record (no O(n) copy)", () => {
    const records = Array.from({ length: 1000 }, (_, i) => userRec(`u${i}`, i === 0 ? null : `u${i - 1}`, `m${i}`));
    const before = rebuild(transcriptProjection, records);
    const after = fold(transcriptProjection, before, [userRec("u1000", "u999", "last")]);
    const chunks = after.transcript.entries.chunks;
    const beforeChunks = before.transcript.entries.chunks;
    expect(chunks.slice(0, -1).every((chunk, i) => chunk === beforeChunks[i])).toBe(true);
    expect(chunks[chunks.length - 1]).not.toBe(beforeChunks[beforeChunks.length - 1]);
    // entries: the record, its top level, one group, one bucket, and the new entry with its message
    expect(unsharedObjects(before.tree.entries, after.tree.entries).objects).toBe(6);
    expect(selectTranscript(after)).toHaveLength(1001);
    expect(selectTranscript(after)).toBe(selectTranscript(after)); // memoised
  });

  it("an append re-creates the same few objects at 2,000 and at 20,000 entries (O(1) state per append)", () => {
    const unsharedAfterAppend = (size: number) => {
      // a chain with three side branches near the root, then one entry appended to the leaf in its own batch
      const records = Array.from({ length: size }, (_, i) =>
        userRec(`u${i}`, i === 0 ? null : [10, 20, 30].includes(i) ? `u${i - 2}` : `u${i - 1}`, `m${i}`),
      );
      const before = rebuild(transcriptProjection, records);
      const after = fold(transcriptProjection, before, [userRec("new", `u${size - 1}`, "last")]);
      expect(selectTranscript(after).at(-1)).toMatchObject({ id: "new", text: "last" });
      return unsharedObjects(before, after);
    };
    const small = unsharedAfterAppend(2_000);
    const large = unsharedAfterAppend(20_000);
    // state root, tree, entries + buckets + one bucket, children + buckets + one bucket + siblings, order + chunk
    // array + last chunk, transcript build, its list + chunk array + last chunk, the new entry and its content
    expect(large.objects).toBe(small.objects);
    expect(large.objects).toBeLessThanOrEqual(24);
    // the width copied grows only with the chunk arrays (size / LIST_CHUNK_SIZE), not with the entries
    const bound = (size: number) => 4 * RECORD_FANOUT + 3 * LIST_CHUNK_SIZE + 2 * Math.ceil(size / LIST_CHUNK_SIZE) + 200;
    expect(small.keys).toBeLessThanOrEqual(bound(2_000));
    expect(large.keys).toBeLessThanOrEqual(bound(20_000));
  });

  it("a branch switch on a large state reads the tree without snapshots and shares the untouched parts", () => {
    const records = Array.from({ length: 5_000 }, (_, i) => userRec(`u${i}`, i === 0 ? null : `u${i - 1}`, `m${i}`));
    const before = rebuild(transcriptProjection, records);
    const after = fold(transcriptProjection, before, [userRec("side", "u10", "side")]);
    expect(texts(after).slice(-2)).toEqual(["m10", "side"]);
    expect(after.transcript.entries.length).toBe(12);
    // the tree still changed by O(1) objects; the entries stored in it are the very same objects
    const tree = unsharedObjects(before.tree, after.tree);
    expect(tree.objects).toBeLessThanOrEqual(16);
    expect(entryOf(after.tree, "u3")).toBe(entryOf(before.tree, "u3"));
  });
});
