/**
 * Normalisation of research text, ids and times, shared by the fold, the source ledger and the replays.
 * Every function is total (never throws) and idempotent: normalising a normalised value returns it
 * unchanged, which is what lets a replay of a state reproduce that state exactly.
 */
import type { ResearchChildSession } from "./research-types.ts";

/** Length bounds of stored text (the same bounds existing Leyline research sessions were written with). */
export const TEXT_LIMITS = {
  objective: 4000,
  strategy: 2000,
  note: 1000,
  reportTitle: 240,
  error: 1000,
  threadId: 32,
  threadTitle: 240,
  threadTask: 4000,
  threadSummary: 2000,
  threadError: 1000,
  sessionRef: 120,
  location: 2000,
  sourceTitle: 500,
  publisher: 240,
  publishedAt: 80,
  sourceKind: 80,
  claim: 1000,
  evidence: 2000,
  exclusionReason: 1000,
} as const;

/** The number of planned threads a `plan` event keeps. */
export const MAX_PLAN_THREADS = 12;

/** Trimmed text bounded to `max` UTF-16 units; anything but a string becomes "". Idempotent. */
export function cleanText(value: unknown, max: number): string {
  if (typeof value !== "string") return "";
  const text = value.trim();
  return text.length <= max ? text : text.slice(0, max).trimEnd();
}

/** A positive safe integer, or null. */
export function positiveId(value: unknown): number | null {
  return typeof value === "number" && Number.isSafeInteger(value) && value > 0 ? value : null;
}

/** Unique positive integer ids in first-seen order; anything that is not an array becomes []. */
export function normalizeIds(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  const seen = new Set<number>();
  const ids: number[] = [];
  for (const item of value) {
    const id = positiveId(item);
    if (id !== null && !seen.has(id)) {
      seen.add(id);
      ids.push(id);
    }
  }
  return ids;
}

/** Unique non-empty cleaned strings in first-seen order. */
export function uniqueStrings(values: readonly unknown[], max: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const value of values) {
    const text = cleanText(value, max);
    if (text && !seen.has(text)) {
      seen.add(text);
      out.push(text);
    }
  }
  return out;
}

/** A finite, non-negative time in ms, or 0. */
export function timeMs(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** A child-session link needs an id or a path; anything else is null. */
export function normalizeChildSession(value: unknown): ResearchChildSession | null {
  if (!isRecord(value)) return null;
  const id = cleanText(value["id"], TEXT_LIMITS.sessionRef);
  const path = cleanText(value["path"], TEXT_LIMITS.location);
  if (!id && !path) return null;
  return { id, path, cwd: cleanText(value["cwd"], TEXT_LIMITS.location) };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
