/**
 * Test helpers for the session export: the research session fixture rendered through the real pipeline
 * (transcript builder, research fold, research annotations), and structural checks of the HTML.
 */
import { researchStateFromEntries } from "../../domain/research/research.fold.ts";
import type { ResearchState } from "../../domain/research/research-types.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import { withResearchAnnotations } from "../../domain/transcript/research-transcript.ts";
import { transcriptOfPath } from "../../domain/transcript/transcript-builder.ts";
import type { TranscriptEntry } from "../../domain/transcript/transcript-types.ts";
import { researchSessionRecords } from "../../test/support/research-session.ts";
import type { SessionExportInput } from "./session-export.ts";

/** The export input of a branch (entries root to leaf) of session `sessionId`. */
export function exportInputOf(sessionId: string, branch: readonly SessionEntry[], name?: string): SessionExportInput {
  const research: ResearchState | null = researchStateFromEntries(sessionId, branch);
  const entries: TranscriptEntry[] = withResearchAnnotations(transcriptOfPath(branch), research);
  return {
    session: {
      id: sessionId,
      ...(name !== undefined ? { name } : {}),
      cwd: "/work/project",
      sessionFile: "/agent/sessions/--work-project--/research.jsonl",
      firstMessage: "Research kettle efficiency",
      messageCount: entries.filter((entry) => entry.type === "message").length,
      created: "2026-01-05T10:00:00.000Z",
      modified: "2026-01-05T10:00:13.000Z",
    },
    research,
    entries,
    exportedAt: "2026-01-06T00:00:00.000Z",
    generator: "Leyline test",
  };
}

/** The export input of the research session fixture (test/support/research-session.ts). */
export function researchExportInput(): SessionExportInput {
  const [header, ...entries] = researchSessionRecords();
  return exportInputOf(header.id, entries);
}

/** The tags of a document with their double-quoted attributes (attribute values never contain `"`). */
export function tagsOf(html: string): Array<{ name: string; attributes: Array<[string, string]> }> {
  return [...html.matchAll(/<([a-z][a-z0-9]*)((?:\s+[a-z-]+(?:="[^"]*")?)*)\s*\/?>/gi)].map((match) => ({
    name: (match[1] ?? "").toLowerCase(),
    attributes: [...(match[2] ?? "").matchAll(/([a-z-]+)(?:="([^"]*)")?/gi)].map((m): [string, string] => [
      (m[1] ?? "").toLowerCase(),
      m[2] ?? "",
    ]),
  }));
}

/** Anything in the document that would make a browser fetch something (empty when self-contained). */
export function externalReferences(html: string): string[] {
  const found = [/<script\b/gi, /<link\b/gi, /<iframe\b/gi, /<object\b/gi, /<embed\b/gi].flatMap((pattern) => html.match(pattern) ?? []);
  const css = [...html.matchAll(/<style>([^<]*)<\/style>/g)].map((match) => match[1] ?? "");
  for (const tag of tagsOf(html)) {
    for (const [name, value] of tag.attributes) {
      if ((name === "src" || name === "srcset" || name === "poster") && !value.startsWith("data:"))
        found.push(`<${tag.name} ${name}="${value}">`);
      if (name === "style") css.push(value);
    }
  }
  for (const sheet of css) found.push(...(sheet.match(/@import|url\(/gi) ?? []));
  return found;
}

/** In-page links whose anchor does not exist. */
export function danglingAnchors(html: string): string[] {
  const ids = new Set([...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]));
  return [...html.matchAll(/href="#([^"]*)"/g)].map((match) => match[1] ?? "").filter((id) => !ids.has(id));
}

/** Tags the export may emit (its own markup and markdown-it's). */
export const EXPORT_TAGS = new Set([
  "html",
  "head",
  "meta",
  "title",
  "style",
  "body",
  "main",
  "header",
  "section",
  "article",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "dl",
  "dt",
  "dd",
  "ol",
  "ul",
  "li",
  "p",
  "a",
  "span",
  "strong",
  "em",
  "s",
  "code",
  "pre",
  "details",
  "summary",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "div",
  "time",
  "img",
  "br",
  "hr",
  "blockquote",
]);

export const EXPORT_ATTRIBUTES = new Set([
  "lang",
  "charset",
  "name",
  "content",
  "http-equiv",
  "href",
  "rel",
  "class",
  "title",
  "id",
  "src",
  "alt",
  "datetime",
  "open",
  "aria-label",
  "start",
  "style",
]);

/**
 * Every `<` that does not start one of the export's own tags (with known, double-quoted attributes), after
 * the style sheet is removed: user text that escaped escaping shows up here.
 */
export function foreignMarkup(html: string): string[] {
  const body = html.replace(/<style>[^<]*<\/style>/, "").replace(/^<!doctype html>/, "");
  const problems: string[] = [];
  const tag = /^<(\/?)([a-z0-9]+)((?:\s+[a-z-]+(?:="[^"<>]*")?)*)\s*>/;
  for (let i = body.indexOf("<"); i !== -1; i = body.indexOf("<", i + 1)) {
    const match = tag.exec(body.slice(i, i + 2000));
    const name = match?.[2] ?? "";
    const attributes = [...(match?.[3] ?? "").matchAll(/([a-z-]+)(?:="[^"]*")?/g)].map((m) => m[1] ?? "");
    if (match === null || !EXPORT_TAGS.has(name) || attributes.some((attribute) => !EXPORT_ATTRIBUTES.has(attribute))) {
      problems.push(body.slice(i, i + 60));
    }
  }
  return problems;
}
