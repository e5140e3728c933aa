import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatMention, insertMention, mentionAt, needsQuotes, readMention, splitPath, type MentionToken } from "./composer-mentions.ts";

/** The mention at the `|` of `marked` (the caret), with the text without the mark. */
function at(marked: string): { text: string; token: MentionToken | null } {
  const caret = marked.indexOf("|");
  const text = marked.slice(0, caret) + marked.slice(caret + 1);
  return { text, token: mentionAt(text, caret) };
}

/** The draft after choosing `path` for the mention at the `|`, with the new caret marked. */
function choose(marked: string, path: string): string {
  const { text, token } = at(marked);
  if (token === null) throw new Error(`no mention at ${marked}`);
  const next = insertMention(text, token, path);
  return `${next.text.slice(0, next.caret)}|${next.text.slice(next.caret)}`;
}

describe("finding the mention at the caret", () => {
  it("finds `@` at the start, after white space, CJK punctuation or an opening bracket, with the query up to the caret", () => {
    expect(at("@|").token).toEqual({ start: 0, end: 1, query: "", quoted: false, closer: "" });
    expect(at("look at @src/ap|").token).toEqual({ start: 8, end: 15, query: "src/ap", quoted: false, closer: "" });
    expect(at("one\n@rea| two").token).toMatchObject({ start: 4, end: 8, query: "rea" });
    expect(at("看这个，@app|").token).toMatchObject({ start: 4, query: "app" });
    expect(at("see (@src/a|)").token).toMatchObject({ start: 5, end: 11, query: "src/a", closer: ")" });
    expect(at("run `@pack|`").token).toMatchObject({ query: "pack", closer: "`" });
    // The caret in the middle: the query is what comes before it; the mention runs on to its end.
    expect(at("fix @src/ap|p.ts now").token).toEqual({ start: 4, end: 15, query: "src/ap", quoted: false, closer: "" });
  });

  it("finds quoted mentions up to their closing quote", () => {
    expect(at('@"my fi|').token).toEqual({ start: 0, end: 7, query: "my fi", quoted: true, closer: "" });
    expect(at('read @"my fi|le.md" please').token).toEqual({ start: 5, end: 18, query: "my fi", quoted: true, closer: "" });
    expect(at('say "hi" @"a b|').token).toMatchObject({ start: 9, query: "a b", quoted: true });
  });

  it("finds nothing in e-mail addresses, before the `@`, after a closed mention or outside one", () => {
    for (const marked of ["bob@exam|ple.com", "|@src", "@src |", "plain |text", '@"a b"|', "(@src)|", "a@|", '@"a\nb|'])
      expect(at(marked).token, marked).toBeNull();
  });
});

describe("inserting a file", () => {
  it("writes `@path ` pi-style, quoting paths with spaces, and puts the caret after the space", () => {
    expect(choose("look at @ap|", "src/app.ts")).toBe("look at @src/app.ts |");
    expect(choose("@|", "docs/My Notes.md")).toBe('@"docs/My Notes.md" |');
    expect(choose('@"my|', "src/my.ts")).toBe('@"src/my.ts" |');
    expect(choose('read @"my fi|le.md" please', "My File.md")).toBe('read @"My File.md" |please');
  });

  it("replaces the whole mention in the middle of the text and keeps the rest", () => {
    expect(choose("fix @src/ap|p.ts now", "src/api.ts")).toBe("fix @src/api.ts |now");
    expect(choose("fix @ap|\nthen test", "app.ts")).toBe("fix @app.ts |\nthen test");
    expect(choose("看，@ap|，好", "app.ts")).toBe("看，@app.ts |，好");
    expect(choose("see (@src/a|) too", "src/a.ts")).toBe("see (@src/a.ts|) too");
    expect(choose("see (@x|)", "a (1).ts")).toBe('see (@"a (1).ts"|)');
  });

  it("quotes as pi does: white space and CJK punctuation", () => {
    expect(needsQuotes("src/a.ts")).toBe(false);
    expect(needsQuotes("a b.ts")).toBe(true);
    expect(needsQuotes("a\tb.ts")).toBe(true);
    expect(needsQuotes("笔记，草稿.md")).toBe(true);
    expect(needsQuotes("笔记.md")).toBe(false);
    expect(formatMention("a.ts")).toBe("@a.ts");
    expect(formatMention("a.ts", true)).toBe('@"a.ts"');
  });

  it("splits a path into its name and folder for the menu", () => {
    expect(splitPath("web/src/App.vue")).toEqual({ name: "App.vue", folder: "web/src/" });
    expect(splitPath("README.md")).toEqual({ name: "README.md", folder: "" });
  });
});

// Drafts from characters that matter here: separators, quotes, brackets, `@`, CJK punctuation, a surrogate pair.
const draftChar = fc.constantFrom("a", "b", "/", ".", " ", "\n", "\t", "@", '"', "(", ")", "`", "，", "é", "😀");
const draft = fc.array(draftChar, { maxLength: 24 }).map((chars) => chars.join(""));
// Paths as git lists them: anything but quotes and line breaks (those are written as they are, see the module).
const path = fc
  .array(fc.constantFrom("a", "B", "/", ".", "-", " ", "(", ")", "`", "，", "é", "😀", "@"), { minLength: 1, maxLength: 16 })
  .map((chars) => chars.join(""));

/** A caret that does not split a surrogate pair. */
function caretIn(text: string, seed: number): number {
  let caret = seed % (text.length + 1);
  const code = text.charCodeAt(caret - 1);
  if (caret > 0 && code >= 0xd800 && code <= 0xdbff) caret -= 1;
  return caret;
}

describe("laws", () => {
  it("a mention found holds the caret, after its `@`, and its query is the text from the `@` to the caret", () => {
    fc.assert(
      fc.property(draft, fc.nat(), (text, seed) => {
        const caret = caretIn(text, seed);
        const token = mentionAt(text, caret);
        if (token === null) return;
        expect(text.charAt(token.start)).toBe("@");
        const from = token.start + (token.quoted ? 2 : 1);
        expect(from).toBeLessThanOrEqual(caret);
        expect(caret).toBeLessThanOrEqual(token.end);
        expect(token.query).toBe(text.slice(from, caret));
        expect(text.slice(token.start, token.end)).not.toContain("\n");
      }),
    );
  });

  it("inserting changes nothing outside the mention, and reading back at its start gives the chosen path", () => {
    fc.assert(
      fc.property(draft, fc.nat(), path, (text, seed, chosen) => {
        const token = mentionAt(text, caretIn(text, seed));
        if (token === null) return;
        const next = insertMention(text, token, chosen);
        expect(next.text.slice(0, token.start)).toBe(text.slice(0, token.start));
        expect(next.text.endsWith(text.slice(token.end))).toBe(true);
        const read = readMention(next.text, token.start, token.closer);
        expect(read?.path).toBe(chosen);
        // The caret lands after the mention and the space that ends it, and in no mention.
        expect(next.caret).toBeGreaterThanOrEqual(read?.end ?? Infinity);
        expect(next.caret).toBeLessThanOrEqual((read?.end ?? 0) + 1);
      }),
    );
  });

  it("a mention typed at the end of a draft is always found, whatever came before the separator", () => {
    expect(at('@" @a|').token).toMatchObject({ start: 0, query: " @a", quoted: true });
    fc.assert(
      fc.property(draft, fc.constantFrom(" ", "\n", "，", ""), path, (before, separator, typed) => {
        // (A quote opened earlier on the line would make this part of a quoted mention, as in pi.)
        const prefix = separator === "" ? "" : before.replaceAll('"', "") + separator;
        const partial = typed.replace(/[\s，]/gu, "");
        const text = `${prefix}@${partial}`;
        const token = mentionAt(text, text.length);
        expect(token).not.toBeNull();
        expect(token?.start).toBe(prefix.length);
        if (!partial.startsWith('"')) expect(token?.query).toBe(partial);
      }),
    );
  });
});
