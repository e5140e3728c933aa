import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  argumentJsonLinks,
  diffLineLinks,
  fileLinkTitle,
  inlineCodeFileLink,
  isLocalHref,
  splitByLinks,
  toolArgumentLinks,
  type FileLink,
} from "./file-links.ts";

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
/** The links' texts, checked to be what the input holds at their offsets. */
function texts(input: string, links: ReadonlyArray<FileLink | null>): Array<string | null> {
  return links.map((link) => {
    if (link === null) return null;
    expect(input.slice(link.start, link.end)).toBe(link.text);
    return link.text;
  });
}

describe("isLocalHref (Markdown link targets)", () => {
  it.each([
    "src/app.ts",
    "./src/app.ts",
    "../docs/notes.md",
    "/etc/hosts",
    "~/notes.md",
    "src/app.ts:42",
    "src/app.ts:42:7",
    "src/app.ts#L10-L20",
    "README.md:12",
    "README.md",
    "file:///home/me/a.ts",
    "FILE://localhost/home/me/a.ts",
    "C:/Users/me/a.ts",
    "a%20b.md",
  ])("%s is a local file", (href) => {
    expect(isLocalHref(href)).toBe(true);
  });

  it.each([
    "",
    "   ",
    "#heading",
    "?q=1",
    "//server/share/a.ts",
    "\\\\server\\share",
    "https://example.com/a.ts",
    "http://localhost:3000/x",
    "mailto:me@example.com",
    "javascript:alert(1)",
    "data:text/plain,hi",
    "vscode://file/a.ts",
    "localhost:3000",
    "src/a\u0000.ts",
  ])("%j is not", (href) => {
    expect(isLocalHref(href)).toBe(false);
  });
});

describe("inlineCodeFileLink", () => {
  it.each([
    ["src/app.ts", "src/app.ts"],
    ["src/app.ts:42", "src/app.ts:42"],
    ["src/app.ts:42:5", "src/app.ts:42:5"],
    ["web/src/App.vue#L3-L9", "web/src/App.vue#L3-L9"],
    ["package.json", "package.json"],
    ["README.md:7", "README.md:7"],
    ["./scripts/build.mjs", "./scripts/build.mjs"],
    ["../x/y.txt", "../x/y.txt"],
    ["/etc/nginx/nginx.conf", "/etc/nginx/nginx.conf"],
    ["~/.config/app/settings.toml", "~/.config/app/settings.toml"],
    ["pages/[id].tsx", "pages/[id].tsx"],
    ["file:///home/me/a.ts", "file:///home/me/a.ts"],
    [" src/a.py ", "src/a.py"],
    ["docs/notes.unknownext", "docs/notes.unknownext"],
  ])("%j is a file link to %j", (code, href) => {
    const link = inlineCodeFileLink(code);
    expect(link?.href).toBe(href);
    expect(link?.text).toBe(code.trim());
    if (link) expect(code.slice(link.start, link.end)).toBe(link.text);
  });

  it.each([
    "npm run build",
    "console.log",
    "this.state.value",
    "foo.bar",
    "obj.prop.value",
    "1.2.3",
    "1/2.5",
    "src/",
    "src/components",
    "Makefile",
    ".env",
    "https://example.com/a.ts",
    "github.com/org/repo/README.md",
    "www.example.org/a.html",
    "--config.json",
    "fn(a.ts)",
    "a.ts; rm -rf /",
    "user@example.com",
    "x".repeat(600) + ".ts",
    "",
    "//server/a.ts",
    "C:/a.ts",
    "...",
  ])("%j is not", (code) => {
    expect(inlineCodeFileLink(code)).toBeNull();
  });
});

describe("toolArgumentLinks", () => {
  it("links the path of pi's read, edit and write, with read's range as #Lx-Ly", () => {
    expect(toolArgumentLinks("read", { path: "src/a.ts" })).toEqual([{ key: "path", index: null, path: "src/a.ts", href: "src/a.ts" }]);
    expect(toolArgumentLinks("read", { path: "src/a.ts", offset: 10, limit: 5 })[0]?.href).toBe("src/a.ts#L10-L14");
    expect(toolArgumentLinks("read", { path: "src/a.ts", offset: 3 })[0]?.href).toBe("src/a.ts#L3");
    expect(toolArgumentLinks("read", { path: "a#b.ts", offset: 3 })[0]?.href).toBe("a#b.ts");
    expect(toolArgumentLinks("read", { path: "a.ts", offset: 0, limit: -1 })[0]?.href).toBe("a.ts");
    expect(toolArgumentLinks("edit", { path: "Makefile", edits: [] })[0]?.href).toBe("Makefile");
    expect(toolArgumentLinks("write", { path: "/tmp/out.txt", content: "x" })[0]?.href).toBe("/tmp/out.txt");
  });

  it("reads file_path, filePath and paths of other tools, when they name files", () => {
    expect(toolArgumentLinks("str_replace_editor", { file_path: "a/b.go" }).map((l) => l.href)).toEqual(["a/b.go"]);
    expect(toolArgumentLinks("view", { filePath: "a/b.go" }).map((l) => l.href)).toEqual(["a/b.go"]);
    expect(toolArgumentLinks("grep", { pattern: "x", path: "src/app.ts" }).map((l) => l.href)).toEqual(["src/app.ts"]);
    expect(toolArgumentLinks("multi_read", { paths: ["a.ts", 3, "", "b/c.md"] })).toEqual([
      { key: "paths", index: 0, path: "a.ts", href: "a.ts" },
      { key: "paths", index: 3, path: "b/c.md", href: "b/c.md" },
    ]);
  });

  it("leaves directories (ls, find, grep over a folder) and odd values alone", () => {
    expect(toolArgumentLinks("ls", { path: "src" })).toEqual([]);
    expect(toolArgumentLinks("find", { pattern: "*.ts", path: "." })).toEqual([]);
    expect(toolArgumentLinks("grep", { pattern: "x", path: "src/components" })).toEqual([]);
    expect(toolArgumentLinks("bash", { command: "cat a.ts" })).toEqual([]);
    expect(toolArgumentLinks("read", { path: "" })).toEqual([]);
    expect(toolArgumentLinks("read", { path: 42 })).toEqual([]);
    expect(toolArgumentLinks("read", { path: "a\nb" })).toEqual([]);
    expect(toolArgumentLinks("read", { path: "//server/share/a.ts" })).toEqual([]);
  });
});

describe("argumentJsonLinks", () => {
  it("finds each path between its quotes in the pretty JSON", () => {
    const args = { path: "src/app.ts", offset: 1, limit: 5 };
    const json = pretty(args);
    const links = argumentJsonLinks(json, toolArgumentLinks("read", args));
    expect(texts(json, links)).toEqual(["src/app.ts"]);
    expect(links[0]?.href).toBe("src/app.ts#L1-L5");
  });

  it("finds array elements in order and skips nested keys of the same name", () => {
    const args = { options: { path: "nested/x.ts" }, paths: ["a.ts", "a.ts", "c/d.md"] };
    const json = pretty(args);
    const links = argumentJsonLinks(json, toolArgumentLinks("multi_read", args));
    expect(texts(json, links)).toEqual(["a.ts", "a.ts", "c/d.md"]);
    expect(links.map((l) => l.start)).toEqual([...links.map((l) => l.start)].sort((a, b) => a - b));
    expect(new Set(links.map((l) => l.start)).size).toBe(3);
    expect(json.indexOf("nested/x.ts")).toBeLessThan(links[0]?.start ?? 0);
  });

  it("links the escaped form of a path with quotes or backslashes to the path itself", () => {
    const args = { path: 'we"ird\\name.ts' };
    const json = pretty(args);
    const [link] = argumentJsonLinks(json, toolArgumentLinks("read", args));
    expect(link?.text).toBe('we\\"ird\\\\name.ts');
    expect(link?.href).toBe('we"ird\\name.ts');
  });
});

describe("diffLineLinks", () => {
  it("links a unified diff's file headers and the new side of its hunks", () => {
    const lines = [
      "diff --git a/src/app.ts b/src/app.ts",
      "index 1..2 100644",
      "--- a/src/app.ts",
      "+++ b/src/app.ts",
      "@@ -10,4 +12,5 @@ function main() {",
      "-old",
      "+new",
      "@@ -30 +31 @@",
      "--- /dev/null",
      "+++ b/new file.txt\t2024-01-01",
      "@@ -0,0 +1,2 @@",
    ];
    const links = diffLineLinks(lines);
    expect(links.map((link, index) => (link === null ? null : lines[index]?.slice(link.start, link.end)))).toEqual([
      null,
      null,
      "src/app.ts",
      "src/app.ts",
      "+12,5",
      null,
      null,
      "+31",
      null,
      "new file.txt",
      "+1,2",
    ]);
    expect(links.map((link) => link?.href ?? null)).toEqual([
      null,
      null,
      "src/app.ts",
      "src/app.ts",
      "src/app.ts#L12-L16",
      null,
      null,
      "src/app.ts#L31",
      null,
      "new file.txt",
      "new file.txt#L1-L2",
    ]);
  });

  it("does not link hunks of a deleted file, nor /dev/null or quoted names", () => {
    const lines = ["--- a/gone.ts", "+++ /dev/null", "@@ -1,3 +0,0 @@", '--- "a/we\\"ird"'];
    expect(diffLineLinks(lines).map((link) => link?.href ?? null)).toEqual(["gone.ts", null, null, null]);
  });

  it("links the hunks of a header-less unified diff to the tool's file", () => {
    expect(diffLineLinks(["@@ -1,2 +1,3 @@", " a", "+b"], "src/x.ts").map((link) => link?.href ?? null)).toEqual([
      "src/x.ts#L1-L3",
      null,
      null,
    ]);
  });

  it("links the new-file line numbers of pi's edit diff (context lines shifted by the changes above)", () => {
    const lines = ["   8 keep", "-  9 old one", "-10 old two", "+  9 new", "  11 after", "     ...", "  40 later", "+ 40 added"];
    const links = diffLineLinks(lines, "src/app.ts");
    expect(links.map((link, index) => (link === null ? null : lines[index]?.slice(link.start, link.end)))).toEqual([
      "8",
      null,
      null,
      "9",
      "11",
      null,
      "40",
      "40",
    ]);
    expect(links.map((link) => link?.href ?? null)).toEqual([
      "src/app.ts:8",
      null,
      null,
      "src/app.ts:9",
      "src/app.ts:10",
      null,
      "src/app.ts:39",
      "src/app.ts:40",
    ]);
  });

  it("links nothing in pi's diff without the file", () => {
    expect(diffLineLinks(["+1 a", " 2 b"])).toEqual([null, null]);
  });
});

describe("splitByLinks", () => {
  it("cuts a text at its links and joins back to it", () => {
    const text = "--- a/src/app.ts";
    const link: FileLink = { start: 6, end: 16, text: "src/app.ts", href: "src/app.ts" };
    const segments = splitByLinks(text, [link]);
    expect(segments).toEqual([
      { text: "--- a/", link: null },
      { text: "src/app.ts", link },
    ]);
  });

  it("drops links that do not match the text or overlap an earlier one", () => {
    const text = "abcdef";
    const segments = splitByLinks(text, [
      { start: 0, end: 2, text: "ab", href: "x" },
      { start: 1, end: 3, text: "bc", href: "y" },
      { start: 3, end: 5, text: "zz", href: "z" },
      { start: 4, end: 9, text: "ef", href: "w" },
    ]);
    expect(segments.map((s) => [s.text, s.link?.href ?? null])).toEqual([
      ["ab", "x"],
      ["cdef", null],
    ]);
  });

  it("keeps an empty text as one plain segment", () => {
    expect(splitByLinks("", [])).toEqual([{ text: "", link: null }]);
  });
});

describe("fileLinkTitle", () => {
  it("names the path", () => {
    expect(fileLinkTitle("src/app.ts")).toBe("Preview src/app.ts");
  });
});

describe("file link laws (fast-check)", () => {
  const pathish = fc.stringMatching(/^[a-zA-Z0-9_./:#~ \-@[\]%+-]{0,40}$/);
  const text = fc.oneof(fc.string({ maxLength: 60 }), fc.string({ unit: "grapheme", maxLength: 30 }), pathish);
  const diffLine = fc.oneof(
    text,
    pathish.map((p) => `--- a/${p}`),
    pathish.map((p) => `+++ b/${p}`),
    fc.tuple(fc.nat(999), fc.nat(99), fc.nat(999), fc.nat(99)).map(([a, b, c, d]) => `@@ -${a},${b} +${c},${d} @@`),
    fc.tuple(fc.constantFrom("+", "-", " "), fc.nat(3), fc.nat(99_999), text).map(([s, pad, n, t]) => `${s}${" ".repeat(pad)}${n} ${t}`),
  );

  it("never throw, and every detected link's text is the input at its offsets", () => {
    fc.assert(
      fc.property(text, (input) => {
        isLocalHref(input);
        const link = inlineCodeFileLink(input);
        if (link !== null) {
          expect(input.slice(link.start, link.end)).toBe(link.text);
          expect(link.text.length).toBeGreaterThan(0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("diff links are substrings of their lines", () => {
    fc.assert(
      fc.property(fc.array(diffLine, { maxLength: 12 }), fc.option(pathish, { nil: undefined }), (lines, file) => {
        const links = diffLineLinks(lines, file);
        expect(links).toHaveLength(lines.length);
        links.forEach((link, index) => {
          if (link === null) return;
          expect(link.start).toBeLessThan(link.end);
          expect(lines[index]?.slice(link.start, link.end)).toBe(link.text);
        });
      }),
      { numRuns: 1000 },
    );
  });

  it("argument links are substrings of the pretty JSON, and splitting joins back to it", () => {
    const args = fc.record(
      {
        path: fc.oneof(pathish, fc.string({ maxLength: 20 }), fc.integer()),
        file_path: pathish,
        paths: fc.array(fc.oneof(pathish, fc.integer()), { maxLength: 4 }),
        offset: fc.integer({ min: -2, max: 50 }),
        limit: fc.integer({ min: -2, max: 50 }),
        other: fc.dictionary(fc.constantFrom("path", "paths", "x"), pathish),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.constantFrom("read", "edit", "grep", "ls", "custom"), args, (name, values) => {
        const json = pretty(values);
        const links = argumentJsonLinks(json, toolArgumentLinks(name, values));
        for (const link of links) expect(json.slice(link.start, link.end)).toBe(link.text);
        expect(
          splitByLinks(json, links)
            .map((segment) => segment.text)
            .join(""),
        ).toBe(json);
      }),
      { numRuns: 1000 },
    );
  });
});
