/**
 * Law: whatever text a session holds, the export never emits markup from it. Every field of the research
 * fixture and of its transcript is replaced by generated text (biased towards HTML and Markdown syntax); the
 * document must keep only the export's own tags and attributes, fetch nothing, and never show the sentinel
 * tag `<zq` that each generated text ends with.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { researchSessionRecords } from "../../test/support/research-session.ts";
import type { SessionEntry } from "../../domain/session-log.ts";
import { danglingAnchors, exportInputOf, externalReferences, foreignMarkup } from "./export-html.fixture.ts";
import { renderSessionExport } from "./session-export.ts";

const SENTINEL = "<zq>";

const hostilePiece = fc.constantFrom(
  "<",
  ">",
  "&",
  '"',
  "'",
  "<script>alert(1)</script>",
  "<img src=http://x/y.png>",
  '<a href="javascript:x">',
  "](http://x)",
  "[1](https://example.com/kettle)",
  "![i](http://x/i.png)",
  "<http://auto.link>",
  "`code <b>`",
  "\n\n```\n<pre>\n```\n",
  "&lt;",
  '" onmouseover="x',
  "<!--",
  "-->",
  "<style>",
  "url(http://x)",
  "@import",
);

/** Generated text: random strings mixed with HTML/Markdown syntax, ending with the sentinel tag. */
const arbText = fc
  .array(fc.oneof(fc.string({ maxLength: 8 }), hostilePiece), { maxLength: 6 })
  .map((parts) => `${parts.join("")}${SENTINEL}`);

/** Replaces every string value of `value` (deeply) except ids, types and roles with `text`. */
function poison(value: unknown, text: string, key = ""): unknown {
  const keep = new Set([
    "type",
    "id",
    "parentId",
    "role",
    "customType",
    "kind",
    "version",
    "sessionId",
    "toolCallId",
    "timestamp",
    "status",
    "phase",
    "stopReason",
    "api",
    "mimeType",
    "data",
    "reportEntryId",
    "agent",
    "name",
  ]);
  if (typeof value === "string") return keep.has(key) ? value : `${value}${text}`;
  if (Array.isArray(value)) return value.map((item) => poison(item, text, key));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poison(v, text, k)]));
  }
  return value;
}

describe("session export escaping (property)", () => {
  it("never emits markup, fetches or the sentinel from session text", () => {
    const [header, ...entries] = researchSessionRecords();
    fc.assert(
      fc.property(arbText, arbText, (text, name) => {
        const branch = entries.map((entry) => poison(entry, text)) as SessionEntry[];
        const input = exportInputOf(header.id, branch, name);
        const html = renderSessionExport({
          ...input,
          session: { ...input.session, cwd: `/w${text}`, sessionFile: `/f${text}`, firstMessage: text },
        });
        expect(html).not.toContain(SENTINEL);
        expect(foreignMarkup(html)).toEqual([]);
        expect(externalReferences(html)).toEqual([]);
        expect(danglingAnchors(html)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });
});
