/**
 * The benchmark corpus: deterministic from its seed, laid out like pi's session folders, and made of valid
 * v3 session files with every entry kind the benchmarks are meant to exercise.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import { generateCorpus, generateSessionSeries, sessionDirName } from "./corpus.ts";
import { createRng } from "./prng.ts";

const dirs: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-corpus-test-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function entriesOf(file: string): SessionEntry[] {
  const { records, rest } = decodeSessionText(fs.readFileSync(file, "utf8"));
  expect(rest).toBe("");
  expect(records.filter((r) => r.kind === "malformed")).toEqual([]);
  expect(records[0]?.kind).toBe("header");
  return records.flatMap((r) => (r.kind === "entry" ? [r.entry] : []));
}

function kindOf(entry: SessionEntry): string {
  if (entry.type === "message") return `message:${(entry.message as { role: string }).role}`;
  return entry.type;
}

describe("createRng", () => {
  it("repeats its sequence for a seed and differs between seeds", () => {
    const a = createRng(42);
    const b = createRng(42);
    const c = createRng(43);
    const seqA = Array.from({ length: 20 }, () => a.next());
    expect(Array.from({ length: 20 }, () => b.next())).toEqual(seqA);
    expect(Array.from({ length: 20 }, () => c.next())).not.toEqual(seqA);
    for (const x of seqA) expect(x >= 0 && x < 1).toBe(true);
  });
});

describe("sessionDirName", () => {
  it("names folders as pi does", () => {
    expect(sessionDirName("/home/u/proj")).toBe("--home-u-proj--");
  });
});

describe("generateCorpus", () => {
  it("writes the same bytes for the same seed", () => {
    const options = { seed: 3, sessions: 6, totalBytes: 120 * 1024 };
    const a = generateCorpus({ ...options, agentDir: tempDir() });
    const b = generateCorpus({ ...options, agentDir: tempDir() });
    expect(a.files.map((f) => path.relative(a.agentDir, f.path))).toEqual(b.files.map((f) => path.relative(b.agentDir, f.path)));
    for (let i = 0; i < a.files.length; i++) {
      expect(fs.readFileSync((a.files[i] as { path: string }).path)).toEqual(fs.readFileSync((b.files[i] as { path: string }).path));
    }
  });

  it("lays out valid v3 sessions with the entry kinds of real ones, near the requested size", () => {
    const corpus = generateCorpus({ agentDir: tempDir(), seed: 11, sessions: 40, totalBytes: 2 * 1024 * 1024 });
    expect(corpus.files).toHaveLength(40);
    expect(corpus.bytes).toBeGreaterThan(1.6 * 1024 * 1024);
    expect(corpus.bytes).toBeLessThan(2.6 * 1024 * 1024);
    const kinds = new Set<string>();
    let branches = 0;
    for (const file of corpus.files) {
      expect(path.dirname(path.dirname(file.path))).toBe(corpus.sessionsDir);
      expect(path.basename(path.dirname(file.path))).toMatch(/^--home-dev-projects-[a-z-]+--$/);
      expect(path.basename(file.path)).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_[0-9a-f-]{36}\.jsonl$/);
      expect(fs.statSync(file.path).size).toBe(file.bytes);
      const entries = entriesOf(file.path);
      const ids = new Set<string>();
      let previous: string | null = null;
      for (const entry of entries) {
        kinds.add(kindOf(entry));
        expect(ids.has(entry.id)).toBe(false);
        if (entry.parentId !== null) expect(ids.has(entry.parentId)).toBe(true);
        if (entry.parentId !== previous) branches++;
        ids.add(entry.id);
        previous = entry.id;
      }
    }
    for (const kind of [
      "model_change",
      "thinking_level_change",
      "message:user",
      "message:assistant",
      "message:toolResult",
      "session_info",
    ]) {
      expect(kinds, kind).toContain(kind);
    }
    expect(branches).toBeGreaterThan(0);
  });

  it("covers the rare kinds in a larger corpus", () => {
    const corpus = generateCorpus({ agentDir: tempDir(), seed: 5, sessions: 60, totalBytes: 12 * 1024 * 1024 });
    const kinds = new Set<string>();
    for (const file of corpus.files) for (const entry of entriesOf(file.path)) kinds.add(kindOf(entry));
    for (const kind of ["message:bashExecution", "compaction", "label", "custom", "custom_message", "branch_summary"]) {
      expect(kinds, kind).toContain(kind);
    }
  });
});

describe("generateSessionSeries", () => {
  it("writes growing prefixes of one session, each continued at its own leaf", () => {
    const dir = tempDir();
    const series = generateSessionSeries({ dir, seed: 9, bytes: [40 * 1024, 80 * 1024, 160 * 1024] });
    expect(series).toHaveLength(3);
    const texts = series.map((s) => fs.readFileSync(s.path, "utf8"));
    expect(texts[1]?.startsWith(texts[0] as string)).toBe(true);
    expect(texts[2]?.startsWith(texts[1] as string)).toBe(true);
    for (const session of series) {
      const before = entriesOf(session.path);
      const leaf = before[before.length - 1] as SessionEntry;
      fs.appendFileSync(session.path, session.nextLine() + "\n");
      fs.appendFileSync(session.path, session.nextLine() + "\n");
      const after = entriesOf(session.path);
      expect(after).toHaveLength(before.length + 2);
      const [first, second] = after.slice(-2) as [SessionEntry, SessionEntry];
      expect(first.parentId).toBe(leaf.id);
      expect(second.parentId).toBe(first.id);
      expect(kindOf(first)).toBe("message:assistant");
      expect(kindOf(second)).toBe("message:toolResult");
    }
  });
});
