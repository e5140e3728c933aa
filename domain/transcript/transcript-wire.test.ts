import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { sessionFileArb } from "../../test/arbitraries/session-log.arbitrary.ts";
import { decodeSessionText } from "../session-decoder.ts";
import { rebuild } from "../../projections/projection.ts";
import { selectTranscript, transcriptProjection } from "../../projections/transcript.projection.ts";
import { packEntry, unpackEntry } from "./transcript-wire.ts";
import type { TranscriptEntry } from "./transcript-types.ts";

const reply = (text: string): TranscriptEntry => ({
  id: "a1",
  type: "message",
  role: "assistant",
  timestamp: "2026-01-01T00:00:00.000Z",
  rolloutFeedback: "",
  rolloutFeedbackText: "",
  text,
  blocks: [
    { type: "thinking", text: "hm" },
    { type: "text", text },
  ],
  copyText: text,
  messageTimestamp: 1,
  provider: "faux",
  model: "faux-1",
  stopReason: "stop",
  usage: {
    input: 1,
    output: 2,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 3,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
});

describe("packEntry", () => {
  it("sends a reply's text once (no text, no copyText, no empty feedback)", () => {
    const text = "x".repeat(20_000);
    const packed = packEntry(reply(text));
    expect(packed).not.toHaveProperty("text");
    expect(packed).not.toHaveProperty("copyText");
    expect(packed).not.toHaveProperty("rolloutFeedback");
    expect(JSON.stringify(packed).length).toBeLessThan(text.length + 500);
    expect(unpackEntry(packed)).toEqual(reply(text));
  });

  it("keeps fields that differ from their derivation", () => {
    const odd = { ...reply("a"), copyText: "something else", rolloutFeedback: "helpful", rolloutFeedbackText: "nice" } as TranscriptEntry;
    const packed = packEntry(odd);
    expect(packed["copyText"]).toBe("something else");
    expect(packed["rolloutFeedback"]).toBe("helpful");
    expect(unpackEntry(packed)).toEqual(odd);
  });

  it("restores derived fields of tools, bash runs and changes", () => {
    const entries: TranscriptEntry[] = [
      {
        id: "t",
        type: "tool",
        timestamp: "",
        rolloutFeedback: "",
        rolloutFeedbackText: "",
        toolCallId: "c",
        name: "bash",
        arguments: {},
        status: "pending",
        resultText: "",
        resultImages: [],
        details: null,
        isError: false,
        callEntryId: "a",
        resultEntryId: null,
        copyText: "bash",
      },
      {
        id: "b",
        type: "bash",
        timestamp: "",
        rolloutFeedback: "",
        rolloutFeedbackText: "",
        command: "ls",
        output: "x\ny",
        exitCode: 0,
        cancelled: false,
        truncated: false,
        excludeFromContext: false,
        messageTimestamp: 1,
        copyText: "$ ls\nx\ny",
      },
      {
        id: "m",
        type: "model_change",
        timestamp: "",
        rolloutFeedback: "",
        rolloutFeedbackText: "",
        provider: "p",
        modelId: "m",
        copyText: "Model: p/m",
      },
      {
        id: "k",
        type: "thinking_level_change",
        timestamp: "",
        rolloutFeedback: "",
        rolloutFeedbackText: "",
        thinkingLevel: "high",
        copyText: "Thinking level: high",
      },
      {
        id: "c",
        type: "compaction",
        timestamp: "",
        rolloutFeedback: "",
        rolloutFeedbackText: "",
        summary: "s",
        tokensBefore: 1,
        firstKeptEntryId: "x",
        fromHook: false,
        copyText: "s",
      },
    ];
    for (const entry of entries) {
      expect(packEntry(entry)).not.toHaveProperty("copyText");
      expect(unpackEntry(packEntry(entry))).toEqual(entry);
    }
  });

  it("never changes its input", () => {
    const entry = Object.freeze(reply("frozen"));
    expect(() => packEntry(entry)).not.toThrow();
    expect((entry as { text: string }).text).toBe("frozen");
  });
});

describe("laws", () => {
  test.prop([sessionFileArb({ maxEntries: 30 })], { numRuns: 150 })("unpack(pack(e)) equals e for every projected entry", (file) => {
    const entries = selectTranscript(rebuild(transcriptProjection, decodeSessionText(file.text).records));
    for (const entry of entries) expect(unpackEntry(JSON.parse(JSON.stringify(packEntry(entry))))).toEqual(entry);
  });

  test.prop([fc.string(), fc.string(), fc.string()])(
    "unpack(pack(e)) equals e when text and copyText follow no rule",
    (text, copyText, block) => {
      const entry = { ...reply(block), text, copyText } as TranscriptEntry;
      expect(unpackEntry(packEntry(entry))).toEqual(entry);
    },
  );
});
