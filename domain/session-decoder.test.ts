import { describe, it, expect } from "vitest";
import fc from "fast-check";
import type { LogRecord } from "./session-log.ts";
import { splitCompleteLines } from "./jsonl-lines.ts";
import { decodeLines, decodeSessionText, decoderStats, initialDecoderState, type DecoderState } from "./session-decoder.ts";
import { candidateEntryId, deterministicEntryId } from "./deterministic-id.ts";
import { sessionFileArb, v1SessionFileArb, type GeneratedSessionFile } from "../test/arbitraries/session-log.arbitrary.ts";

const header3 = JSON.stringify({ type: "session", version: 3, id: "s-1", timestamp: "t", cwd: "/p" });
const line = (o: unknown): string => JSON.stringify(o);

function entriesOf(records: readonly LogRecord[]): Record<string, unknown>[] {
  return records.flatMap((r) => (r.kind === "entry" ? [r.entry as unknown as Record<string, unknown>] : []));
}

function decodeInBatches(lines: readonly string[], cuts: readonly number[]): { state: DecoderState; records: LogRecord[] } {
  const points = [...new Set(cuts.map((c) => c % (lines.length + 1)))].sort((a, b) => a - b);
  let state = initialDecoderState();
  const records: LogRecord[] = [];
  let from = 0;
  for (const to of [...points, lines.length]) {
    const out = decodeLines(state, lines.slice(from, to));
    state = out.state;
    records.push(...out.records);
    from = to;
  }
  return { state, records };
}

describe("decodeSessionText: rules", () => {
  it("emits the header and v3 entries as parsed, numbering physical lines from 1", () => {
    const e1 = { type: "message", id: "a", parentId: null, timestamp: "t", message: { role: "user", content: "hi" } };
    const { records, rest, state } = decodeSessionText(`${header3}\n\n${line(e1)}\n`);
    expect(rest).toBe("");
    expect(records).toEqual([
      { kind: "header", line: 1, header: JSON.parse(header3) },
      { kind: "entry", line: 3, entry: e1 },
    ]);
    expect(decoderStats(state)).toEqual({ lines: 3, malformed: 0, version: 3, sessionId: "s-1", isSession: true });
  });

  it("holds back a torn last line without an error", () => {
    const { records, rest, state } = decodeSessionText(`${header3}\n{"type":"mess`);
    expect(records.map((r) => r.kind)).toEqual(["header"]);
    expect(rest).toBe('{"type":"mess');
    expect(decoderStats(state).malformed).toBe(0);
  });

  it("skips blank and whitespace-only lines (also CRLF ones) but counts them for line numbers", () => {
    const e = { type: "custom", id: "a", parentId: null, timestamp: "t", customType: "x" };
    const { records, state } = decodeSessionText(`\n  \r\n${header3}\r\n\t\n${line(e)}\r\n`);
    expect(records.map((r) => [r.kind, r.line])).toEqual([
      ["header", 3],
      ["entry", 5],
    ]);
    expect(state.lines).toBe(5);
    expect(state.malformed).toBe(0);
  });

  it("turns invalid JSON and non-object lines into counted malformed records", () => {
    const text = `${header3}\n{"type":\n42\n[1]\nnull\n"s"\n${line({ type: "custom", id: "a", parentId: null, timestamp: "t" })}\n`;
    const { records, state } = decodeSessionText(text);
    expect(records.map((r) => (r.kind === "malformed" ? `${r.line}:${r.reason}` : r.kind))).toEqual([
      "header",
      "2:invalid JSON",
      "3:not a JSON object",
      "4:not a JSON object",
      "5:not a JSON object",
      "6:not a JSON object",
      "entry",
    ]);
    expect(decoderStats(state).malformed).toBe(5);
  });

  it("skips invalid JSON before the header: the first parsed line is the header", () => {
    const { records, state } = decodeSessionText(`garbage\n${header3}\n`);
    expect(records.map((r) => r.kind)).toEqual(["malformed", "header"]);
    expect(decoderStats(state).isSession).toBe(true);
  });

  it.each([
    ["a non-session first line", line({ type: "message", id: "x" })],
    ["a header without a string id", line({ type: "session", id: 7 })],
    ["a JSON number first", "42"],
    ["JSON null first", "null"],
    ["an array first", "[]"],
  ])("rejects a file starting with %s: every later non-blank line is malformed", (_name, first) => {
    const text = `${first}\n${header3}\n\n${line({ type: "custom", id: "a", parentId: null })}\nnot json\n`;
    const { records, state } = decodeSessionText(text);
    expect(records.every((r) => r.kind === "malformed")).toBe(true);
    expect(records.map((r) => r.line)).toEqual([1, 2, 4, 5]);
    expect(records.slice(1).every((r) => r.kind === "malformed" && r.reason === "not a session file")).toBe(true);
    expect(decoderStats(state)).toEqual({ lines: 5, malformed: 4, version: null, sessionId: null, isSession: false });
  });

  it("is not a session before any header arrives", () => {
    expect(decoderStats(initialDecoderState()).isSession).toBe(false);
    expect(decoderStats(decodeSessionText("\n\n").state).isSession).toBe(false);
  });

  it("treats a second session header as a malformed record", () => {
    const { records } = decodeSessionText(`${header3}\n${header3}\n`);
    expect(records.map((r) => (r.kind === "malformed" ? r.reason : r.kind))).toEqual(["header", "duplicate session header"]);
  });

  it("passes entries of unknown type through untouched", () => {
    const odd = { type: "x_future", id: "f", parentId: null, timestamp: "t", payload: { deep: [1, "ü"] } };
    const { records } = decodeSessionText(`${header3}\n${line(odd)}\n`);
    expect(entriesOf(records)).toEqual([odd]);
  });

  it("migrates v2 to v3: hookMessage becomes custom, other roles and v3 files are untouched", () => {
    const header2 = line({ type: "session", version: 2, id: "s2", timestamp: "t", cwd: "/" });
    const hook = {
      type: "message",
      id: "a",
      parentId: null,
      timestamp: "t",
      message: { role: "hookMessage", customType: "x", content: "c" },
    };
    const user = { type: "message", id: "b", parentId: "a", timestamp: "t", message: { role: "user", content: "u" } };
    const v2 = decodeSessionText(`${header2}\n${line(hook)}\n${line(user)}\n`);
    expect(v2.records[0]).toMatchObject({ kind: "header", header: { version: 3, id: "s2" } });
    expect(entriesOf(v2.records)).toEqual([{ ...hook, message: { ...hook.message, role: "custom" } }, user]);
    expect(decoderStats(v2.state).version).toBe(2);
    const v3 = decodeSessionText(`${header3}\n${line(hook)}\n`);
    expect(entriesOf(v3.records)).toEqual([hook]);
  });

  it("migrates v1 to v3: deterministic ids as a linear chain, firstKeptEntryIndex -> firstKeptEntryId", () => {
    const header1 = line({ type: "session", id: "s1", timestamp: "t", cwd: "/" });
    const lines = [
      header1,
      line({ type: "message", timestamp: "t", message: { role: "user", content: "a" } }), // parsed index 1
      "not json", // not counted by pi's index
      line({ type: "message", timestamp: "t", message: { role: "hookMessage", content: "h" } }), // 2
      line({ type: "message", timestamp: "t", message: { role: "assistant", content: [] } }), // 3
      line({ type: "compaction", timestamp: "t", summary: "s", tokensBefore: 1, firstKeptEntryIndex: 3 }), // 4
      line({ type: "compaction", timestamp: "t", summary: "s", tokensBefore: 1, firstKeptEntryIndex: 0 }), // header: no id
      line({ type: "compaction", timestamp: "t", summary: "s", tokensBefore: 1, firstKeptEntryIndex: 99 }), // forward: no id
    ];
    const { records, state } = decodeSessionText(`${lines.join("\n")}\n`);
    expect(records[0]).toMatchObject({ kind: "header", header: { version: 3 } });
    const entries = entriesOf(records);
    expect(entries).toHaveLength(6);
    const ids = entries.map((e) => e["id"]);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}$/);
    expect(new Set(ids).size).toBe(6);
    expect(entries.map((e) => e["parentId"])).toEqual([null, ...ids.slice(0, 5)]);
    expect(entries[0]?.["id"]).toBe(candidateEntryId("s1", 1, 0));
    expect((entries[1]?.["message"] as Record<string, unknown>)["role"]).toBe("custom");
    expect(entries[3]?.["firstKeptEntryId"]).toBe(ids[2]);
    for (const compaction of entries.slice(3)) expect("firstKeptEntryIndex" in compaction).toBe(false);
    expect("firstKeptEntryId" in (entries[4] as object)).toBe(false);
    expect("firstKeptEntryId" in (entries[5] as object)).toBe(false);
    expect(decoderStats(state)).toMatchObject({ version: 1, malformed: 1 });
    // a compaction may keep itself (pi assigns its id before resolving the index)
    const self = decodeSessionText(`${header1}\n${line({ type: "compaction", summary: "s", tokensBefore: 0, firstKeptEntryIndex: 1 })}\n`);
    const [only] = entriesOf(self.records);
    expect(only?.["firstKeptEntryId"]).toBe(only?.["id"]);
  });

  it("treats header version 1 like a missing version", () => {
    const a = decodeSessionText(`${line({ type: "session", id: "s", timestamp: "t", cwd: "/" })}\n${line({ type: "custom" })}\n`);
    const b = decodeSessionText(
      `${line({ type: "session", version: 1, id: "s", timestamp: "t", cwd: "/" })}\n${line({ type: "custom" })}\n`,
    );
    expect(entriesOf(a.records)).toEqual(entriesOf(b.records));
    expect(entriesOf(a.records)[0]?.["id"]).toMatch(/^[0-9a-f]{8}$/);
  });

  it("retries on collision: assigned ids stay unique", () => {
    expect(deterministicEntryId("s", 1, (id) => id === candidateEntryId("s", 1, 0))).toBe(candidateEntryId("s", 1, 1));
    const header1 = line({ type: "session", id: "collide", timestamp: "t", cwd: "/" });
    const body = Array.from({ length: 3000 }, () => line({ type: "custom" })).join("\n");
    const ids = entriesOf(decodeSessionText(`${header1}\n${body}\n`).records).map((e) => e["id"]);
    expect(new Set(ids).size).toBe(3000);
  });

  it("does not mutate what an earlier call returned", () => {
    const header1 = line({ type: "session", id: "s", timestamp: "t", cwd: "/" });
    const first = decodeLines(initialDecoderState(), [header1, line({ type: "custom" })]);
    const snapshot = structuredClone(first);
    decodeLines(first.state, [line({ type: "compaction", firstKeptEntryIndex: 1 }), line({ type: "custom" })]);
    decodeLines(first.state, [line({ type: "custom" })]);
    expect(first).toEqual(snapshot);
  });

  it("keeps the state plain JSON", () => {
    const { state } = decodeSessionText(`${line({ type: "session", id: "s", timestamp: "t", cwd: "/" })}\n${line({ type: "custom" })}\n`);
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
  });
});

/** The records expected for a generated file's complete lines, computed from the generator's own bookkeeping. */
function expectedKinds(file: GeneratedSessionFile): string[] {
  return file.lines.flatMap((l, i) => {
    const entryIndex = file.lineEntryIndex[i];
    if (entryIndex === -1) return ["header"];
    if (entryIndex !== null && entryIndex !== undefined) return ["entry"];
    return l.trim() === "" ? [] : ["malformed"];
  });
}

const noisy = { noise: true, crlf: true, orphans: true };

describe("decoder laws", () => {
  it("decodes exactly the file's lines: headers, entries and counted noise", () => {
    fc.assert(
      fc.property(sessionFileArb(noisy), (file) => {
        const { records, state, rest } = decodeSessionText(file.text);
        expect(rest).toBe("");
        expect(records.map((r) => r.kind)).toEqual(expectedKinds(file));
        expect(decoderStats(state).malformed).toBe(records.filter((r) => r.kind === "malformed").length);
        expect(state.lines).toBe(file.lines.length);
        if (file.version === 3) expect(entriesOf(records)).toEqual(file.entries);
      }),
    );
  });

  it("any split of the lines into batches decodes like one batch", () => {
    fc.assert(
      fc.property(sessionFileArb(noisy), fc.array(fc.nat(), { maxLength: 8 }), (file, cuts) => {
        const { lines } = splitCompleteLines(file.text);
        const whole = decodeLines(initialDecoderState(), lines);
        const split = decodeInBatches(lines, cuts);
        expect(split.records).toEqual(whole.records);
        expect(split.state).toEqual(whole.state);
      }),
    );
  });

  it("a byte-level cut yields the records of the complete lines, and completing the file equals decoding it whole", () => {
    const encoder = new TextEncoder();
    const decoder = new TextDecoder();
    fc.assert(
      fc.property(sessionFileArb(noisy), fc.nat(), (file, cutSeed) => {
        const bytes = encoder.encode(file.text);
        const cut = cutSeed % (bytes.length + 1);
        // a reader sees a prefix that may end inside a multi-byte character
        const prefixText = decoder.decode(bytes.subarray(0, cut));
        const first = splitCompleteLines(prefixText);
        const out1 = decodeLines(initialDecoderState(), first.lines);
        const completeLines = splitCompleteLines(file.text).lines.slice(0, first.lines.length);
        expect(out1.records).toEqual(decodeLines(initialDecoderState(), completeLines).records);
        // resume at the byte after the last complete line ("\n" never occurs inside a UTF-8 sequence)
        const consumed = cut === 0 ? 0 : bytes.lastIndexOf(0x0a, cut - 1) + 1; // (a negative fromIndex counts from the end)
        const second = splitCompleteLines(decoder.decode(bytes.subarray(consumed)));
        expect(second.rest).toBe("");
        const out2 = decodeLines(out1.state, second.lines);
        const whole = decodeSessionText(file.text);
        expect([...out1.records, ...out2.records]).toEqual(whole.records);
        expect(out2.state).toEqual(whole.state);
      }),
    );
  });

  it("is deterministic: decoding twice gives equal results, v1 ids are stable", () => {
    fc.assert(
      fc.property(v1SessionFileArb({ noise: true }), (file) => {
        const a = decodeSessionText(file.text);
        const b = decodeSessionText(file.text);
        expect(b).toEqual(a);
        const ids = entriesOf(a.records).map((e) => e["id"]);
        expect(new Set(ids).size).toBe(ids.length);
        // a v1 entry's id depends only on the session id and its position, not on later lines
        const prefix = decodeSessionText(
          file.lines
            .slice(0, Math.ceil(file.lines.length / 2))
            .map((l) => `${l}\n`)
            .join(""),
        );
        expect(entriesOf(prefix.records).map((e) => e["id"])).toEqual(ids.slice(0, entriesOf(prefix.records).length));
      }),
    );
    fc.assert(
      fc.property(sessionFileArb(noisy), (file) => {
        expect(decodeSessionText(file.text)).toEqual(decodeSessionText(file.text));
      }),
    );
  });

  it("v1 migration yields a linear chain whose compactions point at the entry the index named", () => {
    fc.assert(
      fc.property(v1SessionFileArb({ noise: true, crlf: true }), (file) => {
        const entries = entriesOf(decodeSessionText(file.text).records);
        expect(entries).toHaveLength(file.entries.length);
        entries.forEach((entry, i) => {
          expect(entry["parentId"]).toBe(i === 0 ? null : entries[i - 1]?.["id"]);
          const original = file.entries[i] as Record<string, unknown>;
          if (original["type"] !== "compaction") return;
          expect("firstKeptEntryIndex" in entry).toBe(false);
          // find the entry at that parsed-line index in the generated layout
          let parsed = 0;
          let target: number | null = null;
          file.lines.forEach((l, li) => {
            if (l.trim() === "") return;
            try {
              JSON.parse(l);
            } catch {
              return;
            }
            const ei = file.lineEntryIndex[li];
            if (parsed === original["firstKeptEntryIndex"] && ei !== null && ei !== undefined && ei >= 0 && ei <= i) target = ei;
            parsed++;
          });
          expect(entry["firstKeptEntryId"]).toBe(target === null ? undefined : entries[target]?.["id"]);
        });
      }),
    );
  });
});
