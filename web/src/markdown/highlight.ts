/**
 * Code highlighting for Markdown fences: highlight.js core with a handful of registered languages (the full
 * build is ~1 MB; these are the ones an agent transcript shows). Part of the lazily loaded markdown chunk.
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = { bash, css, diff, go, javascript, json, python, rust, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
// xml's own aliases cover html/svg; bash's cover sh/zsh; typescript's cover ts/tsx... a few more by hand.
hljs.registerAliases(["shell", "console", "shellsession"], { languageName: "bash" });
hljs.registerAliases(["jsonc", "json5"], { languageName: "json" });
hljs.registerAliases(["patch"], { languageName: "diff" });
hljs.registerAliases(["yml"], { languageName: "yaml" });

/** The registered language names and aliases a fence may use (lower case). */
export function isHighlightable(language: string): boolean {
  return language !== "" && hljs.getLanguage(language.toLowerCase()) !== undefined;
}

/**
 * The highlighted HTML of `code` (spans with `hljs-*` classes; text escaped by highlight.js), or null when
 * the language is unknown or empty: the caller then escapes the code itself.
 */
export function highlightCode(code: string, language: string): string | null {
  const name = language.trim().toLowerCase();
  if (!isHighlightable(name)) return null;
  try {
    return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
  } catch (_error) {
    return null;
  }
}
