/**
 * The transcript part of a session export: one block per TranscriptEntry, in branch order. User text is
 * shown as written (escaped, line breaks kept); assistant and custom messages, summaries and research
 * results as safe Markdown; tool calls as `<details>` with their arguments and result; images embedded as
 * data: URIs. The report message links its citations to the ledger anchors and to the report artifact;
 * a researcher `subagent` call links to its threads in the inspector.
 */
import type { ResearchState } from "../../domain/research/research-types.ts";
import type {
  BashTranscriptEntry,
  MessageTranscriptEntry,
  ToolTranscriptEntry,
  TranscriptBlock,
  TranscriptEntry,
} from "../../domain/transcript/transcript-types.ts";
import { threadAnchors } from "./export-research.ts";
import { renderMarkdown } from "./export-markdown.ts";
import { embeddedImage, escapeHtml } from "./html-text.ts";

/** Longest tool argument / result / bash output text kept in the export (the rest is cut, with a note). */
export const EXPORT_TEXT_LIMIT = 200_000;

function bounded(text: string): string {
  if (text.length <= EXPORT_TEXT_LIMIT) return escapeHtml(text);
  return `${escapeHtml(text.slice(0, EXPORT_TEXT_LIMIT))}\n… (${text.length - EXPORT_TEXT_LIMIT} more characters not exported)`;
}

function pre(text: string): string {
  return `<pre>${bounded(text)}</pre>`;
}

function plainText(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, "<br>")}</p>`)
    .join("");
}

function time(timestamp: string): string {
  return timestamp ? ` <time class="muted" datetime="${escapeHtml(timestamp)}">${escapeHtml(timestamp)}</time>` : "";
}

function entryShell(cls: string, role: string, timestamp: string, body: string, id = ""): string {
  return `<div class="entry ${cls}"${id ? ` id="${id}"` : ""}><div class="role">${escapeHtml(role)}${time(timestamp)}</div><div class="body">${body}</div></div>`;
}

function renderBlocks(blocks: readonly TranscriptBlock[], text: (block: string) => string): string {
  return blocks
    .map((block) => {
      switch (block.type) {
        case "text":
          return text(block.text);
        case "image":
          return embeddedImage(block.mimeType, block.data, "image");
        case "thinking":
          return block.redacted
            ? `<p class="muted">[thinking redacted]</p>`
            : `<details class="thinking"><summary>Thinking</summary>${pre(block.text)}</details>`;
        default:
          return "";
      }
    })
    .join("");
}

export interface TranscriptRenderContext {
  research: ResearchState | null;
}

function renderMessage(entry: MessageTranscriptEntry, context: TranscriptRenderContext): string {
  switch (entry.role) {
    case "user":
      return entryShell("user", "User", entry.timestamp, renderBlocks(entry.blocks, plainText));
    case "assistant": {
      const isReport = entry.researchReport !== undefined && context.research !== null;
      const markdown = (text: string): string =>
        renderMarkdown(text, isReport && context.research ? { citationSources: context.research.sources } : {});
      const note = isReport ? `<p class="muted">Research report: see <a href="#report">the report artifact</a>.</p>` : "";
      const error = entry.errorMessage ? `<p class="verdict-unsupported">${escapeHtml(entry.errorMessage)}</p>` : "";
      const model = entry.model ? ` · ${entry.provider}/${entry.model}` : "";
      return entryShell(
        "assistant",
        `Assistant${model}`,
        entry.timestamp,
        note + renderBlocks(entry.blocks, markdown) + error,
        isReport ? "report-message" : "",
      );
    }
    case "custom":
      if (!entry.display) return "";
      return entryShell(
        "custom",
        entry.customType || "Extension",
        entry.timestamp,
        renderBlocks(entry.blocks, (text) => renderMarkdown(text)),
      );
    default:
      return "";
  }
}

function researchThreadLinks(tool: ToolTranscriptEntry, research: ResearchState | null): string {
  if (tool.researchThreads === undefined) return "";
  if (tool.researchThreads.length === 0) return `<p class="muted">Research workers (threads not identified).</p>`;
  const anchors = research ? threadAnchors(research) : {};
  const items = tool.researchThreads.map((thread) => {
    const anchor = anchors[thread.threadId];
    const label = `${thread.threadId} · ${thread.title} (${thread.status})`;
    return `<li>${anchor ? `<a href="#${anchor}">${escapeHtml(label)}</a>` : escapeHtml(label)}</li>`;
  });
  return `<p>Research threads:</p><ul>${items.join("")}</ul>`;
}

function renderTool(tool: ToolTranscriptEntry, context: TranscriptRenderContext): string {
  const args = Object.keys(tool.arguments).length > 0 ? `<h4>Arguments</h4>${pre(JSON.stringify(tool.arguments, null, 2))}` : "";
  const file = tool.file ? `<p>File: <code>${escapeHtml(tool.file)}</code></p>` : "";
  const diff = tool.diff ? `<h4>Diff</h4>${pre(tool.diff)}` : tool.patch ? `<h4>Patch</h4>${pre(tool.patch)}` : "";
  const result =
    tool.status === "pending"
      ? `<p class="muted">No result.</p>`
      : `<h4>${tool.isError ? "Error" : "Result"}</h4>${pre(tool.resultText)}${tool.resultImages.map((image) => embeddedImage(image.mimeType, image.data, "tool result image")).join("")}`;
  const status = tool.status === "error" ? "error" : tool.status === "pending" ? "no result" : "done";
  return (
    `<details class="entry tool"><summary>Tool: ${escapeHtml(tool.name || "(unnamed)")} <span class="muted">${status}</span>${time(tool.timestamp)}</summary>` +
    researchThreadLinks(tool, context.research) +
    file +
    args +
    diff +
    result +
    `</details>`
  );
}

function renderBash(entry: BashTranscriptEntry): string {
  const exit = entry.cancelled ? "cancelled" : entry.exitCode === null ? "no exit code" : `exit ${entry.exitCode}`;
  return (
    `<details class="entry tool" open><summary>Shell: <code>${escapeHtml(entry.command)}</code> <span class="muted">${escapeHtml(exit)}</span>${time(entry.timestamp)}</summary>` +
    pre(entry.output) +
    (entry.truncated ? `<p class="muted">Output truncated by pi.</p>` : "") +
    `</details>`
  );
}

function renderEntry(entry: TranscriptEntry, context: TranscriptRenderContext): string {
  switch (entry.type) {
    case "message":
      return renderMessage(entry, context);
    case "tool":
      return renderTool(entry, context);
    case "bash":
      return renderBash(entry);
    case "model_change":
      return `<p class="entry note">Model: ${escapeHtml(`${entry.provider}/${entry.modelId}`)}${time(entry.timestamp)}</p>`;
    case "thinking_level_change":
      return `<p class="entry note">Thinking level: ${escapeHtml(entry.thinkingLevel)}${time(entry.timestamp)}</p>`;
    case "compaction":
      return `<details class="entry"><summary>Compaction summary <span class="muted">${entry.tokensBefore} tokens before</span>${time(entry.timestamp)}</summary>${renderMarkdown(entry.summary)}</details>`;
    case "branch_summary":
      return `<details class="entry"><summary>Branch summary${time(entry.timestamp)}</summary>${renderMarkdown(entry.summary)}</details>`;
    case "system":
      return `<details class="entry"><summary>System: ${escapeHtml(entry.code)}${time(entry.timestamp)}</summary>${pre(entry.text)}</details>`;
    default:
      return "";
  }
}

/** The transcript section. */
export function renderTranscriptSection(entries: readonly TranscriptEntry[], context: TranscriptRenderContext): string {
  const body =
    entries.length === 0
      ? `<p class="muted">No messages on this branch.</p>`
      : entries.map((entry) => renderEntry(entry, context)).join("");
  return `<section id="transcript"><h2>Transcript</h2>${body}</section>`;
}
