/**
 * The lazy door to the markdown chunk (markdown-it + DOMPurify + highlight.js): one dynamic import, shared by
 * every MarkdownBlock. Until it resolves, blocks show their source as plain text.
 */
export type MarkdownRenderer = typeof import("./markdown-renderer.ts");

let loaded: MarkdownRenderer | null = null;
let loading: Promise<MarkdownRenderer> | null = null;

/** The markdown renderer once its chunk has loaded, else null. */
export function loadedMarkdownRenderer(): MarkdownRenderer | null {
  return loaded;
}

/** Loads the markdown chunk (once; a failed load may be retried by calling again). */
export function loadMarkdownRenderer(): Promise<MarkdownRenderer> {
  if (loading === null) {
    loading = import("./markdown-renderer.ts").then(
      (module) => {
        loaded = module;
        return module;
      },
      (error: unknown) => {
        loading = null;
        throw error;
      },
    );
  }
  return loading;
}
