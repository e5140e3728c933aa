/**
 * Syntax colours for the review diff, loaded on first use: markdown/highlight.ts (highlight.js core, its
 * languages and its token colours, highlight.css) comes in through a dynamic import only, so it stays out of the
 * initial bundle (it shares the lazily loaded chunk the markdown renderer uses). Until it has loaded, and for
 * unknown languages, code shows as plain text.
 */

/** The highlighted HTML of one line (highlight.js escapes the text), or null for plain text. */
export type Highlight = (code: string, language: string) => string | null;

let loaded: Highlight | null = null;
let loading: Promise<Highlight> | null = null;

export function loadedHighlighter(): Highlight | null {
  return loaded;
}

/** Loads highlight.js once; a failed load may be retried by calling again. */
export function loadHighlighter(): Promise<Highlight> {
  if (loading === null) {
    loading = import("../../../markdown/highlight.ts").then(
      (module) => {
        loaded = module.highlightCode;
        return module.highlightCode;
      },
      (error: unknown) => {
        loading = null;
        throw error;
      },
    );
  }
  return loading;
}
