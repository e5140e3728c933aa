import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { searchTerms } from "./search-query.ts";
import { foldToken, shapeSnippet, SNIPPET_ELLIPSIS, snippetOf, type SnippetSegment } from "./search-snippet.ts";

const length = (segments: readonly SnippetSegment[]): number => segments.reduce((n, s) => n + [...s.text].length, 0);
const joined = (segments: readonly SnippetSegment[]): string => segments.map((s) => s.text).join("");
const matched = (segments: readonly SnippetSegment[]): string[] => segments.filter((s) => s.match).map((s) => s.text);

describe("snippetOf", () => {
  it("marks the matched words, without case or diacritics, and keeps markup as text", () => {
    expect(snippetOf("The <b>Café</b> opens; the cafe closes.", searchTerms("cafe "))).toEqual([
      { text: "The <b>", match: false },
      { text: "Café", match: true },
      { text: "</b> opens; the ", match: false },
      { text: "cafe", match: true },
      { text: " closes.", match: false },
    ]);
  });

  it("matches a term with punctuation as a phrase, and the last term as a prefix while typed", () => {
    expect(matched(snippetOf("edit src/foo_bar.ts and foo then bar", searchTerms("foo_bar.ts ")))).toEqual(["foo", "bar", "ts"]);
    expect(matched(snippetOf("a compilation error in the compiler", searchTerms("error compil")))).toEqual([
      "compilation",
      "error",
      "compiler",
    ]);
    expect(matched(snippetOf("a compilation error", searchTerms("compil ")))).toEqual([]);
  });

  it("takes the window with the most different terms, cutting the text around it", () => {
    const text = `${"alpha filler ".repeat(40)}alpha beta gamma${" filler".repeat(40)}`;
    const snippet = snippetOf(text, searchTerms("alpha beta gamma "));
    expect(matched(snippet)).toContain("beta");
    expect(matched(snippet)).toContain("gamma");
    expect(snippet[0]?.text.startsWith(SNIPPET_ELLIPSIS)).toBe(true);
    expect(snippet.at(-1)?.text.endsWith(SNIPPET_ELLIPSIS)).toBe(true);
  });

  it("shows the start of the text when nothing matches", () => {
    expect(snippetOf("nothing here at all", searchTerms("zebra "))).toEqual([{ text: "nothing here at all", match: false }]);
    expect(snippetOf("", searchTerms("zebra"))).toEqual([]);
  });

  it("marks every occurrence of a word in the window of a random text where the word was put", () => {
    const word = fc.stringMatching(/^[a-z]{3,8}$/);
    const filler = fc.array(fc.stringMatching(/^[a-z0-9 ,.\n]{0,12}$/), { maxLength: 30 });
    fc.assert(
      fc.property(word, filler, filler, (w, before, after) => {
        const text = `${before.join(" ")} ${w.toUpperCase()} ${after.join(" ")}`;
        const snippet = snippetOf(text, searchTerms(`${w} `));
        expect(length(snippet)).toBeLessThanOrEqual(240);
        const marks = matched(snippet);
        expect(marks.length).toBeGreaterThan(0);
        for (const mark of marks) expect(foldToken(mark)).toBe(w);
      }),
    );
  });
});

describe("shapeSnippet", () => {
  it("collapses whitespace and trims the ends", () => {
    expect(
      shapeSnippet([
        { text: "\n  a\n\n b ", match: false },
        { text: "c", match: true },
        { text: "\t d \n", match: false },
      ]),
    ).toEqual([
      { text: "a b ", match: false },
      { text: "c", match: true },
      { text: " d", match: false },
    ]);
  });

  it("cuts unmatched text first: the start, the end, then long middles", () => {
    const long = "x".repeat(200);
    const shaped = shapeSnippet(
      [
        { text: `${long} `, match: false },
        { text: "hit", match: true },
        { text: ` ${long} `, match: false },
        { text: "two", match: true },
        { text: ` ${long}`, match: false },
      ],
      120,
    );
    expect(length(shaped)).toBeLessThanOrEqual(120);
    expect(matched(shaped)).toEqual(["hit", "two"]);
    expect(shaped[0]?.text.startsWith(SNIPPET_ELLIPSIS)).toBe(true);
    expect(shaped.at(-1)?.text.endsWith(SNIPPET_ELLIPSIS)).toBe(true);
  });

  it("never exceeds the limit, keeps text in order, and keeps every match when the unmatched text can give way", () => {
    const segment = fc.record({ text: fc.string({ unit: "grapheme", maxLength: 120 }), match: fc.boolean() });
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), fc.integer({ min: 20, max: 300 }), (segments, max) => {
        const shaped = shapeSnippet(segments, max);
        expect(length(shaped)).toBeLessThanOrEqual(max);
        for (const s of shaped) expect(s.text).not.toBe("");
        for (let i = 1; i < shaped.length; i++) expect(shaped[i]?.match).not.toBe(shaped[i - 1]?.match);
        const collapsed = shapeSnippet(segments, Number.MAX_SAFE_INTEGER);
        if (length(collapsed) <= max) expect(shaped).toEqual(collapsed);
        const matches = matched(collapsed);
        const matchedLength = matches.reduce((n, t) => n + [...t].length, 0);
        // Room for every match, the cuts' ellipses and the unmatched text each side of a cut keeps.
        if (matchedLength + 2 + 81 * collapsed.length <= max) expect(matched(shaped)).toEqual(matches);
        // Without cuts, the shaped text is the collapsed text.
        if (!joined(shaped).includes(SNIPPET_ELLIPSIS) && !joined(collapsed).includes(SNIPPET_ELLIPSIS)) {
          expect(joined(shaped)).toBe(joined(collapsed));
        }
      }),
    );
  });
});
