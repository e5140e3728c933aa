/**
 * list_cold_vs_pi / list_warm_vs_pi: Leyline's session index against pi's `SessionManager.listAll()` on the
 * same agent dir.
 * - cold: a fresh LEYLINE data dir (empty checkpoint cache): open the database (migrations), create the index
 *   as the product does (`createPiSessionIndex`, file watching on), wait until it is ready and take its list.
 * - warm: the same with a data dir whose cache was filled by an earlier run and nothing changed on disk (a
 *   restart). "Ready" is when the index serves its list: on a warm start the stored summaries, before the
 *   background pass that checks them against the disk. The timed run ends with `list()`; the sanity check
 *   asserts that this list was complete (every session listed) and that the verification, awaited untimed
 *   before closing, changed nothing.
 * - baseline: `SessionManager.listAll()` with PI_CODING_AGENT_DIR set to the corpus; pi is imported before
 *   any timing so its import cost (~0.5 s) is not counted.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Corpus } from "./corpus.ts";
import { errorMessage, measuredFigure, pendingFigure, type Figure } from "./figure.ts";
import { alternate, median, medianRatio, round, type AlternateOptions } from "./measure.ts";
import { missing, tryLoad, type CoreSubjects } from "./subjects.ts";

export const LIST_COLD_TARGET = 1.0;
export const LIST_WARM_TARGET = 0.02;

const COLD_DESCRIPTION = "session index, empty cache, until ready / pi SessionManager.listAll()";
const WARM_DESCRIPTION =
  "session index restart, cache present, nothing changed, until ready (stored list served, complete; verified after, untimed) / listAll()";

/** An opened index: how many sessions it listed when ready, and how to close it. */
interface OpenedIndex {
  readonly listed: number;
  /** Whether the index said it was verified when it became ready (a cold start: yes; warm: not yet). */
  readonly verifiedAtReady: boolean;
  /** Waits (untimed) for the verification pass; says what it changed in the list served at ready. */
  verify(): Promise<{ listed: number; changed: number }>;
  close(): Promise<void>;
}

type OpenIndex = (agentDir: string, dataDir: string) => Promise<OpenedIndex>;

/** The index as the product composes it (`createPiSessionIndex`: leyline.sqlite in the data dir, summary set). */
async function loadIndexOpener(): Promise<{ ok: true; open: OpenIndex } | { ok: false; reason: string }> {
  const index = await tryLoad("adapters/read-side/pi-session-index.ts", () => import("../../adapters/read-side/pi-session-index.ts"));
  const database = await tryLoad("adapters/sqlite/database.ts", () => import("../../adapters/sqlite/database.ts"));
  if (!index.ok || !database.ok) return { ok: false, reason: missing(index, database) ?? "missing" };
  const { createPiSessionIndex } = index.module;
  const { openLeylineDatabase } = database.module;
  const open: OpenIndex = async (agentDir, dataDir) => {
    const handle = await openLeylineDatabase({ dataDir });
    const sessionIndex = createPiSessionIndex({ db: handle.db, agentDir });
    await sessionIndex.ready;
    const served = sessionIndex.list();
    const verifiedAtReady = sessionIndex.status().verified;
    return {
      listed: served.length,
      verifiedAtReady,
      verify: async () => {
        await sessionIndex.verified;
        const now = sessionIndex.list();
        const before = new Map(served.map((s) => [s.path, JSON.stringify(s)]));
        let changed = Math.abs(now.length - served.length);
        for (const s of now) if (before.get(s.path) !== JSON.stringify(s)) changed++;
        return { listed: now.length, changed };
      },
      close: async () => {
        await sessionIndex.close();
        await handle.close();
      },
    };
  };
  return { ok: true, open };
}

export async function benchListVsPi(
  corpus: Corpus,
  subjects: CoreSubjects,
  options: AlternateOptions,
): Promise<{ list_cold_vs_pi: Figure; list_warm_vs_pi: Figure }> {
  const opener = await loadIndexOpener();
  if (!opener.ok) {
    return {
      list_cold_vs_pi: pendingFigure(COLD_DESCRIPTION, LIST_COLD_TARGET, opener.reason),
      list_warm_vs_pi: pendingFigure(WARM_DESCRIPTION, LIST_WARM_TARGET, opener.reason),
    };
  }
  const pi = await tryLoad("@earendil-works/pi-coding-agent", () => import("@earendil-works/pi-coding-agent"));
  if (!pi.ok) {
    return {
      list_cold_vs_pi: pendingFigure(COLD_DESCRIPTION, LIST_COLD_TARGET, pi.reason),
      list_warm_vs_pi: pendingFigure(WARM_DESCRIPTION, LIST_WARM_TARGET, pi.reason),
    };
  }
  const { SessionManager } = pi.module;
  const open = opener.open;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-bench-data-"));
  const previousAgentDir = process.env["PI_CODING_AGENT_DIR"];
  process.env["PI_CODING_AGENT_DIR"] = corpus.agentDir;
  let fresh = 0;
  const warmDir = path.join(scratch, "warm");
  let coldDir = "";
  let piListed = -1;
  let coldListed = -1;
  let warmListed = -1;
  /** Sanity problems seen in any round (empty = ok). */
  const problems = new Set<string>();
  let opened: OpenedIndex | null = null;
  const closeOpened = async (): Promise<void> => {
    await opened?.close();
    opened = null;
  };
  try {
    // Fill the warm cache once (untimed).
    const filling = await open(corpus.agentDir, warmDir);
    await filling.close();
    const samples = await alternate(
      {
        pi: {
          run: async () => {
            piListed = (await SessionManager.listAll()).length;
          },
        },
        cold: {
          before: () => {
            coldDir = path.join(scratch, `cold-${fresh++}`);
          },
          run: async () => {
            opened = await open(corpus.agentDir, coldDir);
            coldListed = opened.listed;
          },
          after: async () => {
            if (opened !== null && !opened.verifiedAtReady) problems.add("cold start was ready before it was verified");
            await closeOpened();
            fs.rmSync(coldDir, { recursive: true, force: true });
          },
        },
        warm: {
          run: async () => {
            opened = await open(corpus.agentDir, warmDir);
            warmListed = opened.listed;
          },
          after: async () => {
            if (opened !== null) {
              if (opened.listed !== corpus.files.length) {
                problems.add(`warm list at ready had ${opened.listed} of ${corpus.files.length} sessions`);
              }
              const verified = await opened.verify();
              if (verified.changed > 0) problems.add(`warm verification changed ${verified.changed} listed sessions`);
            }
            await closeOpened();
          },
        },
      },
      options,
    );
    if (piListed !== coldListed || piListed !== warmListed) {
      problems.add(`listed sessions differ: pi ${piListed}, cold ${coldListed}, warm ${warmListed}`);
    }
    const check = problems.size === 0 ? "ok" : [...problems].join("; ");
    const common = {
      files: corpus.files.length,
      mb: round(corpus.bytes / 1e6, 1),
      rounds: options.rounds,
      baselineMs: round(median(samples.pi), 1),
      listed: piListed,
      check,
    };
    return {
      list_cold_vs_pi: measuredFigure(COLD_DESCRIPTION, round(medianRatio(samples.cold, samples.pi)), LIST_COLD_TARGET, {
        ...common,
        subjectMs: round(median(samples.cold), 1),
      }),
      list_warm_vs_pi: measuredFigure(WARM_DESCRIPTION, round(medianRatio(samples.warm, samples.pi), 4), LIST_WARM_TARGET, {
        ...common,
        subjectMs: round(median(samples.warm), 2),
      }),
    };
  } catch (error) {
    const reason = `session index failed: ${errorMessage(error)}`;
    return {
      list_cold_vs_pi: pendingFigure(COLD_DESCRIPTION, LIST_COLD_TARGET, reason),
      list_warm_vs_pi: pendingFigure(WARM_DESCRIPTION, LIST_WARM_TARGET, reason),
    };
  } finally {
    await closeOpened().catch(() => undefined);
    if (previousAgentDir === undefined) delete process.env["PI_CODING_AGENT_DIR"];
    else process.env["PI_CODING_AGENT_DIR"] = previousAgentDir;
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
