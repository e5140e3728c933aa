import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { sessionFileArb } from "../../test/arbitraries/session-log.arbitrary.ts";
import { decodeSessionText } from "../session-decoder.ts";
import { fold, rebuild } from "../../projections/projection.ts";
import { selectTranscript, transcriptProjection } from "../../projections/transcript.projection.ts";
import type { LogRecord } from "../session-log.ts";
import { applyTranscriptDelta, diffTranscript, mapTranscriptDelta } from "./transcript-delta.ts";
import type { TranscriptEntry } from "./transcript-types.ts";

const entry = (id: string, text = id): TranscriptEntry => ({
  id,
  type: "message",
  role: "user",
  timestamp: "2026-01-01T00:00:00.000Z",
  rolloutFeedback: "",
  rolloutFeedbackText: "",
  text,
  blocks: [{ type: "text", text }],
  copyText: text,
  messageTimestamp: 1,
});

describe("diffTranscript", () => {
  it("says nothing changed for equal transcripts, identical or not", () => {
    const a = [entry("a"), entry("b")];
    expect(diffTranscript(a, a)).toBeNull();
    expect(diffTranscript(a, [entry("a"), entry("b")])).toBeNull();
  });

  it("appends what follows a common prefix", () => {
    const a = [entry("a")];
    const b = [a[0] as TranscriptEntry, entry("b"), entry("c")];
    expect(diffTranscript(a, b)).toEqual({ appended: [b[1], b[2]] });
  });

  it("replaces an entry whose content changed in place (a tool call completed)", () => {
    const a = [entry("a"), entry("b")];
    const b = [a[0] as TranscriptEntry, entry("b", "done")];
    expect(diffTranscript(a, b)).toEqual({ replaced: [[1, b[1]]] });
  });

  it("cuts where the ids first differ (a leaf move) and appends the new branch", () => {
    const a = [entry("a"), entry("b"), entry("c")];
    const b = [a[0] as TranscriptEntry, entry("x")];
    expect(diffTranscript(a, b)).toEqual({ truncate: 1, appended: [b[1]] });
    expect(diffTranscript(a, [a[0] as TranscriptEntry])).toEqual({ truncate: 1 });
    expect(diffTranscript(a, [])).toEqual({ truncate: 0 });
  });

  it("ignores positions out of range when applying", () => {
    expect(
      applyTranscriptDelta([1, 2], {
        replaced: [
          [5, 9],
          [-1, 9],
        ],
        truncate: 7,
      }),
    ).toEqual([1, 2]);
  });

  it("maps the entries a delta carries", () => {
    expect(mapTranscriptDelta({ replaced: [[0, 1]], truncate: 1, appended: [2, 3] }, (n) => n * 10)).toEqual({
      replaced: [[0, 10]],
      truncate: 1,
      appended: [20, 30],
    });
  });
});

/** Transcripts after each record of a file, folded as a live projection would (one Immer produce per step). */
function transcriptsOf(records: readonly LogRecord[], steps: readonly number[]): TranscriptEntry[][] {
  const out: TranscriptEntry[][] = [];
  let state = rebuild(transcriptProjection, []);
  let at = 0;
  for (const cut of steps) {
    state = fold(transcriptProjection, state, records.slice(at, cut));
    at = cut;
    out.push(selectTranscript(state));
  }
  return out;
}

describe("laws", () => {
  test.prop([sessionFileArb({ maxEntries: 25 }), fc.array(fc.nat(), { maxLength: 6 })], { numRuns: 150 })(
    "applying the diff of two transcripts of a growing session gives the second (incremental folds)",
    (file, cuts) => {
      const { records } = decodeSessionText(file.text);
      const steps = [...cuts.map((c) => c % (records.length + 1)), records.length].sort((a, b) => a - b);
      const transcripts = transcriptsOf(records, steps);
      let shown: TranscriptEntry[] = [];
      for (const next of transcripts) {
        const delta = diffTranscript(shown, next);
        shown = delta === null ? shown : applyTranscriptDelta(shown, delta);
        expect(shown).toEqual(next);
      }
    },
  );

  test.prop([sessionFileArb({ maxEntries: 20 }), sessionFileArb({ maxEntries: 20 })], { numRuns: 100 })(
    "applying the diff between any two transcripts gives the second (unrelated sessions, rebuilt states)",
    (first, second) => {
      const a = selectTranscript(rebuild(transcriptProjection, decodeSessionText(first.text).records));
      const b = selectTranscript(rebuild(transcriptProjection, decodeSessionText(second.text).records));
      const delta = diffTranscript(a, b);
      expect(delta === null ? a : applyTranscriptDelta(a, delta)).toEqual(b);
      expect(diffTranscript(b, b)).toBeNull();
    },
  );
});
