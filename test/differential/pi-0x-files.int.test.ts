/**
 * Files written by pi 0.x read exactly as before the move to pi 1.x: session files written by pi 0.74.2's SDK
 * (test/fixtures/pi-0.74-sessions, the differential corpus built with that pi) give the summary, leaf and
 * transcript that Leyline read from them at a1f48a1 (`expected.json`, written then). Only the fields Leyline
 * added since are left out of the comparison: none of the summary's or transcript's, so far.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import { rebuild } from "../../projections/projection.ts";
import { selectSessionSummary, sessionSummaryProjection } from "../../projections/session-summary.projection.ts";
import { sessionTreeProjection } from "../../projections/session-tree.projection.ts";
import { selectTranscript, transcriptProjection } from "../../projections/transcript.projection.ts";
import { PI_074_SESSION_FIXTURES_DIR } from "../support/fixtures.ts";

const expected = JSON.parse(fs.readFileSync(path.join(PI_074_SESSION_FIXTURES_DIR, "expected.json"), "utf8")) as Record<string, unknown>;

describe("files written by pi 0.74", () => {
  const files = fs
    .readdirSync(PI_074_SESSION_FIXTURES_DIR)
    .filter((name) => name.endsWith(".jsonl"))
    .sort();

  it("are the corpus the expectations were written for", () => {
    expect(files).toEqual(Object.keys(expected).sort());
    expect(files.length).toBe(5);
  });

  it.each(files)("%s reads as it did with pi 0.74 (summary, leaf, transcript)", (name) => {
    const { records } = decodeSessionText(fs.readFileSync(path.join(PI_074_SESSION_FIXTURES_DIR, name), "utf8"));
    const actual = {
      summary: selectSessionSummary(rebuild(sessionSummaryProjection, records), { path: name, mtimeMs: 0 }),
      leafId: rebuild(sessionTreeProjection, records).leafId,
      transcript: selectTranscript(rebuild(transcriptProjection, records)),
    };
    expect(JSON.parse(JSON.stringify(actual))).toEqual(expected[name]);
  });
});
