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
 */
import createDOMPurify from "dompurify";
import MarkdownIt from "markdown-it";
import type { Token } from "markdown-it";
import { highlightCode } from "./highlight.ts";
import "./markdown.css";

export interface RenderMarkdownOptions {
  /** Mark numeric links as citations. */
  citations?: boolean;
  /** Turn single newlines into line breaks (what people expect of a typed prompt). */
  breaks?: boolean;
}

interface RenderEnv {
  citations: boolean;
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

function createMarkdownIt(breaks: boolean): MarkdownIt {
  const md = new MarkdownIt({
    html: false,
    linkify: true,
    typographer: false,
    breaks,
    langPrefix: "language-",
    // A known language: highlight.js spans (markdown-it wraps them in <pre><code>); "" → markdown-it escapes.
    highlight: (code, language) => highlightCode(code, language) ?? "",
  });
  md.renderer.rules["link_open"] = (tokens, index, options, env: RenderEnv, self) => {
    const token = tokens[index];
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

const renderers = { plain: createMarkdownIt(false), breaks: createMarkdownIt(true) };

/** Rendered HTML by options and source: rows re-mount while a long transcript scrolls. */
const CACHE_LIMIT = 400;
const cache = new Map<string, string>();

/** Renders Markdown to sanitized HTML (safe for `v-html`). */
export function renderMarkdown(source: string, options: RenderMarkdownOptions = {}): string {
  const citations = options.citations === true;
  const breaks = options.breaks === true;
  const key = `${citations ? "c" : "-"}${breaks ? "b" : "-"}${source}`;
  const cached = cache.get(key);
  if (cached !== undefined) {
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const env: RenderEnv = { citations };
  const html = sanitizeHtml((breaks ? renderers.breaks : renderers.plain).render(source, env));
  cache.set(key, html);
  if (cache.size > CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return html;
}
