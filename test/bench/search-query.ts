/**
 * Full-text search (issue 15) over the shared corpus (2,000 sessions, 100 MB at full scale):
 *
 * - search_query_p95: p95 of one search as the route runs it (`SearchIndexer.search`: match expression, recency
 *   bound, bm25 ranking, three hits per session, 30 results with their snippets) over a fixed set of queries
 *   / 50 ms (the promise). Target ≤ 1. The queries are drawn (seeded) from the indexed text itself: one to three
 *   neighbouring words of a random document, the first letters of a word as typed (a prefix), and words found
 *   nowhere; the corpus's vocabulary is small, so most words are in tens of thousands of documents (the hard
 *   case: ranking is bounded to the 2,000 most recent matches, adapters/search/search-store.ts).
 * - search_build_vs_list: building the search index from empty tables (the session index already warm, as the
 *   app starts it after the list is ready), until its first pass is written / the cold session-index build of
 *   the same corpus (empty cache until ready: list_cold_vs_pi's subject), alternated in one process.
 *   Informational: no target was promised. Details: the longest event-loop block during a build (a setImmediate
 *   ticker and `monitorEventLoopDelay`, the larger), documents and database size.
 * The sanity check: every query of a word taken from the corpus finds something, a miss finds nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import type { Corpus } from "./corpus.ts";
import { errorMessage, informationalFigure, measuredFigure, pendingFigure, type Figure } from "./figure.ts";
import { alternate, longestBlock, median, medianRatio, quantile, round, settleHeap, type AlternateOptions } from "./measure.ts";
import { createRng } from "./prng.ts";
import { missing, tryLoad } from "./subjects.ts";

export const SEARCH_QUERY_TARGET = 1;
/** The promise: one search answers within this, p95. */
export const SEARCH_QUERY_PROMISE_MS = 50;
const QUERY_COUNT = 60;
const QUERY_REPEATS = 3;

const QUERY_DESCRIPTION = `p95 of a full-text search (30 results, snippets) over the corpus / ${SEARCH_QUERY_PROMISE_MS} ms`;
const BUILD_DESCRIPTION = "search index build from empty tables (session index warm) until written / cold session index build";

export const SEARCH_FIGURES = ["search_query_p95", "search_build_vs_list"] as const;

interface Modules {
  readonly database: typeof import("../../adapters/sqlite/database.ts");
  readonly index: typeof import("../../adapters/read-side/pi-session-index.ts");
  readonly search: typeof import("../../adapters/search/search-indexer.ts");
  readonly store: typeof import("../../adapters/search/search-store.ts");
}

async function loadModules(): Promise<{ ok: true; modules: Modules } | { ok: false; reason: string }> {
  const database = await tryLoad("adapters/sqlite/database.ts", () => import("../../adapters/sqlite/database.ts"));
  const index = await tryLoad("adapters/read-side/pi-session-index.ts", () => import("../../adapters/read-side/pi-session-index.ts"));
  const search = await tryLoad("adapters/search/search-indexer.ts", () => import("../../adapters/search/search-indexer.ts"));
  const store = await tryLoad("adapters/search/search-store.ts", () => import("../../adapters/search/search-store.ts"));
  if (!database.ok || !index.ok || !search.ok || !store.ok)
    return { ok: false, reason: missing(database, index, search, store) ?? "missing" };
  return { ok: true, modules: { database: database.module, index: index.module, search: search.module, store: store.module } };
}

interface Opened {
  readonly search: import("../../adapters/search/search-indexer.ts").SearchIndexer;
  readonly db: import("../../adapters/sqlite/database.ts").LeylineDatabaseHandle;
  close(): Promise<void>;
}

async function openIndex(modules: Modules, agentDir: string, dataDir: string): Promise<{ opened: Opened; indexMs: number }> {
  const started = performance.now();
  const db = await modules.database.openLeylineDatabase({ dataDir });
  const index = modules.index.createPiSessionIndex({ db: db.db, agentDir, watch: false, rescanIntervalMs: 0 });
  await index.ready;
  await index.verified;
  const indexMs = performance.now() - started;
  const search = modules.search.createSearchIndexer({ db: db.db, index, startDelayMs: 0 });
  return {
    indexMs,
    opened: {
      search,
      db,
      close: async () => {
        await search.close();
        await index.close();
        await db.close();
      },
    },
  };
}

/** Seeded queries drawn from the indexed documents: word runs, prefixes as typed, misses. */
function drawQueries(texts: readonly string[], seed: number): { text: string; miss: boolean }[] {
  const rng = createRng(seed);
  const queries: { text: string; miss: boolean }[] = [];
  const words = (text: string): string[] => (text.match(/[\p{L}\p{N}]{3,}/gu) ?? []).slice(0, 400);
  for (let i = 0; queries.length < QUERY_COUNT && i < QUERY_COUNT * 20; i++) {
    const found = words(rng.pick(texts));
    if (found.length === 0) continue;
    const at = rng.int(0, found.length - 1);
    const kind = rng.int(0, 19);
    if (kind < 2) queries.push({ text: `zq${rng.hex(6)}x`, miss: true });
    else if (kind < 6) {
      const word = found[at] as string;
      queries.push({ text: word.slice(0, Math.min(word.length, rng.int(3, 5))), miss: false });
    } else {
      const count = kind < 13 ? 1 : kind < 18 ? 2 : 3;
      queries.push({ text: found.slice(at, at + count).join(" ") + " ", miss: false });
    }
  }
  return queries;
}

async function sampleTexts(modules: Modules, db: Opened["db"], seed: number): Promise<string[]> {
  const sqlite = modules.database.sqliteConnectionOf(db.db);
  if (sqlite === null) throw new Error("no sqlite connection");
  const { n } = sqlite.prepare("select max(id) as n from search_text").get() as { n: number };
  const rng = createRng(seed + 1);
  const read = sqlite.prepare("select text from search_text where id = ?");
  const texts: string[] = [];
  for (let i = 0; i < QUERY_COUNT * 4; i++) {
    const row = read.get(rng.int(1, Math.max(1, n))) as { text: string } | undefined;
    if (row !== undefined) texts.push(row.text);
  }
  return texts;
}

export async function benchSearch(
  corpus: Corpus,
  options: AlternateOptions & { readonly seed: number },
): Promise<Record<(typeof SEARCH_FIGURES)[number], Figure>> {
  const loaded = await loadModules();
  if (!loaded.ok) {
    return {
      search_query_p95: pendingFigure(QUERY_DESCRIPTION, SEARCH_QUERY_TARGET, loaded.reason),
      search_build_vs_list: pendingFigure(BUILD_DESCRIPTION, null, loaded.reason),
    };
  }
  const modules = loaded.modules;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-bench-search-"));
  let fresh = 0;
  const open: Opened[] = [];
  const closeAll = async (): Promise<void> => {
    for (const o of open.splice(0)) await o.close();
  };
  let worstBlock = 0;
  let documents = 0;
  let databaseMb = 0;
  try {
    // Session index cache of the corpus, made once: each search build starts after a warm list.
    const warmDir = path.join(scratch, "warm");
    const warm = await openIndex(modules, corpus.agentDir, warmDir);
    await warm.opened.close();
    const warmTemplate = path.join(scratch, "warm-template");
    fs.cpSync(warmDir, warmTemplate, { recursive: true });

    let coldDir = "";
    let buildDir = "";
    const samples = await alternate(
      {
        list: {
          before: () => {
            coldDir = path.join(scratch, `cold-${fresh++}`);
          },
          run: async () => {
            open.push((await openIndex(modules, corpus.agentDir, coldDir)).opened);
          },
          after: async () => {
            await closeAll();
            fs.rmSync(coldDir, { recursive: true, force: true });
          },
        },
        search: {
          before: async () => {
            buildDir = path.join(scratch, `build-${fresh++}`);
            fs.cpSync(warmTemplate, buildDir, { recursive: true });
            open.push((await openIndex(modules, corpus.agentDir, buildDir)).opened);
          },
          run: async () => {
            const opened = open[0] as Opened;
            const { blockMs: block } = await longestBlock(async () => {
              opened.search.start();
              await opened.search.ready;
              await opened.search.idle();
            });
            worstBlock = Math.max(worstBlock, block);
          },
          after: async () => {
            const opened = open[0] as Opened;
            documents = await modules.store.createSearchStore(opened.db.db).countDocuments();
            await closeAll();
            databaseMb = fs.statSync(path.join(buildDir, "leyline.sqlite")).size / 1e6;
            fs.rmSync(buildDir, { recursive: true, force: true });
          },
        },
      },
      options,
    );
    const build = informationalFigure(BUILD_DESCRIPTION, round(medianRatio(samples.search, samples.list), 3), {
      files: corpus.files.length,
      mb: round(corpus.bytes / 1e6, 1),
      rounds: options.rounds,
      subjectMs: round(median(samples.search), 0),
      baselineMs: round(median(samples.list), 0),
      documents,
      databaseMb: round(databaseMb, 1),
      longestBlockMs: round(worstBlock, 1),
      check: documents > 0 ? "ok" : "no documents indexed",
    });

    // Queries over a built index (the last build's tables, kept in a data dir of their own).
    const queryDir = path.join(scratch, "query");
    fs.cpSync(warmTemplate, queryDir, { recursive: true });
    const { opened } = await openIndex(modules, corpus.agentDir, queryDir);
    open.push(opened);
    opened.search.start();
    await opened.search.ready;
    await opened.search.idle();
    const queries = drawQueries(await sampleTexts(modules, opened.db, options.seed), options.seed);
    const problems = new Set<string>();
    const times: number[] = [];
    let hits = 0;
    await settleHeap();
    for (let round = 0; round < options.warmup + QUERY_REPEATS; round++) {
      for (const query of queries) {
        const started = performance.now();
        const answer = await opened.search.search({ text: query.text });
        const ms = performance.now() - started;
        if (round >= options.warmup) times.push(ms);
        hits += answer.results.length;
        if (query.miss && answer.results.length > 0) problems.add(`miss "${query.text}" found ${answer.results.length}`);
        if (!query.miss && answer.results.length === 0) problems.add(`"${query.text}" found nothing`);
        if (!answer.status.ready) problems.add("index not ready");
      }
    }
    const p95 = quantile(times, 0.95);
    const queryFigure = measuredFigure(QUERY_DESCRIPTION, round(p95 / SEARCH_QUERY_PROMISE_MS, 3), SEARCH_QUERY_TARGET, {
      files: corpus.files.length,
      mb: round(corpus.bytes / 1e6, 1),
      queries: queries.length,
      runs: times.length,
      p50Ms: round(quantile(times, 0.5), 1),
      maxMs: round(Math.max(...times), 1),
      meanHits: round(hits / Math.max(1, (options.warmup + QUERY_REPEATS) * queries.length), 1),
      subjectMs: round(p95, 1),
      check: problems.size === 0 ? "ok" : [...problems].slice(0, 3).join("; "),
    });
    return { search_query_p95: queryFigure, search_build_vs_list: build };
  } catch (error) {
    const reason = `search failed: ${errorMessage(error)}`;
    return {
      search_query_p95: pendingFigure(QUERY_DESCRIPTION, SEARCH_QUERY_TARGET, reason),
      search_build_vs_list: pendingFigure(BUILD_DESCRIPTION, null, reason),
    };
  } finally {
    await closeAll().catch(() => undefined);
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
