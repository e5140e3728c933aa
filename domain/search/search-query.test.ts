import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_QUERY_TERMS, matchExpression, quoteTerm, searchTerms } from "./search-query.ts";

/** Splits an expression built by matchExpression back into its FTS5 strings (and whether each is a prefix). */
function parseExpression(expression: string): { text: string; prefix: boolean }[] {
  const parts: { text: string; prefix: boolean }[] = [];
  let i = 0;
  while (i < expression.length) {
    expect(expression[i]).toBe('"');
    let text = "";
    i++;
    for (;;) {
      if (expression[i] === '"' && expression[i + 1] === '"') {
        text += '"';
        i += 2;
      } else if (expression[i] === '"') {
        i++;
        break;
      } else {
        text += expression[i];
        i++;
      }
    }
    const prefix = expression[i] === "*";
    if (prefix) i++;
    parts.push({ text, prefix });
    if (i < expression.length) {
      expect(expression[i]).toBe(" ");
      i++;
    }
  }
  return parts;
}

describe("searchTerms", () => {
  it("splits at whitespace, drops terms without letters or digits, dedupes without case", () => {
    expect(searchTerms("  Foo bar -- foo ¿? baz ")).toEqual({ terms: ["Foo", "bar", "baz"], prefixLast: false });
  });

  it("takes the last term as a prefix while it is typed (3+ letters or digits at its end)", () => {
    expect(searchTerms("session compil")).toEqual({ terms: ["session", "compil"], prefixLast: true });
    expect(searchTerms("session co").prefixLast).toBe(false);
    expect(searchTerms("session compil ").prefixLast).toBe(false);
    expect(searchTerms("foo.bar").prefixLast).toBe(true);
    expect(searchTerms("foo ---").prefixLast).toBe(false);
    expect(searchTerms("foo.ts)").prefixLast).toBe(false);
  });

  it("uses at most MAX_QUERY_TERMS terms", () => {
    const words = Array.from({ length: MAX_QUERY_TERMS + 5 }, (_, i) => `w${i}`);
    expect(searchTerms(words.join(" ")).terms).toHaveLength(MAX_QUERY_TERMS);
    expect(searchTerms(words.join(" ")).prefixLast).toBe(false);
  });

  it("counts control characters as whitespace", () => {
    expect(searchTerms("a\u0000b\u0007c").terms).toEqual(["a", "b", "c"]);
  });
});

describe("matchExpression", () => {
  it("quotes every term: FTS5 operators are words", () => {
    expect(matchExpression('NEAR(a b) OR "x" col:y -z ^w')).toBe('"NEAR(a" "b)" "OR" """x""" "col:y" "-z" "^w"');
    expect(matchExpression("AND")).toBe('"AND"*');
  });

  it("answers null when no term has a letter or digit", () => {
    expect(matchExpression("")).toBeNull();
    expect(matchExpression("   ")).toBeNull();
    expect(matchExpression("-- ?? ** ()")).toBeNull();
  });

  it("is a space-separated list of FTS5 strings holding exactly the terms, whatever the input", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 80 }), (text) => {
        const expression = matchExpression(text);
        const { terms, prefixLast } = searchTerms(text);
        if (terms.length === 0) {
          expect(expression).toBeNull();
          return;
        }
        const parts = parseExpression(expression as string);
        expect(parts.map((p) => p.text)).toEqual(terms);
        expect(parts.map((p) => p.prefix)).toEqual(terms.map((_, i) => prefixLast && i === terms.length - 1));
        for (const term of terms) expect(/\s/.test(term)).toBe(false);
      }),
    );
  });

  it("quoteTerm doubles inner quotes", () => {
    expect(quoteTerm('say "hi"')).toBe('"say ""hi"""');
  });
});
