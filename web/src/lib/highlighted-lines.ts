/**
 * A file's text as lines of HTML for the file preview (one element per numbered line). Pure.
 *
 * highlight.js returns one HTML string whose `<span class="hljs-…">` may cross line breaks (block comments,
 * template strings); cutting it at each `\n` closes the open spans at the end of the line and reopens them at
 * the start of the next, so every line is balanced HTML on its own. The input must be highlight.js output
 * (escaped text and its own spans): nothing else is let through unchanged.
 */

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

/** The lines of a text (`\r\n` and `\n` end a line; a final line break does not start an empty line). */
export function textLines(content: string): string[] {
  const lines = content.replace(/\r\n/g, "\n").split("\n");
  if (lines.length > 1 && lines.at(-1) === "") lines.pop();
  return lines;
}

/** Plain text as escaped HTML lines. */
export function plainHtmlLines(content: string): string[] {
  return textLines(content).map(escapeHtml);
}

/** highlight.js HTML cut into balanced lines (see the module comment). */
export function splitHighlightedLines(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let line = "";
  /** Whether the current line has text (a final line of reopened, empty spans is no line). */
  let hasText = false;
  const token = /<span\b[^>]*>|<\/span>|\n|[^<\n]+|</g;
  for (let match = token.exec(html); match !== null; match = token.exec(html)) {
    const part = match[0];
    if (part === "\n") {
      lines.push(line + "</span>".repeat(open.length));
      line = open.join("");
      hasText = false;
    } else if (part === "</span>") {
      if (open.length > 0) {
        open.pop();
        line += part;
      }
    } else if (part.startsWith("<span")) {
      open.push(part);
      line += part;
    } else {
      line += part === "<" ? "&lt;" : part;
      hasText = true;
    }
  }
  if (hasText || lines.length === 0) lines.push(line + "</span>".repeat(open.length));
  return lines;
}
