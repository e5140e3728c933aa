/**
 * The search indexer over real session files in a temp agent dir, with a real leyline.sqlite: every word of
 * every message is found in its session, appended lines are indexed without reading the file again, rewritten
 * and deleted files lose their stale hits, and a dropped database is rebuilt from the files.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { decodeSessionText } from "../../domain/session-decoder.ts";
import { searchDocumentsOf, type SearchDocument } from "../../domain/search/search-documents.ts";
import { matchExpression } from "../../domain/search/search-query.ts";
import { foldToken } from "../../domain/search/search-snippet.ts";
import type { SearchResult } from "../../domain/search/search-result.ts";
import { sessionFileArb } from "../../test/arbitraries/session-log.arbitrary.ts";
import { createPiSessionIndex } from "../read-side/pi-session-index.ts";
import { tempDir } from "../session-files/session-lines.fixture.ts";
import { openLeylineDatabase, sqliteConnectionOf, type LeylineDatabaseHandle } from "../sqlite/database.ts";
import { createSearchIndexer, SEARCH_FORMAT, type SearchIndexer } from "./search-indexer.ts";
import { createSearchStore } from "./search-store.ts";

interface Opened {
  readonly database: LeylineDatabaseHandle;
  readonly index: ReturnType<typeof createPiSessionIndex>;
  readonly search: SearchIndexer;
  close(): Promise<void>;
}

const opened: Opened[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
});

async function openSearch(agentDir: string, dataDir: string, options: { sliceBytes?: number; flushChars?: number } = {}): Promise<Opened> {
  const database = await openLeylineDatabase({ dataDir });
  const index = createPiSessionIndex({ db: database.db, agentDir, watch: false, rescanIntervalMs: 0 });
  await index.ready;
  const search = createSearchIndexer({ db: database.db, index, startDelayMs: 0, ...options });
  search.start();
  await search.ready;
  await search.idle();
  let closed = false;
  const result: Opened = {
    database,
    index,
    search,
    async close() {
      if (closed) return;
      closed = true;
      await search.close();
      await index.close();
      await database.close();
    },
  };
  opened.push(result);
  return result;
}

/** Makes the index and the search see a changed file. */
async function settle(o: Opened, files: readonly string[]): Promise<void> {
  await o.index.touch(files);
  await o.index.idle();
  await o.search.idle();
}

function dirs(): { agentDir: string; dataDir: string; project: string } {
  const root = tempDir("search");
  const agentDir = path.join(root, "agent");
  const project = path.join(agentDir, "sessions", "--work-project--");
  fs.mkdirSync(project, { recursive: true });
  return { agentDir, dataDir: path.join(root, "data"), project };
}

// ---- generated sessions with one word list per message ------------------------------------------------------

const wordArb = fc.stringMatching(/^[a-zA-Z0-9éüßçñ]{1,10}$/);
const separatorArb = fc.constantFrom(" ", "\n", ", ", ". ", " (", ") ", "_", "-", "/", " \t ", "; ", '"');
const messageTextArb = fc
  .array(fc.tuple(wordArb, separatorArb), { minLength: 1, maxLength: 8 })
  .map((parts) => parts.map(([word, separator]) => word + separator).join(""));

type MessageKind = "user" | "assistant" | "toolCall" | "toolResult" | "bash" | "compaction" | "branchSummary" | "custom";
const messageArb = fc.record({
  kind: fc.constantFrom<MessageKind>("user", "assistant", "toolCall", "toolResult", "bash", "compaction", "branchSummary", "custom"),
  text: messageTextArb,
});

interface GeneratedSession {
  readonly id: string;
  readonly lines: string[];
  /** The words of each entry id (what searching must find there). */
  readonly words: Map<string, Set<string>>;
}

/** A word of ASCII letters and digits with an ASCII non-alphanumeric character (or nothing) on each side. */
// eslint-disable-next-line no-control-regex
const ASCII_WORD = /(?<=^|[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f])[A-Za-z0-9]+(?=$|[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f])/g;

function wordsOf(text: string): string[] {
  return text.match(/[\p{L}\p{N}]+/gu) ?? [];
}

let sessionCounter = 0;

function buildSession(messages: readonly { kind: MessageKind; text: string }[]): GeneratedSession {
  const n = ++sessionCounter;
  const id = `0000${n.toString(16).padStart(4, "0")}-0000-4000-8000-000000000000`;
  const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: "2025-01-02T03:04:05.000Z", cwd: `/work/p${n}` })];
  const words = new Map<string, Set<string>>();
  let parentId: string | null = null;
  messages.forEach((m, i) => {
    const entryId = `${n.toString(16)}e${i.toString(16).padStart(6, "0")}`;
    const timestamp = new Date(Date.UTC(2025, 0, 2, 3, 5, i)).toISOString();
    const common = { id: entryId, parentId, timestamp };
    let entry: Record<string, unknown>;
    switch (m.kind) {
      case "user":
        entry = { ...common, type: "message", message: { role: "user", content: [{ type: "text", text: m.text }], timestamp: i } };
        break;
      case "assistant":
        entry = {
          ...common,
          type: "message",
          message: {
            role: "assistant",
            content: [
              { type: "thinking", thinking: "zzthinking" },
              { type: "text", text: m.text },
            ],
            timestamp: i,
          },
        };
        break;
      case "toolCall":
        entry = {
          ...common,
          type: "message",
          message: {
            role: "assistant",
            content: [{ type: "toolCall", id: `call${i}`, name: "bash", arguments: { command: m.text } }],
            timestamp: i,
          },
        };
        break;
      case "toolResult":
        entry = {
          ...common,
          type: "message",
          message: {
            role: "toolResult",
            toolCallId: `call${i}`,
            toolName: "bash",
            content: [{ type: "text", text: m.text }],
            timestamp: i,
          },
        };
        break;
      case "bash":
        entry = { ...common, type: "message", message: { role: "bashExecution", command: "run", output: m.text, timestamp: i } };
        break;
      case "compaction":
        entry = { ...common, type: "compaction", summary: m.text, firstKeptEntryId: entryId, tokensBefore: 1 };
        break;
      case "branchSummary":
        entry = { ...common, type: "branch_summary", summary: m.text, fromId: entryId };
        break;
      case "custom":
        entry = { ...common, type: "custom_message", customType: "note", content: m.text, display: true };
        break;
    }
    lines.push(JSON.stringify(entry));
    const set = new Set(wordsOf(m.text).map((w) => w.toLowerCase()));
    if (m.kind === "toolCall") set.add("bash");
    if (m.kind === "bash") set.add("run");
    words.set(entryId, set);
    parentId = entryId;
  });
  return { id, lines, words };
}

const sessionArb = fc.array(messageArb, { minLength: 1, maxLength: 6 }).map(buildSession);

function writeSession(project: string, session: GeneratedSession): string {
  const file = path.join(project, `${session.id}.jsonl`);
  fs.writeFileSync(file, session.lines.join("\n") + "\n");
  return file;
}

/** Case- and accent-insensitive word equality, as FTS5's unicode61 tokenizer (remove_diacritics 2) compares. */
function fold(word: string): string {
  return word.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

function entryHas(session: GeneratedSession, entryId: string, word: string): boolean {
  const words = session.words.get(entryId);
  if (words === undefined) return false;
  const wanted = fold(word);
  for (const w of words) if (fold(w) === wanted || (wanted.length >= 3 && fold(w).startsWith(wanted))) return true;
  return false;
}

async function find(search: SearchIndexer, word: string): Promise<SearchResult[]> {
  return (await search.search({ text: word, limit: 100 })).results;
}

describe("search indexer", () => {
  it("finds every word of every message in its session, at entries that hold it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(sessionArb, { minLength: 1, maxLength: 3 }), async (sessions) => {
        const { agentDir, dataDir, project } = dirs();
        for (const session of sessions) writeSession(project, session);
        const o = await openSearch(agentDir, dataDir);
        expect(o.search.status()).toEqual({ indexed: sessions.length, total: sessions.length, ready: true });
        for (const session of sessions) {
          for (const words of session.words.values()) {
            for (const word of words) {
              const results = await find(o.search, word);
              const own = results.filter((r) => r.sessionId === session.id);
              expect(own.length, `"${word}" in ${session.id}`).toBeGreaterThan(0);
              for (const hit of own) expect(entryHas(session, hit.entryId, word), `hit ${hit.entryId} for "${word}"`).toBe(true);
            }
          }
          // Thinking is not indexed.
          expect((await find(o.search, "zzthinking")).length).toBe(0);
        }
        await o.close();
      }),
      { numRuns: 12 },
    );
  });

  it("finds the words of realistic v1, v2 and v3 files (noise, branches, every entry type) at their entries", async () => {
    await fc.assert(
      fc.asyncProperty(sessionFileArb({ maxEntries: 14, noise: true }), async (generated) => {
        const { agentDir, dataDir, project } = dirs();
        fs.writeFileSync(path.join(project, "s.jsonl"), generated.text);
        const decoded = decodeSessionText(generated.text);
        const header = decoded.records.find((r) => r.kind === "header");
        const documents: SearchDocument[] = decoded.records.flatMap((r) => (r.kind === "entry" ? searchDocumentsOf(r.entry) : []));
        const o = await openSearch(agentDir, dataDir);
        if (header === undefined || header.kind !== "header") {
          expect(o.search.status().total).toBe(0);
          return o.close();
        }
        // Words of plain ASCII letters and digits between ASCII separators (or the ends of the text): how other
        // characters tokenize is SQLite's business (its unicode61 tables are Unicode 6.1; a newer symbol next to
        // a word joins it).
        const checked = new Set<string>();
        for (const document of documents) {
          for (const found of document.text.matchAll(ASCII_WORD)) {
            const token = found[0];
            if (checked.has(token.toLowerCase()) || checked.size >= 12) continue;
            checked.add(token.toLowerCase());
            const results = await find(o.search, `${token} `);
            expect(results.length, `"${token}"`).toBeGreaterThan(0);
            for (const hit of results) {
              expect(hit.sessionId).toBe(header.header.id);
              const at = documents.filter((d) => d.entryId === hit.entryId && d.kind === hit.role);
              // The entry holds the token, compared as the index compares (no case, no diacritics: "ü" is "u").
              const tokens = at.flatMap((d) => (d.text.match(/[\p{L}\p{N}\p{Co}]+/gu) ?? []).map(foldToken));
              expect(tokens, `hit ${hit.entryId} for "${token}"`).toContain(token.toLowerCase());
            }
          }
        }
        await o.close();
      }),
      { numRuns: 15 },
    );
  });

  it("drops the hits of a rewritten or deleted file and indexes the new words", async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, sessionArb, fc.boolean(), async (before, after, deleteIt) => {
        const { agentDir, dataDir, project } = dirs();
        const file = writeSession(project, before);
        const other = writeSession(project, buildSession([{ kind: "user", text: "bystander words" }]));
        const o = await openSearch(agentDir, dataDir);
        if (deleteIt) fs.rmSync(file);
        else fs.writeFileSync(file, after.lines.join("\n").replaceAll(after.id, before.id) + "\n");
        await settle(o, [file]);
        const now = deleteIt ? null : after;
        for (const words of before.words.values()) {
          for (const word of words) {
            const own = (await find(o.search, `${word} `)).filter((r) => r.sessionPath === file);
            const stillThere = now !== null && [...now.words.values()].some((set) => [...set].some((w) => fold(w) === fold(word)));
            if (!stillThere) expect(own, `stale hit for "${word}"`).toEqual([]);
          }
        }
        if (now !== null) {
          for (const [, words] of now.words) {
            for (const word of words)
              expect(
                (await find(o.search, word)).some((r) => r.sessionPath === file),
                `"${word}"`,
              ).toBe(true);
          }
        }
        expect((await find(o.search, "bystander")).map((r) => r.sessionPath)).toEqual([other]);
        expect(o.search.status().total).toBe(deleteIt ? 1 : 2);
        await o.close();
      }),
      { numRuns: 10 },
    );
  });

  it("indexes appended lines without reading the file again, in slices", async () => {
    const { agentDir, dataDir, project } = dirs();
    const session = buildSession(Array.from({ length: 40 }, (_, i) => ({ kind: "user" as const, text: `alpha${i} common words here` })));
    const file = writeSession(project, session);
    const o = await openSearch(agentDir, dataDir, { sliceBytes: 1024, flushChars: 512 });
    const store = createSearchStore(o.database.db);
    expect(await store.countDocuments()).toBe(40);
    const before = await store.loadPosition(file);
    fs.appendFileSync(
      file,
      JSON.stringify({
        type: "message",
        id: "tail0001",
        parentId: null,
        timestamp: "2025-01-03T00:00:00.000Z",
        message: { role: "user", content: "omega appended" },
      }) + "\n",
    );
    await settle(o, [file]);
    expect(await store.countDocuments()).toBe(41);
    const after = await store.loadPosition(file);
    expect(after?.cursor.offset).toBe(fs.statSync(file).size);
    expect(after?.cursor.offset).toBeGreaterThan(before?.cursor.offset ?? Infinity);
    expect((await find(o.search, "omega")).map((r) => r.entryId)).toEqual(["tail0001"]);
    expect((await find(o.search, "alpha39")).map((r) => r.entryId)).toHaveLength(1);
    // A torn last line waits for its end.
    fs.appendFileSync(
      file,
      '{"type":"message","id":"torn0001","parentId":null,"timestamp":"2025-01-03T00:00:01.000Z","message":{"role":"user","content":"sigma',
    );
    await settle(o, [file]);
    expect(await find(o.search, "sigma")).toEqual([]);
    fs.appendFileSync(file, ' done"}}\n');
    await settle(o, [file]);
    expect((await find(o.search, "sigma")).map((r) => r.entryId)).toEqual(["torn0001"]);
    expect(await store.countDocuments()).toBe(42);
  });

  it("is rebuilt from the files when leyline.sqlite is deleted, or when its rows have another format", async () => {
    const { agentDir, dataDir, project } = dirs();
    const sessions = [
      buildSession([{ kind: "user", text: "rebuild me quickly" }]),
      buildSession([{ kind: "toolResult", text: "rebuild output" }]),
    ];
    for (const session of sessions) writeSession(project, session);
    const first = await openSearch(agentDir, dataDir);
    const answer = async (o: Opened) =>
      (await o.search.search({ text: "rebuild" })).results.map((r) => [r.sessionId, r.entryId, r.role]).sort();
    const expected = await answer(first);
    expect(expected).toHaveLength(2);
    await first.close();

    fs.rmSync(dataDir, { recursive: true });
    const second = await openSearch(agentDir, dataDir);
    expect(await answer(second)).toEqual(expected);
    // Rows of an older format: dropped at start and indexed again (not doubled).
    sqliteConnectionOf(second.database.db)?.exec(`update search_files set format = ${SEARCH_FORMAT + 100}`);
    await second.close();
    const third = await openSearch(agentDir, dataDir);
    expect(await answer(third)).toEqual(expected);
    expect(await createSearchStore(third.database.db).countDocuments()).toBe(2);
  });

  it("answers no results for a query without words, and filters by folder", async () => {
    const { agentDir, dataDir, project } = dirs();
    const a = buildSession([{ kind: "user", text: "shared word" }]);
    const b = buildSession([{ kind: "user", text: "shared word" }]);
    writeSession(project, a);
    writeSession(project, b);
    const o = await openSearch(agentDir, dataDir);
    expect((await o.search.search({ text: "-- ?? *" })).results).toEqual([]);
    expect((await o.search.search({ text: "shared" })).results).toHaveLength(2);
    const cwd = JSON.parse(a.lines[0] as string).cwd as string;
    expect((await o.search.search({ text: "shared", cwd: `${cwd}/` })).results.map((r) => r.sessionId)).toEqual([a.id]);
    expect((await o.search.search({ text: "shared", cwd: "/nowhere" })).results).toEqual([]);
  });

  it("answers at most three hits per session, best first", async () => {
    const { agentDir, dataDir, project } = dirs();
    const busy = buildSession(Array.from({ length: 8 }, (_, i) => ({ kind: "user" as const, text: `needle ${"filler ".repeat(i)}` })));
    const quiet = buildSession([{ kind: "user", text: "needle" }]);
    writeSession(project, busy);
    writeSession(project, quiet);
    const o = await openSearch(agentDir, dataDir);
    const results = (await o.search.search({ text: "needle", limit: 10 })).results;
    expect(results.filter((r) => r.sessionId === busy.id)).toHaveLength(3);
    expect(results.filter((r) => r.sessionId === quiet.id)).toHaveLength(1);
    expect((await o.search.search({ text: "needle", limit: 2 })).results).toHaveLength(2);
    const snippet = results[0]?.snippet ?? [];
    expect(snippet.some((s) => s.match && s.text.toLowerCase() === "needle")).toBe(true);
  });

  it("accepts every match expression a typed text can make", async () => {
    const { agentDir, dataDir, project } = dirs();
    writeSession(project, buildSession([{ kind: "user", text: "anything at all" }]));
    const o = await openSearch(agentDir, dataDir);
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: "grapheme", maxLength: 60 }), async (text) => {
        const answer = await o.search.search({ text });
        if (matchExpression(text) === null) expect(answer.results).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
