import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { highlightCode } from "../markdown/highlight.ts";
import { escapeHtml, plainHtmlLines, splitHighlightedLines, textLines } from "./highlighted-lines.ts";

/** The text of an HTML fragment (happy-dom). */
function textOf(html: string): string {
  const element = document.createElement("div");
  element.innerHTML = html;
  return element.textContent ?? "";
}

describe("highlighted lines", () => {
  it("cuts highlight.js output at line breaks, closing and reopening the spans that cross them", () => {
    const source = "const a = 1; /* one\ntwo\nthree */ const b = `x\ny`;\n";
    const html = highlightCode(source, "typescript");
    expect(html).not.toBeNull();
    const lines = splitHighlightedLines(html ?? "");
    expect(lines).toHaveLength(4);
    expect(lines.map(textOf)).toEqual(textLines(source));
    expect(lines[1]).toBe('<span class="hljs-comment">two</span>');
    for (const line of lines) expect(line.match(/<span/g)?.length ?? 0).toBe(line.match(/<\/span>/g)?.length ?? 0);
  });

  it("splits plain text into escaped lines; a final line break starts no empty line", () => {
    expect(textLines("a\r\nb\n")).toEqual(["a", "b"]);
    expect(textLines("")).toEqual([""]);
    expect(textLines("\n\n")).toEqual(["", ""]);
    expect(plainHtmlLines("<b>&\n'\"")).toEqual(["&lt;b&gt;&amp;", "&#39;&quot;"]);
  });

  it("keeps every line's text and count for any source (fast-check)", () => {
    const source = fc.array(fc.constantFrom("a", " ", "\n", "/*", "*/", "'", '"', "`", "<", "&", "//", "x = 1;", "${"), { maxLength: 40 });
    fc.assert(
      fc.property(source, fc.constantFrom("typescript", "python", "bash", "markdown"), (parts, language) => {
        const text = parts.join("");
        const lines = splitHighlightedLines(highlightCode(text, language) ?? escapeHtml(text));
        expect(lines.map(textOf)).toEqual(textLines(text));
      }),
      { numRuns: 300 },
    );
  });
});
