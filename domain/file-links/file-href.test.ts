import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasControlCharacter } from "./control-characters.ts";
import {
  fileUrlOf,
  formatFileHref,
  LINK_BAD_PERCENT_ENCODING,
  LINK_CONTROL_CHARACTER,
  LINK_EMPTY,
  LINK_FILE_URL_NOT_ABSOLUTE,
  LINK_NETWORK_PATH,
  LINK_NOT_A_FILE,
  LINK_WINDOWS_PATH,
  parseFileHref,
  type FileLinkTarget,
} from "./file-href.ts";

const HOME = "/home/ada";

function readings(href: string): readonly FileLinkTarget[] {
  const parsed = parseFileHref(href, HOME);
  if (!parsed.ok) throw new Error(`expected ${JSON.stringify(href)} to parse: ${parsed.error}`);
  return parsed.readings;
}

function refusal(href: string): string {
  const parsed = parseFileHref(href, HOME);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(href)} to be refused`);
  return parsed.error;
}

describe("parseFileHref: paths", () => {
  it("keeps a plain path as its only reading", () => {
    expect(readings("src/app.ts")).toEqual([{ path: "src/app.ts" }]);
    expect(readings("/etc/hosts")).toEqual([{ path: "/etc/hosts" }]);
    expect(readings("../x.md")).toEqual([{ path: "../x.md" }]);
  });

  it("reads :line and :line:column suffixes after the literal name", () => {
    expect(readings("src/app.ts:12")).toEqual([{ path: "src/app.ts:12" }, { path: "src/app.ts", line: 12 }]);
    expect(readings("src/app.ts:12:5")).toEqual([{ path: "src/app.ts:12:5" }, { path: "src/app.ts", line: 12, column: 5 }]);
    expect(readings("a:b:7").at(-1)).toEqual({ path: "a:b", line: 7 });
  });

  it("ignores a zero or absurd line", () => {
    expect(readings("a.ts:0")).toEqual([{ path: "a.ts:0" }]);
    expect(readings("a.ts:99999999999999999999")).toEqual([{ path: "a.ts:99999999999999999999" }]);
    expect(readings("a.ts:3:0")).toEqual([{ path: "a.ts:3:0" }]);
  });

  it("reads #L fragments as lines and ranges, other fragments as anchors", () => {
    expect(readings("README.md#L12").at(-1)).toEqual({ path: "README.md", line: 12 });
    expect(readings("README.md#L12-L20").at(-1)).toEqual({ path: "README.md", line: 12, endLine: 20 });
    expect(readings("README.md#L12-20").at(-1)).toEqual({ path: "README.md", line: 12, endLine: 20 });
    expect(readings("README.md#L12C4").at(-1)).toEqual({ path: "README.md", line: 12, column: 4 });
    expect(readings("README.md#L20-L12").at(-1)).toEqual({ path: "README.md", line: 20 });
    expect(readings("README.md#install-steps")).toEqual([
      { path: "README.md#install-steps" },
      { path: "README.md", anchor: "install-steps" },
    ]);
    expect(readings("a.ts:3#L10-L12").at(-1)).toEqual({ path: "a.ts", line: 10, endLine: 12 });
    expect(readings("a.ts:3#usage").at(-1)).toEqual({ path: "a.ts", line: 3, anchor: "usage" });
  });

  it("reads a bare fragment as the link's own document", () => {
    expect(readings("#L5").at(-1)).toEqual({ path: "", line: 5 });
    expect(readings("#heading").at(-1)).toEqual({ path: "", anchor: "heading" });
  });

  it("expands ~ and ~/ to the home folder, not ~user", () => {
    expect(readings("~/notes.md")).toEqual([{ path: "/home/ada/notes.md" }]);
    expect(readings("~")).toEqual([{ path: HOME }]);
    expect(readings("~bob/x")).toEqual([{ path: "~bob/x" }]);
  });

  it("adds the percent-decoded reading after the literal ones", () => {
    expect(readings("my%20notes.md:3")).toEqual([
      { path: "my%20notes.md:3" },
      { path: "my%20notes.md", line: 3 },
      { path: "my notes.md:3" },
      { path: "my notes.md", line: 3 },
    ]);
    expect(readings("100%.txt")).toEqual([{ path: "100%.txt" }]);
  });
});

describe("parseFileHref: file: URLs", () => {
  it("accepts an empty or localhost authority and decodes the path", () => {
    expect(readings("file:///tmp/a%20b.md")).toEqual([{ path: "/tmp/a b.md" }]);
    expect(readings("file://localhost/tmp/x.ts")).toEqual([{ path: "/tmp/x.ts" }]);
    expect(readings("FILE://LOCALHOST/tmp/x.ts")).toEqual([{ path: "/tmp/x.ts" }]);
    expect(readings("file:/tmp/x.ts")).toEqual([{ path: "/tmp/x.ts" }]);
  });

  it("takes # as the fragment and %23 as a literal #", () => {
    expect(readings("file:///tmp/a%23b.md#L3-L4")).toEqual([{ path: "/tmp/a#b.md", line: 3, endLine: 4 }]);
    expect(readings("file:///tmp/doc.md#intro")).toEqual([{ path: "/tmp/doc.md", anchor: "intro" }]);
    expect(readings("file:///tmp/x.ts:9")).toEqual([{ path: "/tmp/x.ts:9" }, { path: "/tmp/x.ts", line: 9 }]);
    expect(readings("file:///tmp/x.ts?raw=1")).toEqual([{ path: "/tmp/x.ts" }]);
  });

  it("refuses other hosts, relative paths, bad encodings, Windows drives and encoded controls", () => {
    expect(refusal("file://server/share/x")).toBe(LINK_NETWORK_PATH);
    expect(refusal("file:////server/share/x")).toBe(LINK_NETWORK_PATH);
    expect(refusal("file:relative.txt")).toBe(LINK_FILE_URL_NOT_ABSOLUTE);
    expect(refusal("file://localhost")).toBe(LINK_FILE_URL_NOT_ABSOLUTE);
    expect(refusal("file:///tmp/%E0%A4%A")).toBe(LINK_BAD_PERCENT_ENCODING);
    expect(refusal("file:///C:/Users/x.txt")).toBe(LINK_WINDOWS_PATH);
    expect(refusal("file://C:/Users/x.txt")).toBe(LINK_WINDOWS_PATH);
    expect(refusal("file:///tmp/a%0Ab")).toBe(LINK_CONTROL_CHARACTER);
    expect(refusal("file:///tmp/a%00b")).toBe(LINK_CONTROL_CHARACTER);
  });
});

describe("parseFileHref: refusals", () => {
  it("refuses empty links, control characters, network and Windows paths, other schemes", () => {
    expect(refusal("")).toBe(LINK_EMPTY);
    expect(refusal("a\nb")).toBe(LINK_CONTROL_CHARACTER);
    expect(refusal("a\u007fb")).toBe(LINK_CONTROL_CHARACTER);
    expect(refusal("a\u0085b")).toBe(LINK_CONTROL_CHARACTER);
    expect(refusal("//server/share/x")).toBe(LINK_NETWORK_PATH);
    expect(refusal("\\\\server\\share\\x")).toBe(LINK_NETWORK_PATH);
    expect(refusal("C:\\Users\\x.txt")).toBe(LINK_WINDOWS_PATH);
    expect(refusal("d:/work/x.txt")).toBe(LINK_WINDOWS_PATH);
    expect(refusal("https://example.com/a.md")).toBe(LINK_NOT_A_FILE);
    expect(refusal("mailto:someone@example.com")).toBe(LINK_NOT_A_FILE);
    expect(refusal("javascript:alert(1)")).toBe(LINK_NOT_A_FILE);
  });
});

const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/).filter((s) => s !== "." && s !== "..");
const relativePath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join("/"));
const linkPath = fc.tuple(fc.boolean(), relativePath).map(([absolute, rest]) => (absolute ? `/${rest}` : rest));
const lineNumber = fc.integer({ min: 1, max: 1_000_000 });
const anchor = fc.stringMatching(/^[a-km-z][a-z0-9-]{0,15}$/);

const target: fc.Arbitrary<FileLinkTarget> = fc.oneof(
  linkPath.map((path) => ({ path })),
  fc.tuple(linkPath, lineNumber).map(([path, line]) => ({ path, line })),
  fc.tuple(linkPath, lineNumber, lineNumber).map(([path, line, column]) => ({ path, line, column })),
  fc.tuple(linkPath, lineNumber, fc.integer({ min: 0, max: 500 })).map(([path, line, extra]) => ({ path, line, endLine: line + extra })),
  fc.tuple(linkPath, anchor).map(([path, name]) => ({ path, anchor: name })),
);

describe("parseFileHref: laws", () => {
  it("reads a formatted link back as its most interpreted reading", () => {
    fc.assert(
      fc.property(target, (t) => {
        expect(readings(formatFileHref(t)).at(-1)).toEqual(t);
      }),
    );
  });

  it("reads any absolute path back from its file: URL", () => {
    const anyText = fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).filter((s) => !s.includes("/"));
    const absolute = fc.array(anyText, { minLength: 1, maxLength: 4 }).map((parts) => `/${parts.join("/")}`);
    fc.assert(
      fc.property(
        absolute.filter((p) => !hasControlCharacter(p) && !/^\/[A-Za-z][:|]/.test(p)),
        (p) => {
          expect(readings(fileUrlOf(p))[0]).toEqual({ path: p });
        },
      ),
    );
  });

  it("refuses any link with a control character", () => {
    const control = fc
      .integer({ min: 0, max: 0x9f })
      .filter((code) => code <= 0x1f || code >= 0x7f)
      .map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), control, fc.string({ maxLength: 20 }), (before, c, after) => {
        const parsed = parseFileHref(`${before}${c}${after}`, HOME);
        expect(parsed.ok).toBe(false);
      }),
    );
  });
});
