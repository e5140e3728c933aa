import { describe, expect, it } from "vitest";
import type { ResearchSource } from "../../domain/research/research-types.ts";
import { renderMarkdown } from "./export-markdown.ts";

function source(id: number, fields: Partial<ResearchSource> = {}): ResearchSource {
  return {
    id,
    key: `https://example.com/${id}`,
    url: `https://example.com/${id}`,
    path: "",
    title: `Source ${id}`,
    publisher: "",
    publishedAt: "",
    kind: "",
    status: "cited",
    threadIds: [],
    claim: "",
    evidence: "",
    exclusionReason: "",
    ...fields,
  };
}

describe("renderMarkdown", () => {
  it("escapes raw HTML and keeps basic formatting", () => {
    const html = renderMarkdown("**bold** <script>alert(1)</script>\n\n```\n<b>x</b>\n```\n\n- `<i>`");
    expect(html).toContain("<strong>bold</strong> &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("<pre><code>&lt;b&gt;x&lt;/b&gt;\n</code></pre>");
    expect(html).toContain("<code>&lt;i&gt;</code>");
    expect(html).not.toMatch(/<script|<b>|<i>/);
  });

  it("never loads remote images: data: images are embedded, others become links", () => {
    const html = renderMarkdown(
      "![remote](https://evil.example/x.png) ![local](data:image/png;base64,iVBORw0KGgo=) ![svg](data:image/svg+xml;base64,PHN2Zz4=)",
    );
    expect(html).not.toMatch(/src="http/);
    expect(html).toContain('<a href="https://evil.example/x.png" rel="noopener noreferrer">[image: remote]</a>');
    expect(html).toContain('<img class="embedded" src="data:image/png;base64,iVBORw0KGgo=" alt="local">');
    expect(html).not.toMatch(/src="data:image\/svg/);
  });

  it("drops javascript: links and marks external links noopener", () => {
    const html = renderMarkdown("[x](javascript:alert(1)) [y](https://example.com/y)");
    expect(html).not.toContain('href="javascript');
    expect(html).toContain('<a href="https://example.com/y" rel="noopener noreferrer">y</a>');
  });

  it("links numeric citations to their ledger anchors, marking invalid and missing ones", () => {
    const sources = [source(1), source(2, { status: "excluded" }), source(3)];
    const html = renderMarkdown(
      "A [1](https://example.com/1/). B [[2]](https://example.com/2). C [3](https://other.example/). D [9](https://example.com/9). [text](https://example.com/1)",
      { citationSources: sources },
    );
    expect(html).toContain('<a href="#source-1" class="citation" title="https://example.com/1/">1</a>');
    expect(html).toContain('<a href="#source-2" class="citation invalid" title="https://example.com/2">[2]</a>');
    expect(html).toContain('<a href="#source-3" class="citation invalid" title="https://other.example/">3</a>');
    expect(html).toContain('<span class="citation missing" title="no ledger source 9: https://example.com/9">9</span>');
    expect(html).toContain('<a href="https://example.com/1" rel="noopener noreferrer">text</a>');
  });

  it("leaves numeric links alone without citation sources", () => {
    expect(renderMarkdown("[1](https://example.com/1)")).toContain('<a href="https://example.com/1" rel="noopener noreferrer">1</a>');
  });
});
