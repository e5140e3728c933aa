/**
 * Two branches of a session side by side (the tree panel's compare view): the transcript entries both share
 * (from the root to the common ancestor), what each has after it, the files each changed there, each one's
 * research report, and, for a research session, each branch's whole source ledger (sources only one side has are
 * marked). Pure: the panel fetches the two transcripts (GET /api/pi/sessions/:id/branch?leafId=…).
 *
 * Rules: entries are shared while both transcripts hold the same entry at the same place (same id and type; a
 * tool entry also the same result); a file counts as changed by a tool entry that did not fail, of a tool the
 * transcript takes for a file change (domain/transcript/tool-entry.ts isFileMutationTool: an edit, a write, a
 * patch), at the file the transcript found for it (the entry's `file`); read-only tools do not count.
 */
import type { ResearchSource, ResearchState } from "../../../../domain/research/research-types.ts";
import { isFileMutationTool } from "../../../../domain/transcript/tool-entry.ts";
import type { AssistantMessageTranscriptEntry, TranscriptEntry } from "../../../../domain/transcript/transcript-types.ts";
import { toolSummary } from "../transcript/transcript-rows.ts";

export interface FileTouch {
  readonly path: string;
  /** The writing tools that touched it, in first-use order, each once. */
  readonly tools: readonly string[];
  /** The other branch changed this file too. */
  readonly both: boolean;
}

export interface BranchReport {
  readonly title: string;
  readonly citations: number;
  readonly validCitations: number;
}

/** A source of a branch's research ledger. */
export interface LedgerSource {
  readonly id: number;
  readonly title: string;
  /** candidate, cited or excluded, as the branch's own ledger says. */
  readonly status: string;
  /** The other branch's ledger has no source with this key (URL, path, else title). */
  readonly onlyHere: boolean;
}

export interface BranchLedger {
  readonly sources: readonly LedgerSource[];
  readonly cited: number;
}

export interface BranchSide {
  /** The entries after the shared part. */
  readonly entries: readonly TranscriptEntry[];
  readonly files: readonly FileTouch[];
  /** The research report written on this side, the last one when several. */
  readonly report: BranchReport | null;
  /** The branch's whole research ledger (a research session), null when it holds none. */
  readonly ledger: BranchLedger | null;
}

export interface BranchComparison {
  readonly shared: readonly TranscriptEntry[];
  readonly a: BranchSide;
  readonly b: BranchSide;
  /** One branch is the start of the other (nothing after the shared part on one side). */
  readonly nested: boolean;
}

function sameEntry(a: TranscriptEntry, b: TranscriptEntry): boolean {
  if (a.id !== b.id || a.type !== b.type) return false;
  if (a.type === "tool" && b.type === "tool") return a.resultEntryId === b.resultEntryId;
  return true;
}

/** How many leading entries the two transcripts share. */
export function sharedLength(a: readonly TranscriptEntry[], b: readonly TranscriptEntry[]): number {
  const limit = Math.min(a.length, b.length);
  let n = 0;
  while (n < limit && sameEntry(a[n] as TranscriptEntry, b[n] as TranscriptEntry)) n += 1;
  return n;
}

/** The file a tool entry changed, or null (a read, a failure, no file). */
export function changedFile(entry: TranscriptEntry): string | null {
  if (entry.type !== "tool" || entry.isError || entry.status === "error" || !isFileMutationTool(entry.name)) return null;
  return entry.file !== undefined && entry.file !== "" ? entry.file : null;
}

function filesOf(entries: readonly TranscriptEntry[]): Map<string, string[]> {
  const files = new Map<string, string[]>();
  for (const entry of entries) {
    const path = changedFile(entry);
    if (path === null || entry.type !== "tool") continue;
    const tools = files.get(path);
    if (tools === undefined) files.set(path, [entry.name]);
    else if (!tools.includes(entry.name)) tools.push(entry.name);
  }
  return files;
}

function reportOf(entries: readonly TranscriptEntry[]): BranchReport | null {
  let found: AssistantMessageTranscriptEntry | null = null;
  for (const entry of entries) {
    if (entry.type === "message" && entry.role === "assistant" && entry.researchReport !== undefined) found = entry;
  }
  const report = found?.researchReport;
  if (report === undefined) return null;
  return {
    title: report.title,
    citations: report.citations.length,
    validCitations: report.citations.filter((citation) => citation.valid).length,
  };
}

const sourceKey = (source: ResearchSource): string => source.key || source.url || source.path || source.title;

function ledgerOf(own: ResearchState | null, other: ResearchState | null): BranchLedger | null {
  if (own === null) return null;
  const elsewhere = new Set((other?.sources ?? []).map(sourceKey));
  return {
    sources: own.sources.map((source) => ({
      id: source.id,
      title: source.title || source.url || source.path,
      status: source.status,
      onlyHere: !elsewhere.has(sourceKey(source)),
    })),
    cited: own.sources.filter((source) => source.status === "cited").length,
  };
}

function side(
  entries: readonly TranscriptEntry[],
  own: Map<string, string[]>,
  other: Map<string, string[]>,
  ledger: BranchLedger | null,
): BranchSide {
  const files = [...own.entries()]
    .map(([path, tools]) => ({ path, tools, both: other.has(path) }))
    .sort((x, y) => x.path.localeCompare(y.path));
  return { entries, files, report: reportOf(entries), ledger };
}

/** Two branches' transcripts (and, for a research session, their research states) compared. */
export function compareBranches(
  a: readonly TranscriptEntry[],
  b: readonly TranscriptEntry[],
  research: { readonly a: ResearchState | null; readonly b: ResearchState | null } = { a: null, b: null },
): BranchComparison {
  const n = sharedLength(a, b);
  const restA = a.slice(n);
  const restB = b.slice(n);
  const filesA = filesOf(restA);
  const filesB = filesOf(restB);
  return {
    shared: a.slice(0, n),
    a: side(restA, filesA, filesB, ledgerOf(research.a, research.b)),
    b: side(restB, filesB, filesA, ledgerOf(research.b, research.a)),
    nested: restA.length === 0 || restB.length === 0,
  };
}

/** One line for an entry in the compare columns: who, and what. */
export function entrySummary(entry: TranscriptEntry): { who: string; text: string } {
  switch (entry.type) {
    case "message":
      return { who: entry.role === "custom" ? entry.customType : entry.role, text: entry.text };
    case "tool":
      return { who: entry.name, text: `${toolSummary(entry.arguments, entry.file)}${entry.isError ? " (failed)" : ""}` };
    case "bash":
      return { who: "bash", text: `$ ${entry.command}` };
    case "compaction":
      return { who: "compaction", text: entry.summary };
    case "branch_summary":
      return { who: "branch summary", text: entry.summary };
    case "model_change":
      return { who: "model", text: `${entry.provider}/${entry.modelId}` };
    case "thinking_level_change":
      return { who: "thinking", text: entry.thinkingLevel };
    case "system":
      return { who: "system", text: entry.text };
    case "usage":
      return { who: "usage", text: entry.copyText };
  }
}
