/**
 * The research parts of a session export (spec/deep-research.md "Browser projection and export"): the
 * overview with the phase bar, the report artifact with working citation links and the support verdicts,
 * the research-thread results as an offline subagent inspector (one `<details>` per thread; child sessions
 * are named as text, navigation stays in Leyline), and every ledger source with one evidence summary.
 */
import type { CitationSupport } from "../../domain/research/citation-support.ts";
import { RESEARCH_PHASES, type ResearchSource, type ResearchState, type ResearchThread } from "../../domain/research/research-types.ts";
import type { AssistantMessageTranscriptEntry, ResearchReportCitation } from "../../domain/transcript/transcript-types.ts";
import { renderMarkdown, sourceAnchor } from "./export-markdown.ts";
import { escapeHtml, externalLink, idFragment, isoTime } from "./html-text.ts";

const PHASE_LABELS: Record<ResearchState["phase"], string> = {
  plan: "Plan",
  gather: "Gather",
  synthesize: "Synthesize",
  report: "Report",
};

/** The one evidence summary a source shows: an exclusion reason wins over evidence, evidence over the claim. */
export function sourceEvidenceSummary(source: ResearchSource): { label: "Excluded" | "Evidence" | "Claim"; text: string } | null {
  if (source.status === "excluded") return { label: "Excluded", text: source.exclusionReason || "Excluded from the report" };
  if (source.evidence !== "") return { label: "Evidence", text: source.evidence };
  if (source.claim !== "") return { label: "Claim", text: source.claim };
  return null;
}

/** The anchor id of each thread (by thread id), unique within the export. */
export function threadAnchors(research: ResearchState): Record<string, string> {
  const anchors: Record<string, string> = {};
  research.threads.forEach((thread, index) => {
    const fragment = idFragment(thread.id);
    anchors[thread.id] = `thread-${index + 1}${fragment ? `-${fragment}` : ""}`;
  });
  return anchors;
}

/** A link to a source's anchor when the ledger has it, else the bare number. */
export function sourceRef(id: number, research: ResearchState): string {
  const source = research.sources.find((s) => s.id === id);
  if (source === undefined) return `<span class="muted">[${id}]</span>`;
  return `<a href="#${sourceAnchor(id)}" title="${escapeHtml(source.title || source.url || source.path)}">[${id}]</a>`;
}

function badge(text: string, tone: "ok" | "warn" | "bad" | "" = ""): string {
  return `<span class="badge${tone ? ` ${tone}` : ""}">${escapeHtml(text)}</span>`;
}

function statusTone(status: string): "ok" | "warn" | "bad" | "" {
  if (status === "complete" || status === "done" || status === "cited") return "ok";
  if (status === "running" || status === "queued") return "warn";
  if (status === "error" || status === "excluded") return "bad";
  return "";
}

function metaRow(label: string, valueHtml: string): string {
  return valueHtml === "" ? "" : `<dt>${escapeHtml(label)}</dt><dd>${valueHtml}</dd>`;
}

function phaseBar(research: ResearchState): string {
  const current = RESEARCH_PHASES.indexOf(research.phase);
  const items = RESEARCH_PHASES.map((phase, index) => {
    const cls = index === current ? "current" : index < current ? "done" : "";
    return `<li${cls ? ` class="${cls}"` : ""}>${PHASE_LABELS[phase]}</li>`;
  });
  return `<ol class="phases" aria-label="Research phase">${items.join("")}</ol>`;
}

/** Objective, status, phase bar, counts, strategy, note and error. */
export function renderResearchOverview(research: ResearchState): string {
  const counts =
    `${research.completedThreadCount}/${research.threadCount} threads finished · ${research.sourceCount} sources ` +
    `(${research.citedSourceCount} cited, ${research.excludedSourceCount} excluded)`;
  return [
    `<section id="research"><h2>Research</h2>`,
    phaseBar(research),
    `<dl class="meta">`,
    metaRow("Objective", escapeHtml(research.objective)),
    metaRow("Status", badge(research.status, statusTone(research.status))),
    metaRow("Progress", escapeHtml(counts)),
    metaRow("Strategy", escapeHtml(research.strategy)),
    metaRow("Note", escapeHtml(research.note)),
    metaRow("Error", research.error ? `<span class="verdict-unsupported">${escapeHtml(research.error)}</span>` : ""),
    metaRow("Started", escapeHtml(isoTime(research.createdAt))),
    metaRow("Completed", escapeHtml(isoTime(research.completedAt))),
    `</dl></section>`,
  ].join("");
}

function citationRows(citations: readonly ResearchReportCitation[], research: ResearchState): string {
  if (citations.length === 0) return `<p class="muted">The report has no numeric citation.</p>`;
  const rows = citations.map((citation) => {
    const ref = citation.sourceId === null ? `[${citation.number}]` : sourceRef(citation.sourceId, research);
    const check = citation.valid ? badge("valid", "ok") : `${badge("invalid", "bad")} ${escapeHtml(citation.reason)}`;
    return `<tr><td>${citation.sourceId === null ? escapeHtml(ref) : ref}</td><td>${externalLink(citation.target)}</td><td>${check}</td></tr>`;
  });
  return `<table class="citations"><thead><tr><th>Citation</th><th>Target</th><th>Check</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function supportRows(support: readonly CitationSupport[], research: ResearchState): string {
  if (support.length === 0) return `<p class="muted">No cited sentence to assess.</p>`;
  const rows = support.map((item) => {
    const details = [
      item.matchedTerms.length > 0 ? `matched: ${item.matchedTerms.join(", ")}` : "",
      item.missingNumbers.length > 0 ? `numbers not in the source: ${item.missingNumbers.join(", ")}` : "",
    ].filter((text) => text !== "");
    return (
      `<tr><td>${escapeHtml(item.sentence)}</td><td>${sourceRef(item.sourceId, research)}</td>` +
      `<td class="verdict-${escapeHtml(item.verdict)}">${escapeHtml(item.verdict)}</td>` +
      `<td>${escapeHtml(Number.isFinite(item.score) ? item.score.toFixed(2) : "")}</td>` +
      `<td>${escapeHtml(details.join("; "))}</td></tr>`
    );
  });
  return (
    `<table class="support"><thead><tr><th>Sentence</th><th>Source</th><th>Verdict</th><th>Score</th><th>Details</th></tr></thead>` +
    `<tbody>${rows.join("")}</tbody></table>` +
    `<p class="muted">Support compares each cited sentence with the claim and evidence recorded for its source; it is not a fact check.</p>`
  );
}

/** The report artifact: its Markdown with citation links, the citation checks and the support verdicts. */
export function renderReportSection(research: ResearchState, report: AssistantMessageTranscriptEntry | undefined): string {
  const title = research.reportTitle || "Research report";
  if (research.reportEntryId === "") {
    return `<section id="report"><h2>${escapeHtml(title)}</h2><p class="muted">No report has been completed on this branch.</p></section>`;
  }
  if (report === undefined) {
    return `<section id="report"><h2>${escapeHtml(title)}</h2><p class="muted">The report message is not on this branch.</p></section>`;
  }
  const details = report.researchReport;
  return [
    `<section id="report"><h2>${escapeHtml(details?.title || title)}</h2>`,
    `<article class="report">${renderMarkdown(report.text, { citationSources: research.sources })}</article>`,
    `<h3>Citations</h3>`,
    details ? citationRows(details.citations, research) : `<p class="muted">Citations were not checked.</p>`,
    `<h3>Support</h3>`,
    details ? supportRows(details.support, research) : `<p class="muted">Support was not assessed.</p>`,
    `</section>`,
  ].join("");
}

function threadDetails(thread: ResearchThread, anchor: string, research: ResearchState): string {
  const sources =
    thread.sourceIds.length === 0
      ? `<p class="muted">No sources.</p>`
      : `<ul>${thread.sourceIds
          .map((id) => {
            const source = research.sources.find((s) => s.id === id);
            return `<li>${sourceRef(id, research)} ${escapeHtml(source ? source.title || source.url || source.path : "not in the ledger")}</li>`;
          })
          .join("")}</ul>`;
  const child = thread.childSession;
  return [
    `<details id="${anchor}" class="thread">`,
    `<summary>${escapeHtml(thread.id)} · ${escapeHtml(thread.title)} ${badge(thread.status, statusTone(thread.status))} `,
    `<span class="muted">${thread.sourceIds.length} source${thread.sourceIds.length === 1 ? "" : "s"}</span></summary>`,
    `<dl class="meta">`,
    metaRow("Task", escapeHtml(thread.task)),
    metaRow("Started", escapeHtml(isoTime(thread.startedAt))),
    metaRow("Completed", escapeHtml(isoTime(thread.completedAt))),
    metaRow("Error", thread.error ? `<span class="verdict-unsupported">${escapeHtml(thread.error)}</span>` : ""),
    metaRow(
      "Child session",
      child && (child.path || child.id)
        ? `<code>${escapeHtml(child.path || child.id)}</code> <span class="muted">(open it in Leyline)</span>`
        : "",
    ),
    `</dl>`,
    `<h4>Summary</h4>`,
    thread.summary ? renderMarkdown(thread.summary) : `<p class="muted">No result yet.</p>`,
    `<h4>Sources</h4>`,
    sources,
    `</details>`,
  ].join("");
}

/** The offline subagent inspector: every research thread's result. */
export function renderThreadsSection(research: ResearchState): string {
  const anchors = threadAnchors(research);
  const body =
    research.threads.length === 0
      ? `<p class="muted">No research threads.</p>`
      : research.threads.map((thread) => threadDetails(thread, anchors[thread.id] ?? "", research)).join("");
  return `<section id="threads"><h2>Research threads</h2>${body}</section>`;
}

function sourceItem(source: ResearchSource, anchors: Record<string, string>): string {
  const location = source.url ? externalLink(source.url) : `<code>${escapeHtml(source.path)}</code>`;
  const facts = [source.publisher, source.publishedAt, source.kind].filter((text) => text !== "").map(escapeHtml);
  const threads = source.threadIds.map((id) => {
    const anchor = anchors[id];
    return anchor ? `<a href="#${anchor}">${escapeHtml(id)}</a>` : escapeHtml(id);
  });
  const summary = sourceEvidenceSummary(source);
  return [
    `<li id="${sourceAnchor(source.id)}" class="${escapeHtml(source.status)}">`,
    `<strong>[${source.id}]</strong> ${escapeHtml(source.title || source.url || source.path)} ${badge(source.status, statusTone(source.status))}`,
    `<div>${location}</div>`,
    facts.length > 0 ? `<div class="muted">${facts.join(" · ")}</div>` : "",
    threads.length > 0 ? `<div class="muted">Threads: ${threads.join(", ")}</div>` : "",
    summary ? `<p class="evidence"><strong>${summary.label}:</strong> ${escapeHtml(summary.text)}</p>` : "",
    `</li>`,
  ].join("");
}

/** Every ledger source, in ledger order, each with its anchor `#source-N`. */
export function renderSourcesSection(research: ResearchState): string {
  const anchors = threadAnchors(research);
  const body =
    research.sources.length === 0
      ? `<p class="muted">The source ledger is empty.</p>`
      : `<ol class="sources">${research.sources.map((source) => sourceItem(source, anchors)).join("")}</ol>`;
  return `<section id="sources"><h2>Sources</h2>${body}</section>`;
}
