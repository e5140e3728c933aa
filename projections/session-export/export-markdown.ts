/**
 * Markdown for the session export, without a DOM: markdown-it with raw HTML off (`html: false`: every `<`
 * of the source is escaped), links kept as links (`rel="noopener noreferrer"`), and no remote resource:
 * an image is embedded only as a data: URI of an allowed type, any other image becomes a link.
 *
 * Citations (the research report): with `citationSources`, a numeric link `[n](target)` or `[[n]](target)`
 * points at the in-page anchor `#source-n` of its ledger source, with the written target as its title and
 * the class `citation` (plus `invalid` when the source is excluded or the target does not match it, as
 * citations.ts checks). A number that names no ledger source is not a link (class `citation missing`).
 */
import MarkdownIt from "markdown-it";
import type { StateCore, Token } from "markdown-it";
import { citationTargetMatches } from "../../domain/research/citations.ts";
import type { ResearchSource } from "../../domain/research/research-types.ts";
import { escapeHtml, imageDataUri } from "./html-text.ts";

export interface MarkdownOptions {
  /** Link numeric citations to `#source-n` anchors of these ledger sources. */
  citationSources?: readonly ResearchSource[];
}

interface MarkdownEnv {
  citationSources?: readonly ResearchSource[];
}

/** The anchor id of a ledger source in the export. */
export function sourceAnchor(id: number): string {
  return `source-${id}`;
}

const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });

md.renderer.rules.link_open = (tokens, index, options, _env, self) => {
  const token = tokens[index];
  const href = token?.attrGet("href") ?? "";
  if (token !== undefined && token.tag === "a" && !href.startsWith("#")) token.attrSet("rel", "noopener noreferrer");
  return self.renderToken(tokens, index, options);
};

md.renderer.rules.image = (tokens, index) => {
  const token = tokens[index];
  if (token === undefined) return "";
  const src = token.attrGet("src") ?? "";
  const alt = token.children ? token.children.map((child) => child.content).join("") : token.content;
  const embedded = /^data:([^;,]+);base64,(.*)$/is.exec(src);
  const uri = embedded ? imageDataUri(embedded[1] ?? "", decodeURIComponentSafe(embedded[2] ?? "")) : null;
  if (uri !== null) return `<img class="embedded" src="${uri}" alt="${escapeHtml(alt)}">`;
  const label = `[image${alt ? `: ${alt}` : ""}]`;
  if (/^https?:\/\//i.test(src)) return `<a href="${escapeHtml(src)}" rel="noopener noreferrer">${escapeHtml(label)}</a>`;
  return `<span class="muted">${escapeHtml(label)}</span>`;
};

md.core.ruler.push("leyline_citations", (state: StateCore) => {
  const sources = (state.env as MarkdownEnv | undefined)?.citationSources;
  if (sources === undefined) return;
  for (const block of state.tokens) {
    if (block.type === "inline" && block.children) linkCitations(block.children, sources);
  }
});

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const CITATION_TEXT = /^\[?(\d{1,9})\]?$/;

/** Rewrites the numeric links of one inline token list (see the module comment). */
function linkCitations(children: Token[], sources: readonly ResearchSource[]): void {
  for (let i = 0; i < children.length; i++) {
    const open = children[i];
    if (open?.type !== "link_open") continue;
    let close = i + 1;
    let text = "";
    let plain = true;
    while (close < children.length && children[close]?.type !== "link_close") {
      const child = children[close];
      if (child?.type === "text") text += child.content;
      else plain = false;
      close++;
    }
    const closeToken = children[close];
    const match = plain ? CITATION_TEXT.exec(text.trim()) : null;
    if (closeToken === undefined || match === null) continue;
    const n = Number(match[1]);
    const href = open.attrGet("href") ?? "";
    const target = decodeURIComponentSafe(href);
    const source = sources.find((s) => s.id === n);
    if (source === undefined) {
      open.tag = "span";
      closeToken.tag = "span";
      open.attrs = [
        ["class", "citation missing"],
        ["title", `no ledger source ${n}: ${target}`],
      ];
      continue;
    }
    const valid = source.status !== "excluded" && (citationTargetMatches(target, source) || citationTargetMatches(href, source));
    open.attrs = [
      ["href", `#${sourceAnchor(n)}`],
      ["class", valid ? "citation" : "citation invalid"],
      ["title", target],
    ];
    i = close;
  }
}

/** Markdown as safe HTML (see the module comment). */
export function renderMarkdown(text: string, options: MarkdownOptions = {}): string {
  const env: MarkdownEnv = options.citationSources !== undefined ? { citationSources: options.citationSources } : {};
  return md.render(text, env);
}
