/**
 * Markdown to sanitized HTML: markdown-it (raw HTML off, bare URLs linkified) → DOMPurify, with highlight.js
 * for fenced code. This module is the lazily loaded markdown chunk: import it only through
 * `load-markdown.ts` (a dynamic import), so markdown-it, DOMPurify and highlight.js stay out of the initial
 * bundle.
 *
 * Safety, in layers: markdown-it escapes raw HTML (`html: false`) and refuses `javascript:`, `vbscript:`,
 * `file:` and non-image `data:` link targets; DOMPurify then removes anything scriptable that got through
 * (event handlers, unsafe URL schemes, forms, styles). Every link opens in a new tab with
 * `rel="noopener noreferrer"`.
 *
 * Citations (`citations: true`): a link whose whole text is a number, `[3](url)` or `[[3]](url)` (the
 * research report's numeric citations, domain/research/citations.ts), gets `data-citation="3"`,
 * `data-test="citation-link"` and the class `citation`; MarkdownBlock turns a click on it into an event.
 *
 * File links (`fileLinks: true`, when the backend previews files): a link to a local path or a `file:` URL
 * (lib/file-links.ts isLocalHref; `file:` is let through markdown-it's link check only here), a bare file name
 * linkify took for a domain (`notes.md`), and inline code that looks like a path (`src/app.ts:42`) carry
 * `data-file-href` (the href the file route receives), `data-test="file-link"`, the class `file-link`,
 * `role="link"`, `tabindex="0"` and a "Preview <path>" title. They have no `href`, so nothing navigates (and
 * DOMPurify's URL rules, which refuse `file:`, never see one); MarkdownBlock turns a click into a preview.
 */
import createDOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import type { Token } from "markdown-it";
import { fileLinkTitle, inlineCodeFileLink, isLocalHref } from "../lib/file-links.ts";
import { highlightCode } from "./highlight.ts";
import "./markdown.css";

/** Re-exported for the file preview, which reaches highlight.js through this lazily loaded chunk. */
export { highlightCode };

export interface RenderMarkdownOptions {
  /** Mark numeric links as citations. */
  citations?: boolean;
  /** Turn single newlines into line breaks (what people expect of a typed prompt). */
  breaks?: boolean;
  /** Mark links to local files and path-like inline code as file links (capabilities.fileLinks). */
  fileLinks?: boolean;
}

interface RenderEnv {
  citations: boolean;
}

/** The attributes that make an element a file link (see the module comment). */
function markFileLink(token: Token, href: string, label: string): void {
  token.attrSet("data-file-href", href);
  token.attrSet("data-test", "file-link");
  token.attrJoin("class", "file-link");
  token.attrSet("role", "link");
  token.attrSet("tabindex", "0");
  token.attrSet("title", fileLinkTitle(label));
}

/** Whether the inline token at `index` sits inside a link (its code must not take the link's click). */
function insideLink(tokens: Token[], index: number): boolean {
  let depth = 0;
  for (let i = 0; i < index; i++) {
    const type = tokens[i]?.type;
    if (type === "link_open") depth++;
    else if (type === "link_close") depth--;
  }
  return depth > 0;
}

/** The number a citation link's text names ("3" or "[3]"), or null when the text is not a bare number. */
export function citationNumberOf(linkText: string): number | null {
  const match = /^(?:\[(\d+)\]|(\d+))$/.exec(linkText.trim());
  const digits = match?.[1] ?? match?.[2];
  return digits === undefined ? null : Number(digits);
}

/** The plain text between a `link_open` token and its `link_close`, or null when it holds anything but text. */
function linkTextAt(tokens: Token[], openIndex: number): string | null {
  let text = "";
  for (let i = openIndex + 1; i < tokens.length; i++) {
    const token = tokens[i];
    if (token === undefined || token.type === "link_close") return text;
    if (token.type !== "text") return null;
    text += token.content;
  }
  return null;
}

function createMarkdownIt(breaks: boolean, fileLinks: boolean): MarkdownIt {
  const md = new MarkdownIt({
    html: false,
    linkify: true,
    typographer: false,
    breaks,
    langPrefix: "language-",
    // A known language: highlight.js spans (markdown-it wraps them in <pre><code>); "" → markdown-it escapes.
    highlight: (code, language) => highlightCode(code, language) ?? "",
  });
  if (fileLinks) {
    const validateLink = md.validateLink.bind(md);
    md.validateLink = (url) => validateLink(url) || /^file:/i.test(url.trim());
    const renderCode = md.renderer.rules["code_inline"];
    md.renderer.rules["code_inline"] = (tokens, index, options, env: RenderEnv, self) => {
      const token = tokens[index];
      const link = token === undefined || insideLink(tokens, index) ? null : inlineCodeFileLink(token.content);
      if (token !== undefined && link !== null) markFileLink(token, link.href, link.text);
      return renderCode === undefined ? self.renderToken(tokens, index, options) : renderCode(tokens, index, options, env, self);
    };
  }
  md.renderer.rules["link_open"] = (tokens, index, options, env: RenderEnv, self) => {
    const token = tokens[index];
    const href = token?.attrGet("href") ?? null;
    if (token !== undefined && href !== null && fileLinks) {
      const text = linkTextAt(tokens, index);
      // linkify reads `notes.md` as a domain (.md is a country); a bare file name is a file.
      const linkified = token.markup === "linkify" && text !== null && !text.includes("://") && inlineCodeFileLink(text) !== null;
      const local = token.markup !== "linkify" && isLocalHref(href);
      if (linkified || local) {
        const target = linkified && text !== null ? text : href;
        token.attrs = (token.attrs ?? []).filter(([name]) => name !== "href");
        markFileLink(token, target, md.normalizeLinkText(target));
        return self.renderToken(tokens, index, options);
      }
    }
    if (token !== undefined && env.citations) {
      const text = linkTextAt(tokens, index);
      const number = text === null ? null : citationNumberOf(text);
      if (number !== null) {
        token.attrSet("data-citation", String(number));
        token.attrSet("data-test", "citation-link");
        token.attrJoin("class", "citation");
      }
    }
    return self.renderToken(tokens, index, options);
  };
  return md;
}

const purify = createDOMPurify(window);
purify.addHook("afterSanitizeAttributes", (node) => {
  if (node.nodeName === "A" && node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

const SANITIZE_CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ["style", "form", "input", "button", "textarea", "select", "option", "iframe", "object", "embed"],
  FORBID_ATTR: ["style"],
};

/** Sanitizes an HTML string with the markdown chunk's DOMPurify instance (exported for tests). */
export function sanitizeHtml(html: string): string {
  return purify.sanitize(html, SANITIZE_CONFIG);
}

const renderers = {
  plain: createMarkdownIt(false, false),
  breaks: createMarkdownIt(true, false),
  plainFiles: createMarkdownIt(false, true),
  breaksFiles: createMarkdownIt(true, true),
};

/** Rendered HTML by options and source: rows re-mount while a long transcript scrolls. */
const CACHE_LIMIT = 400;
const cache = new Map<string, string>();

/** Renders Markdown to sanitized HTML (safe for `v-html`). */
export function renderMarkdown(source: string, options: RenderMarkdownOptions = {}): string {
  const citations = options.citations === true;
  const breaks = options.breaks === true;
  const fileLinks = options.fileLinks === true;
  const key = `${citations ? "c" : "-"}${breaks ? "b" : "-"}${fileLinks ? "f" : "-"}${source}`;
  const cached = cache.get(key);
  if (cached !== undefined) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const env: RenderEnv = { citations };
  const md = fileLinks ? (breaks ? renderers.breaksFiles : renderers.plainFiles) : breaks ? renderers.breaks : renderers.plain;
  const html = sanitizeHtml(md.render(source, env));
  cache.set(key, html);
  if (cache.size > CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return html;
}
