/**
 * The frontmatter of an agent definition file: a `---` block at the top of a Markdown file, split from the
 * body exactly as pi's `parseFrontmatter` does (CRLF normalised; the block ends at the first line starting
 * with `---`; the body is trimmed), with the YAML read by a small total parser of the subset agent files use:
 *
 * - `key: value` lines at column 0 (`#` comment lines and blank lines skipped; the last duplicate key wins);
 * - plain scalars (a ` #` comment ends them; indented continuation lines fold into one line), single- and
 *   double-quoted scalars (`''` and backslash escapes), block scalars `|` and `>` (chomping indicators
 *   accepted; the value never ends with a newline);
 * - sequences of scalars, flow (`[a, "b"]`) or block (`- a` lines under the key).
 *
 * Everything stays a string (`true`, `12` are not converted). What the subset cannot read (nested maps,
 * anchors, tags) is dropped, never thrown: a key without a usable value is absent. Pure and total.
 */

export type FrontmatterValue = string | string[];

export interface ParsedFrontmatter {
  /** Whether the content starts with a closed `---` block. */
  readonly hasFrontmatter: boolean;
  readonly fields: Readonly<Record<string, FrontmatterValue>>;
  readonly body: string;
}

const KEY_LINE = /^([^\s#:'"[\]{},&*!|>%@`-][^:]*?)[ \t]*:(?:[ \t]+(.*))?$/;
const BLOCK_SCALAR = /^([|>])([+-]?)\d?[+-]?[ \t]*(?:#.*)?$/;
const SEQUENCE_ITEM = /^-(?:[ \t]+(.*))?$/;

export function parseFrontmatter(content: string): ParsedFrontmatter {
  const normalized = content.replace(/\r\n/g, "\n").replace(/\r/g, "\n");
  if (!normalized.startsWith("---")) return { hasFrontmatter: false, fields: {}, body: normalized };
  const end = normalized.indexOf("\n---", 3);
  if (end === -1) return { hasFrontmatter: false, fields: {}, body: normalized };
  return {
    hasFrontmatter: true,
    fields: parseYamlSubset(normalized.slice(4, end)),
    body: normalized.slice(end + 4).trim(),
  };
}

function isIndented(line: string): boolean {
  return line.startsWith(" ") || line.startsWith("\t");
}

/** The mapping of the frontmatter block (see the module comment for the subset). */
export function parseYamlSubset(text: string): Record<string, FrontmatterValue> {
  const fields: Record<string, FrontmatterValue> = {};
  const lines = text.split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] ?? "";
    i++;
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || isIndented(line)) continue;
    const match = KEY_LINE.exec(line);
    if (match === null) continue;
    const key = (match[1] ?? "").trim();
    const rest = (match[2] ?? "").trim();
    // Indented (or blank) lines up to the next key belong to this value.
    const continuation: string[] = [];
    while (i < lines.length) {
      const next = lines[i] ?? "";
      if (next.trim() !== "" && !isIndented(next) && !next.startsWith("-")) break;
      // A block sequence may start at column 0 under its key ("tools:\n- read").
      if (next.startsWith("-") && rest !== "") break;
      continuation.push(next);
      i++;
    }
    while (continuation.length > 0 && (continuation[continuation.length - 1] ?? "").trim() === "") continuation.pop();
    const value = readValue(rest, continuation);
    if (value !== undefined) fields[key] = value;
  }
  return fields;
}

function readValue(rest: string, continuation: readonly string[]): FrontmatterValue | undefined {
  const block = BLOCK_SCALAR.exec(rest);
  if (block !== null) return blockScalar(block[1] === ">" ? "folded" : "literal", continuation);
  if (rest === "" || rest.startsWith("#")) {
    const items = continuation.filter((l) => l.trim() !== "").map((l) => SEQUENCE_ITEM.exec(l.trim()));
    if (items.length === 0) return undefined;
    if (items.every((m) => m !== null)) {
      return items.flatMap((m) => {
        const item = scalar((m?.[1] ?? "").trim());
        return item === undefined || item === "" ? [] : [item];
      });
    }
    if (continuation.some((l) => SEQUENCE_ITEM.test(l.trim()) || KEY_LINE.test(l.trim()))) return undefined;
    return scalar(foldLines(continuation));
  }
  const whole = [rest, ...continuation.map((l) => l.trim())].filter((l) => l !== "").join(" ");
  if (rest.startsWith("[")) return flowSequence(whole);
  if (rest.startsWith("{")) return undefined;
  return scalar(rest.startsWith('"') || rest.startsWith("'") ? whole : foldLines([rest, ...continuation]));
}

/** Plain multi-line scalar: lines trimmed and joined by spaces, blank lines become newlines. */
function foldLines(lines: readonly string[]): string {
  let out = "";
  let pendingBreaks = 0;
  for (const raw of lines) {
    const line = raw.trim();
    if (line === "") {
      pendingBreaks++;
      continue;
    }
    if (out !== "") out += pendingBreaks > 0 ? "\n".repeat(pendingBreaks) : " ";
    pendingBreaks = 0;
    out += line;
  }
  return out;
}

function blockScalar(style: "literal" | "folded", lines: readonly string[]): string {
  const first = lines.find((l) => l.trim() !== "");
  if (first === undefined) return "";
  const indent = first.length - first.trimStart().length;
  const body = lines.map((l) => (l.trim() === "" ? "" : l.slice(Math.min(indent, l.length - l.trimStart().length))));
  if (style === "literal") return body.join("\n").trimEnd();
  // Folding: one line break between two plain lines becomes a space (n blank lines: n newlines); around a
  // more-indented line every break is kept.
  let out = "";
  let blanks = 0;
  let previous: "none" | "plain" | "indented" = "none";
  for (const line of body) {
    if (line === "") {
      blanks++;
      continue;
    }
    const moreIndented = line.startsWith(" ") || line.startsWith("\t");
    if (previous === "none") out += "\n".repeat(blanks);
    else if (previous === "plain" && !moreIndented) out += blanks === 0 ? " " : "\n".repeat(blanks);
    else out += "\n".repeat(blanks + 1);
    out += line;
    blanks = 0;
    previous = moreIndented ? "indented" : "plain";
  }
  return out.trimEnd();
}

/** One scalar token: quoted (unescaped) or plain (a ` #` comment removed); undefined when unreadable. */
function scalar(token: string): string | undefined {
  if (token.startsWith('"')) return doubleQuoted(token);
  if (token.startsWith("'")) return singleQuoted(token);
  if (token === "~" || token === "null") return undefined;
  const comment = token.search(/[ \t]#/);
  return (comment === -1 ? token : token.slice(0, comment)).trim();
}

const ESCAPES: Readonly<Record<string, string>> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
};

function doubleQuoted(token: string): string | undefined {
  let out = "";
  for (let i = 1; i < token.length; i++) {
    const ch = token[i] ?? "";
    if (ch === '"') return out;
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = token[i + 1] ?? "";
    const hexLength = next === "x" ? 2 : next === "u" ? 4 : next === "U" ? 8 : 0;
    if (hexLength > 0) {
      const hex = token.slice(i + 2, i + 2 + hexLength);
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== hexLength) return undefined;
      const code = Number.parseInt(hex, 16);
      if (code > 0x10ffff) return undefined;
      out += String.fromCodePoint(code);
      i += 1 + hexLength;
      continue;
    }
    const escaped = ESCAPES[next];
    if (escaped === undefined) return undefined;
    out += escaped;
    i++;
  }
  return undefined;
}

function singleQuoted(token: string): string | undefined {
  let out = "";
  for (let i = 1; i < token.length; i++) {
    const ch = token[i] ?? "";
    if (ch !== "'") {
      out += ch;
      continue;
    }
    if (token[i + 1] === "'") {
      out += "'";
      i++;
      continue;
    }
    return out;
  }
  return undefined;
}

/** `[a, "b, c", 'd']` → items; undefined when the brackets do not close. */
function flowSequence(text: string): string[] | undefined {
  const items: string[] = [];
  let current = "";
  let quote: '"' | "'" | null = null;
  for (let i = 1; i < text.length; i++) {
    const ch = text[i] ?? "";
    if (quote !== null) {
      current += ch;
      if (ch === "\\" && quote === '"') {
        current += text[i + 1] ?? "";
        i++;
      } else if (ch === quote) {
        if (quote === "'" && text[i + 1] === "'") {
          current += "'";
          i++;
        } else {
          quote = null;
        }
      }
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === "," || ch === "]") {
      const item = scalar(current.trim());
      if (item !== undefined && item !== "") items.push(item);
      current = "";
      if (ch === "]") return items;
    } else {
      current += ch;
    }
  }
  return undefined;
}
