/**
 * The HTML export of a session (GET /api/pi/sessions/:id/export): one self-contained document with an
 * inline style sheet and nothing to fetch (no scripts, no `<link>`, no remote images: images are data:
 * URIs; a Content-Security-Policy meta tag forbids any load besides inline styles and data: images).
 *
 * Contents: the session facts; for a research session the overview, the report artifact (citations link
 * to `#source-N`, with the citation checks and support verdicts), the research-thread results (offline
 * subagent inspector) and every ledger source with one evidence summary; then the active branch's
 * transcript. Every piece of session text is escaped; Markdown is rendered with raw HTML off.
 *
 * Pure: the caller passes the export time and the generator name.
 */
import type { ResearchState } from "../../domain/research/research-types.ts";
import { NO_MESSAGES } from "../../domain/session-summary.ts";
import type { AssistantMessageTranscriptEntry, TranscriptEntry } from "../../domain/transcript/transcript-types.ts";
import { renderReportSection, renderResearchOverview, renderSourcesSection, renderThreadsSection } from "./export-research.ts";
import { EXPORT_CSS } from "./export-style.ts";
import { renderTranscriptSection } from "./export-transcript.ts";
import { escapeHtml } from "./html-text.ts";

/** The session facts an export shows (SessionDetail.session satisfies it). */
export interface SessionExportSession {
  id: string;
  name?: string;
  cwd: string;
  sessionFile: string;
  firstMessage: string;
  messageCount: number;
  created: string;
  modified: string;
  parentSessionPath?: string;
}

export interface SessionExportInput {
  session: SessionExportSession;
  research: ResearchState | null;
  /** The active branch's transcript, with research annotations (domain/transcript/research-transcript.ts). */
  entries: readonly TranscriptEntry[];
  /** ISO time of the export. */
  exportedAt: string;
  /** Who wrote the document, e.g. "Leyline 0.1.0". */
  generator: string;
}

/** The document's Content-Security-Policy: nothing may load but inline styles and data: images. */
export const EXPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

/** The export's title: the session name, else the report title, else the first message. */
export function exportTitle(input: Pick<SessionExportInput, "session" | "research">): string {
  const name = input.session.name?.trim() ?? "";
  if (name !== "") return name;
  const report = input.research?.reportTitle ?? "";
  if (report !== "") return report;
  const first = input.session.firstMessage.trim();
  return first !== "" && first !== NO_MESSAGES ? first : `Session ${input.session.id}`;
}

function meta(label: string, value: string | undefined): string {
  return value ? `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>` : "";
}

function header(input: SessionExportInput, title: string): string {
  const { session } = input;
  return [
    `<header><h1>${escapeHtml(title)}</h1><dl class="meta">`,
    meta("Session", session.id),
    meta("Working directory", session.cwd),
    meta("Session file", session.sessionFile),
    meta("Parent session", session.parentSessionPath),
    meta("Created", session.created),
    meta("Modified", session.modified),
    meta("Messages", String(session.messageCount)),
    meta("Exported", `${input.exportedAt} by ${input.generator}`),
    `</dl></header>`,
  ].join("");
}

function reportEntry(input: SessionExportInput): AssistantMessageTranscriptEntry | undefined {
  const id = input.research?.reportEntryId ?? "";
  if (id === "") return undefined;
  for (const entry of input.entries) {
    if (entry.type === "message" && entry.role === "assistant" && entry.id === id) return entry;
  }
  return undefined;
}

function researchSections(input: SessionExportInput): string {
  const research = input.research;
  if (research === null) return "";
  return [
    renderResearchOverview(research),
    renderReportSection(research, reportEntry(input)),
    renderThreadsSection(research),
    renderSourcesSection(research),
  ].join("\n");
}

/** The export document. */
export function renderSessionExport(input: SessionExportInput): string {
  const title = exportTitle(input);
  return [
    `<!doctype html>`,
    `<html lang="en"><head><meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta http-equiv="Content-Security-Policy" content="${EXPORT_CSP}">`,
    `<meta name="generator" content="${escapeHtml(input.generator)}">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${EXPORT_CSS}</style>`,
    `</head><body><main>`,
    header(input, title),
    researchSections(input),
    renderTranscriptSection(input.entries, { research: input.research }),
    `</main></body></html>`,
    ``,
  ].join("\n");
}
