/**
 * Differential tests: our decoder + session tree against pi's own reader (`parseSessionEntries` +
 * `migrateSessionEntries`, `buildSessionContext`, and `SessionManager.open` on a temp copy of the file).
 * pi's v1 ids are random, so entries are compared by position: ids are replaced by entry indices.
 */
import { describe, it, expect, beforeAll, afterAll } from "vitest";
import fc from "fast-check";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  buildSessionContext,
  migrateSessionEntries,
  parseSessionEntries,
  SessionManager,
  type FileEntry,
  type SessionEntry,
} from "@earendil-works/pi-coding-agent";
import { decodeSessionText, decoderStats } from "../domain/session-decoder.ts";
import { activeBranch, pathTo } from "../domain/session-tree.ts";
import type { LogRecord } from "../domain/session-log.ts";
import { rebuild } from "../projections/projection.ts";
import { sessionTreeProjection } from "../projections/session-tree.projection.ts";
import { sessionFileArb } from "./arbitraries/session-log.arbitrary.ts";
import { PI_SESSION_FIXTURES_DIR } from "./support/fixtures.ts";

const fixturesDir = PI_SESSION_FIXTURES_DIR;
let tmp = "";
let previousAgentDir: string | undefined;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-decoder-"));
  previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
  process.env["PI_CODING_AGENT_DIR"] = path.join(tmp, "agent");
});

afterAll(() => {
  if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
  else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Json = Record<string, unknown>;

/** Replaces ids by entry indices so that files whose ids differ (v1) compare by shape. */
function byIndex(entries: readonly SessionEntry[]): Json[] {
  const index = new Map<string, number>();
  entries.forEach((e, i) => index.set(e.id, i));
  const ref = (id: unknown): unknown => (typeof id === "string" && index.has(id) ? `#${index.get(id)}` : id);
  return entries.map((e) => {
    const copy: Json = JSON.parse(JSON.stringify(e)) as Json;
    copy["id"] = ref(copy["id"]);
    copy["parentId"] = ref(copy["parentId"]);
    if ("firstKeptEntryId" in copy) copy["firstKeptEntryId"] = ref(copy["firstKeptEntryId"]);
    if ("targetId" in copy) copy["targetId"] = ref(copy["targetId"]);
    if ("fromId" in copy) copy["fromId"] = ref(copy["fromId"]);
    return copy;
  });
}

function ours(text: string): { records: LogRecord[]; entries: SessionEntry[] } {
  const { records, rest } = decodeSessionText(text);
  expect(rest).toBe("");
  return { records, entries: records.flatMap((r) => (r.kind === "entry" ? [r.entry] : [])) };
}

function pis(text: string): { header: FileEntry | undefined; entries: SessionEntry[] } {
  const all = parseSessionEntries(text) as FileEntry[];
  migrateSessionEntries(all);
  return { header: all[0], entries: all.filter((e): e is SessionEntry => e.type !== "session") };
}

/** True when following parentIds from some entry revisits an entry. */
function hasParentCycle(entries: readonly SessionEntry[]): boolean {
  const byId = new Map(entries.map((e) => [e.id, e]));
  return entries.some((start) => {
    const seen = new Set<string>();
    let current: SessionEntry | undefined = start;
    while (current !== undefined) {
      if (seen.has(current.id)) return true;
      seen.add(current.id);
      current = current.parentId === null ? undefined : byId.get(current.parentId);
    }
    return false;
  });
}

let fileCounter = 0;

/** Opens a temp copy through pi's SessionManager (which migrates and rewrites the copy, never the original). */
function openCopy(text: string): SessionManager {
  const file = path.join(tmp, `copy-${fileCounter++}.jsonl`);
  fs.writeFileSync(file, text);
  return SessionManager.open(file, path.join(tmp, "sessions"));
}

function compareWithPi(text: string): void {
  const mine = ours(text);
  const theirs = pis(text);
  const header = mine.records.find((r) => r.kind === "header");
  expect(header?.kind === "header" ? header.header : undefined).toEqual(theirs.header);
  expect(mine.entries.map((e) => e.type)).toEqual(theirs.entries.map((e) => e.type));
  expect(byIndex(mine.entries)).toEqual(byIndex(theirs.entries));

  // the active branch gives the same LLM context
  const tree = rebuild(sessionTreeProjection, mine.records);
  const branch = activeBranch(tree);
  expect(buildSessionContext(branch, tree.leafId)).toEqual(buildSessionContext(theirs.entries));

  // and the same path as pi's SessionManager after loading the file
  const sm = openCopy(text);
  const piEntries = sm.getEntries();
  const piIndex = new Map(piEntries.map((e, i) => [e.id, i]));
  const myIndex = new Map(mine.entries.map((e, i) => [e.id, i]));
  expect(branch.map((e) => myIndex.get(e.id))).toEqual(sm.getBranch().map((e) => piIndex.get(e.id)));
  for (const [i, e] of mine.entries.entries()) {
    const piEntry = piEntries[i] as SessionEntry;
    expect(pathTo(tree, e.id).map((x) => myIndex.get(x.id))).toEqual(sm.getBranch(piEntry.id).map((x) => piIndex.get(x.id)));
  }
}

describe("decoder vs pi", () => {
  it.each(fs.readdirSync(fixturesDir).filter((f) => f.endsWith(".jsonl")))("decodes fixture %s like pi", (name) => {
    const text = fs.readFileSync(path.join(fixturesDir, name), "utf8");
    compareWithPi(text);
    const { state } = decodeSessionText(text);
    expect(decoderStats(state)).toMatchObject({ isSession: true, version: 1 });
    // the v1 fixture with a compaction keeps a firstKeptEntryId pointing at the same entry as pi
    const mine = ours(text).entries;
    const compactions = mine.filter((e) => e.type === "compaction");
    for (const c of compactions) expect(c.type === "compaction" && mine.some((e) => e.id === c.firstKeptEntryId)).toBe(true);
  });

  it("decodes generated files (v1, v2, v3, with branches, labels, orphans) like pi", () => {
    fc.assert(
      fc.property(sessionFileArb({ orphans: true, crlf: true, maxEntries: 20 }), (file) => {
        // pi's getBranch and buildSessionContext loop forever on a parent cycle; ours stop (session-tree.test.ts)
        fc.pre(!hasParentCycle(ours(file.text).entries));
        compareWithPi(file.text);
      }),
      { numRuns: 60 },
    );
  });

  it("skips invalid JSON and blank lines like pi", () => {
    fc.assert(
      fc.property(
        sessionFileArb({ maxEntries: 12 }),
        fc.array(fc.tuple(fc.nat(), fc.constantFrom("", "  ", "{oops", "not json ✗")), { maxLength: 5 }),
        (file, junk) => {
          const lines = [...file.lines];
          // never before the header: pi's header is the first parsed line either way, but keep line 1 valid
          for (const [at, text] of junk) lines.splice(1 + (at % lines.length), 0, text);
          compareWithPi(`${lines.join("\n")}\n`);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("rejects what pi rejects: files whose first parsed line is not a session header", () => {
    for (const first of [JSON.stringify({ type: "message", id: "x" }), JSON.stringify({ type: "session", id: 5 }), "[1]"]) {
      const text = `${first}\n${JSON.stringify({ type: "session", version: 3, id: "s", timestamp: "t", cwd: "/" })}\n`;
      const file = path.join(tmp, `bad-${fileCounter++}.jsonl`);
      fs.writeFileSync(file, text);
      // pi 1.x refuses to open it (pi 0.x treated it as empty and started a fresh session over it)
      expect(() => SessionManager.open(file, path.join(tmp, "sessions"))).toThrow(/not a valid pi session/);
      expect(fs.readFileSync(file, "utf8")).toBe(text);
      expect(decoderStats(decodeSessionText(text).state).isSession).toBe(false);
    }
  });
});
