/**
 * Code highlighting for Markdown fences and the file preview: highlight.js core with the languages an agent
 * transcript and a project's files mostly show (the full build is ~1 MB). Part of the lazily loaded markdown
 * chunk. The file preview asks in the names the server gives (domain/file-links/file-preview-rules.ts
 * languageOf), and so does the review diff; an unregistered one shows as plain text. The token colours
 * (highlight.css) load with this module, so every view that shows its spans has them.
 */
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import csharp from "highlight.js/lib/languages/csharp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import dockerfile from "highlight.js/lib/languages/dockerfile";
import go from "highlight.js/lib/languages/go";
import ini from "highlight.js/lib/languages/ini";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import kotlin from "highlight.js/lib/languages/kotlin";
import makefile from "highlight.js/lib/languages/makefile";
import markdown from "highlight.js/lib/languages/markdown";
import php from "highlight.js/lib/languages/php";
import python from "highlight.js/lib/languages/python";
import ruby from "highlight.js/lib/languages/ruby";
import rust from "highlight.js/lib/languages/rust";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import "./highlight.css";

const LANGUAGES = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  kotlin,
  makefile,
  markdown,
  php,
  python,
  ruby,
  rust,
  sql,
  typescript,
  xml,
  yaml,
};
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
