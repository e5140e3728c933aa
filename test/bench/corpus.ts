/**
 * Deterministic benchmark corpora of pi v3 session files, laid out as pi does:
 * `<agentDir>/sessions/--<cwd>--/<ISO timestamp with : and . as ->_<sessionId>.jsonl`.
 * The same seed and sizes give byte-identical files (seeded PRNG, fixed epoch; no Math.random, no clock).
 */
import fs from "node:fs";
import path from "node:path";
import { createRng, type Rng } from "./prng.ts";
import { SessionBuilder } from "./session-builder.ts";
import { buildTextPools, type TextPools } from "./text-pool.ts";

/** 2025-06-01T00:00:00.000Z: every generated timestamp is this plus seeded offsets. */
const EPOCH_MS = Date.UTC(2025, 5, 1);
const DAY_MS = 86_400_000;

const PROJECTS = [
  "leyline",
  "pi-mono",
  "webapp",
  "infra",
  "data-pipeline",
  "docs-site",
  "cli-tools",
  "mobile",
  "ml-experiments",
  "billing",
  "auth-service",
  "design-system",
  "game-engine",
  "compiler",
  "scraper",
  "notebook",
  "dotfiles",
  "blog",
  "kernel-module",
  "monorepo",
];

/** pi's session folder name for a cwd: `--<cwd without leading slash, / \ : as ->--`. */
export function sessionDirName(cwd: string): string {
  return `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
}

export interface CorpusOptions {
  /** The agent dir to write into (sessions go to `<agentDir>/sessions`). */
  readonly agentDir: string;
  readonly seed: number;
  /** Number of session files. */
  readonly sessions: number;
  /** Approximate total size in bytes (the sizes are skewed: many small sessions, a few big ones). */
  readonly totalBytes: number;
}

export interface CorpusFile {
  readonly path: string;
  readonly bytes: number;
  readonly lines: number;
}

export interface Corpus {
  readonly agentDir: string;
  readonly sessionsDir: string;
  readonly files: readonly CorpusFile[];
  readonly bytes: number;
  readonly lines: number;
}

function poolsFor(rng: Rng): TextPools {
  return buildTextPools(rng);
}

/** Session sizes: log-normal weights (sigma 1.1) scaled to the total, at least 3 KB each. */
function sessionSizes(rng: Rng, sessions: number, totalBytes: number): number[] {
  const weights: number[] = [];
  let sum = 0;
  for (let i = 0; i < sessions; i++) {
    const w = Math.exp(1.1 * rng.normal());
    weights.push(w);
    sum += w;
  }
  return weights.map((w) => Math.max(3072, Math.round((w / sum) * totalBytes)));
}

/** Writes a corpus of `sessions` files (~`totalBytes`) under `<agentDir>/sessions`. */
export function generateCorpus(options: CorpusOptions): Corpus {
  const rng = createRng(options.seed);
  const pools = poolsFor(rng);
  const sessionsDir = path.join(options.agentDir, "sessions");
  const sizes = sessionSizes(rng, options.sessions, options.totalBytes);
  const files: CorpusFile[] = [];
  const written: string[] = [];
  let bytes = 0;
  let lines = 0;
  let remaining = sizes.reduce((a, b) => a + b, 0);
  for (let i = 0; i < options.sessions; i++) {
    // Skewed project choice: a few projects hold most sessions.
    const project = PROJECTS[Math.floor(PROJECTS.length * rng.next() ** 2)] as string;
    const cwd = `/home/dev/projects/${project}`;
    const startMs = EPOCH_MS + Math.floor(rng.next() * 180 * DAY_MS);
    const parentSession = written.length > 0 && rng.chance(0.05) ? rng.pick(written) : undefined;
    const builder = new SessionBuilder(rng, pools, {
      cwd,
      startMs,
      ...(parentSession !== undefined ? { parentSession } : {}),
      research: rng.chance(0.04),
      subagent: parentSession !== undefined && rng.chance(0.5),
    });
    // Steer towards the total: scale this target by what is left over what the remaining targets add up to
    // (one turn is the minimum, so small sessions overshoot; later ones make up for it).
    const factor = Math.min(2, Math.max(0.25, (options.totalBytes - bytes) / Math.max(1, remaining)));
    remaining -= sizes[i] as number;
    builder.fillTo((sizes[i] as number) * factor);
    const dir = path.join(sessionsDir, sessionDirName(cwd));
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, builder.fileName);
    fs.writeFileSync(file, builder.text);
    written.push(file);
    files.push({ path: file, bytes: builder.bytes, lines: builder.lines.length });
    bytes += builder.bytes;
    lines += builder.lines.length;
  }
  return { agentDir: options.agentDir, sessionsDir, files, bytes, lines };
}

export interface SingleSession {
  readonly path: string;
  readonly bytes: number;
  readonly lines: number;
  /** Continues the session: the next line a live pi session would append (a child of the leaf). */
  nextLine(): string;
}

/**
 * Writes one growing session as a series of files: `files[i]` holds the session's first ~`bytes[i]` bytes
 * (whole turns; `bytes` ascending), so the smaller files are prefixes of the larger ones. Each file comes with
 * its own continuation, so appending to one never touches another.
 */
export function generateSessionSeries(options: {
  readonly dir: string;
  readonly seed: number;
  readonly bytes: readonly number[];
}): SingleSession[] {
  const rng = createRng(options.seed);
  const pools = poolsFor(rng);
  const builder = new SessionBuilder(rng, pools, { cwd: "/home/dev/projects/leyline", startMs: EPOCH_MS });
  fs.mkdirSync(options.dir, { recursive: true });
  const series: SingleSession[] = [];
  options.bytes.forEach((target, index) => {
    builder.fillTo(target);
    const file = path.join(options.dir, `${index}-${Math.round(target / 1024)}k_${builder.fileName}`);
    fs.writeFileSync(file, builder.text);
    const next = builder.continuation(createRng(options.seed * 31 + index + 1));
    series.push({ path: file, bytes: builder.bytes, lines: builder.lines.length, nextLine: () => next.nextAppendedLine() });
  });
  return series;
}
