import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { syntheticTranscript, userEntry } from "../components/transcript/transcript.fixture.ts";
import { applySessionDelta, applySnapshotChunk, EMPTY_LIVE_DETAIL, type LiveDetailState } from "./live-detail.ts";
import { detailSession, sessionDelta, snapshotChunks } from "./live-messages.fixture.ts";

const session = detailSession("s1");

function received(chunks: ReturnType<typeof snapshotChunks>, from: LiveDetailState = EMPTY_LIVE_DETAIL) {
  let state = from;
  const outcomes: string[] = [];
  for (const chunk of chunks) {
    const step = applySnapshotChunk(state, chunk);
    state = step.state;
    outcomes.push(step.outcome);
  }
  return { state, outcomes };
}

describe("live detail: snapshots", () => {
  it("law: a snapshot in chunks of any size rebuilds the entries exactly (unpacked), complete only with the last chunk", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 50 }), (count, size) => {
        const entries = syntheticTranscript(count);
        const { state, outcomes } = received(snapshotChunks(session, entries, 7, size));
        expect(outcomes.at(-1)).toBe("changed");
        expect(outcomes.slice(0, -1).every((o) => o === "pending")).toBe(true);
        expect(state.current?.entries).toEqual(entries);
        expect(state.current).toMatchObject({ sessionId: "s1", revision: 7, session, leafId: entries.at(-1)?.id ?? null });
        expect(state.pending).toBeNull();
      }),
    );
  });

  it("a new snapshot replaces the one being received; a chunk whose beginning was not seen is ignored", () => {
    const entries = syntheticTranscript(6);
    const [first, second] = snapshotChunks(session, entries, 1, 3);
    const restarted = received([first!, ...snapshotChunks(session, entries.slice(0, 2), 2, 5)]);
    expect(restarted.state.current?.entries).toEqual(entries.slice(0, 2));
    expect(applySnapshotChunk(EMPTY_LIVE_DETAIL, second!).outcome).toBe("ignored");
  });

  it("a chunk that does not fit the snapshot being received is out of step", () => {
    const entries = syntheticTranscript(9);
    const [first, , third] = snapshotChunks(session, entries, 1, 3);
    const partial = received([first!]).state;
    expect(applySnapshotChunk(partial, third!).outcome).toBe("out-of-step");
    expect(applySnapshotChunk(partial, { ...third!, offset: 3, revision: 2 }).outcome).toBe("out-of-step");
  });
});

describe("live detail: deltas", () => {
  it("applies deltas in revision order: appends, in-place replacements, truncation, header and leaf changes", () => {
    const v1 = syntheticTranscript(4);
    let state = received(snapshotChunks(session, v1, 10)).state;
    const v2 = [...v1, userEntry("n4", "more", 4)];
    let step = applySessionDelta(state, sessionDelta("s1", v1, v2, 10));
    expect(step.outcome).toBe("changed");
    state = step.state;
    expect(state.current?.entries).toEqual(v2);
    const v3 = [v2[0]!, { ...v2[1]!, text: "edited" } as (typeof v2)[number]];
    step = applySessionDelta(state, sessionDelta("s1", v2, v3, 11, { leafId: "n1", session: { ...session, name: "Renamed" } }));
    expect(step.state.current).toMatchObject({ revision: 12, leafId: "n1", session: { name: "Renamed" } });
    expect(step.state.current?.entries).toEqual(v3);
  });

  it("a delta already applied is ignored; one for a revision not held is out of step, unless a snapshot is coming", () => {
    const v1 = syntheticTranscript(2);
    const v2 = syntheticTranscript(3);
    const state = received(snapshotChunks(session, v1, 5)).state;
    expect(applySessionDelta(state, sessionDelta("s1", v1, v2, 4)).outcome).toBe("ignored");
    expect(applySessionDelta(state, sessionDelta("s1", v1, v2, 6)).outcome).toBe("out-of-step");
    expect(applySessionDelta(EMPTY_LIVE_DETAIL, sessionDelta("s1", v1, v2, 5)).outcome).toBe("out-of-step");
    const coming = received(snapshotChunks(session, v2, 9, 2).slice(0, 1), state).state;
    expect(applySessionDelta(coming, sessionDelta("s1", v1, v2, 7)).outcome).toBe("ignored");
  });

  it("law: snapshot then any series of deltas equals the last transcript", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 6 }), (lengths) => {
        const versions = lengths.map((n, i) =>
          syntheticTranscript(n).map((e) => (i % 2 === 1 && e.type === "message" ? { ...e, text: `${e.text} v${i}` } : e)),
        );
        let state = received(snapshotChunks(session, versions[0]!, 1, 4)).state;
        for (let i = 1; i < versions.length; i++)
          state = applySessionDelta(state, sessionDelta("s1", versions[i - 1]!, versions[i]!, i)).state;
        expect(state.current?.entries).toEqual(versions.at(-1));
        expect(state.current?.revision).toBe(versions.length);
      }),
    );
  });
});
