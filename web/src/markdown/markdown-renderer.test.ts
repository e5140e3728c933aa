import "./dom-node-name.fixture.ts";
import { describe, expect, it } from "vitest";
import { citationNumberOf, renderMarkdown, sanitizeHtml } from "./markdown-renderer.ts";

/** Parses rendered HTML into a detached container (happy-dom) for structural assertions. */
function parse(html: string): HTMLElement {
  const root = document.createElement("div");
  root.innerHTML = html;
  return root;
}

/** Everything in the rendered tree that could run script: handlers, script URLs, scriptable elements. */
function scriptableParts(root: HTMLElement): string[] {
  const found: string[] = [];
  for (const element of Array.from(root.querySelectorAll("*"))) {
    const tag = element.tagName.toLowerCase();
    if (["script", "iframe", "object", "embed", "style", "form", "svg", "math", "base", "meta", "link"].includes(tag)) {
      found.push(`<${tag}>`);
    }
    for (const attribute of Array.from(element.attributes)) {
      const name = attribute.name.toLowerCase();
      const value = attribute.value.replace(/[\s\p{Cc}]/gu, "").toLowerCase();
      if (name.startsWith("on")) found.push(`${tag}[${name}]`);
      if (name === "style") found.push(`${tag}[style]`);
      if (["href", "src", "action", "formaction", "xlink:href"].includes(name) && /^(javascript|vbscript|data:text)/.test(value)) {
        found.push(`${tag}[${name}=${attribute.value}]`);
      }
    }
  }
  return found;
}

const XSS_VECTORS = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(1)>",
  '<a href="javascript:alert(1)">x</a>',
  "[click](javascript:alert(1))",
  "[click](JaVaScRiPt:alert(1))",
  "[click](  javascript:alert(1))",
  "[click](java\tscript:alert(1))",
  "[click](vbscript:msgbox(1))",
  "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
  "![x](javascript:alert(1))",
  '![x](x" onerror="alert(1))',
  '[x](https://example.com "title" onmouseover=alert(1))',
  "<svg onload=alert(1)>",
  '<iframe src="https://evil.example"></iframe>',
  "<style>body{display:none}</style>",
  "<details open ontoggle=alert(1)>",
  "`<script>alert(1)</script>`",
  "```html\n<script>alert(1)</script>\n```",
  "javascript:alert(1)",
  "<javascript:alert(1)>",
  "[a](&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1))",
];

describe("renderMarkdown", () => {
  it.each(XSS_VECTORS)("leaves nothing scriptable in %s", (source) => {
    const root = parse(renderMarkdown(source));
    expect(scriptableParts(root)).toEqual([]);
  });

  it("shows raw HTML as text instead of rendering it", () => {
    const root = parse(renderMarkdown('before <b onclick="x()">bold</b> after'));
    expect(root.querySelector("b")).toBeNull();
    expect(root.textContent).toContain('<b onclick="x()">bold</b>');
  });

  it("drops javascript: links but keeps their text", () => {
    const root = parse(renderMarkdown("[click me](javascript:alert(1))"));
    expect(root.querySelector("a")).toBeNull();
    expect(root.textContent).toContain("click me");
  });

  it("removes scriptable HTML even when it reaches the sanitizer directly", () => {
    const root = parse(sanitizeHtml('<a href="javascript:alert(1)" onclick="x()">a</a><img src=x onerror="y()"><script>z()</script>'));
    expect(scriptableParts(root)).toEqual([]);
    expect(root.querySelector("script")).toBeNull();
    expect(root.querySelector("a")?.getAttribute("href")).toBeNull();
  });

  it("opens links in a new tab without an opener", () => {
    const root = parse(renderMarkdown("see [docs](https://example.com/docs) and https://example.org/x"));
    const links = Array.from(root.querySelectorAll("a"));
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["https://example.com/docs", "https://example.org/x"]);
    for (const link of links) {
      expect(link.getAttribute("target")).toBe("_blank");
      expect(link.getAttribute("rel")).toBe("noopener noreferrer");
    }
  });

  it("highlights code in a known language", () => {
    const root = parse(renderMarkdown("```ts\nconst answer: number = 42; // yes\n```"));
    const code = root.querySelector("pre > code");
    expect(code?.className).toContain("language-ts");
    expect(code?.querySelector(".hljs-keyword")?.textContent).toBe("const");
    expect(code?.querySelector(".hljs-number")?.textContent).toBe("42");
    expect(code?.querySelector(".hljs-comment")?.textContent).toBe("// yes");
    expect(code?.textContent).toBe("const answer: number = 42; // yes\n");
  });

  it.each([
    ["python", "def f():\n    return 'x'", "hljs-keyword"],
    ["bash", 'echo "hi" && ls', "hljs-built_in"],
    ["json", '{"a": 1}', "hljs-attr"],
    ["diff", "-old\n+new", "hljs-addition"],
    ["go", "func main() {}", "hljs-keyword"],
    ["rust", "fn main() { let x = 1; }", "hljs-keyword"],
    ["yaml", "key: value", "hljs-attr"],
    ["html", '<div class="a"></div>', "hljs-tag"],
    ["css", "a { color: red; }", "hljs-selector-tag"],
    ["js", "let x = `t`;", "hljs-keyword"],
  ])("highlights %s", (language, code, className) => {
    const root = parse(renderMarkdown("```" + language + "\n" + code + "\n```"));
    expect(root.querySelector(`pre code .${className}`)).not.toBeNull();
  });

  it("escapes code in an unknown language without highlighting it", () => {
    const root = parse(renderMarkdown("```cobol\n<b>x</b>\n```"));
    expect(root.querySelector("pre code span")).toBeNull();
    expect(root.querySelector("pre code b")).toBeNull();
    expect(root.querySelector("pre code")?.textContent).toBe("<b>x</b>\n");
  });

  it("marks numeric links as citations only when asked", () => {
    const source = "Claim [1](https://a.example/) and [[2]](https://b.example) but not [two](https://c.example) or `[3](x)`.";
    const plain = parse(renderMarkdown(source));
    expect(plain.querySelectorAll("[data-citation]")).toHaveLength(0);

    const cited = parse(renderMarkdown(source, { citations: true }));
    const links = Array.from(cited.querySelectorAll("a[data-citation]"));
    expect(links.map((a) => a.getAttribute("data-citation"))).toEqual(["1", "2"]);
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["https://a.example/", "https://b.example"]);
    expect(links.every((a) => a.getAttribute("data-test") === "citation-link" && a.classList.contains("citation"))).toBe(true);
    expect(cited.querySelector('a[href="https://c.example"]')?.hasAttribute("data-citation")).toBe(false);
  });

  it("turns single newlines into breaks only when asked", () => {
    expect(parse(renderMarkdown("one\ntwo")).querySelector("br")).toBeNull();
    expect(parse(renderMarkdown("one\ntwo", { breaks: true })).querySelector("br")).not.toBeNull();
  });
});

describe("citationNumberOf", () => {
  it.each([
    ["3", 3],
    ["[12]", 12],
    [" 4 ", 4],
    ["x3", null],
    ["[3", null],
    ["3]", null],
    ["", null],
    ["1.5", null],
  ])("%j → %j", (text, expected) => {
    expect(citationNumberOf(text)).toBe(expected);
  });
});
