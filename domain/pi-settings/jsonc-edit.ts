/**
 * Edits of pi's configuration files (jsonc-document.ts's dialects) that keep every byte outside the edited values
 * as the user wrote it (spec "Targets and revisions": writes preserve unknown fields, supported comments and
 * formatting).
 *
 * The edits are computed here from jsonc-parser's syntax tree (findNodeAtLocation, createScanner, applyEdits)
 * rather than with jsonc-parser's `modify` + formatting: `modify` re-formats whole neighbouring lines (a one-line
 * sibling object is exploded, a removed member's trailing comment moves onto its neighbour), which would rewrite
 * configuration the request never named. Here an edit replaces only the edited value, inserts a new member after
 * the last one, or removes a member's own lines; new text is indented like its siblings, with the document's indent
 * unit and line ending.
 *
 * Pure: no I/O. A byte-order mark is kept as it is.
 */
import { applyEdits, createScanner, findNodeAtLocation } from "jsonc-parser";
import type { Edit, JSONPath, Node as SyntaxNode } from "jsonc-parser";
import { analyseJsoncBody, BOM, defineOwn, type JsoncDialect, SYNTAX_KIND } from "./jsonc-document.ts";

/** One change: set the value at `path` (creating missing parent objects), or remove it when `value` is undefined. */
export interface JsoncEdit {
  readonly path: ReadonlyArray<string | number>;
  readonly value: unknown;
}

/** The layout new text follows: one indentation step ("\t" or some spaces) and the line ending. */
export interface JsoncFormatting {
  indentUnit: string;
  eol: "\n" | "\r\n";
}

/** The longest one-line text that replaces a one-line value on its own line; a longer one is spread over lines. */
const INLINE_LIMIT = 80;

/**
 * The text with each edit applied in order. The text must parse under the dialect (parseJsoncDocument ok);
 * otherwise, or for an edit the document's shape cannot take (a property of a number, an array index past the
 * end), this throws: callers check the document first. An empty text becomes a fresh document ending with a line
 * break; edits that only remove leave an empty text as it is.
 */
export function editJsoncDocument(text: string, edits: ReadonlyArray<JsoncEdit>, dialect: JsoncDialect): string {
  const bom = text.startsWith(BOM) ? BOM : "";
  let body = text.slice(bom.length);
  const fresh = body.trim() === "";
  if (fresh && edits.every((edit) => edit.value === undefined)) return text;
  const formatting = detectJsoncFormatting(body);
  if (fresh) body = "{}";
  for (const edit of edits) body = applyEdit(body, edit, formatting, dialect);
  return bom + (fresh ? body + formatting.eol : body);
}

/**
 * The document's layout: CRLF line endings if the text uses them anywhere, else LF; the indent unit from the first
 * indented line (a tab, or its count of leading spaces, at most 8); two spaces when nothing is indented.
 */
export function detectJsoncFormatting(text: string): JsoncFormatting {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  for (const line of text.split("\n")) {
    const indent = /^([ \t]+)[^ \t\r]/.exec(line)?.[1];
    if (indent === undefined) continue;
    if (indent.startsWith("\t")) return { indentUnit: "\t", eol };
    const spaces = /^ */.exec(indent)?.[0].length ?? 2;
    return { indentUnit: " ".repeat(Math.min(spaces, 8)), eol };
  }
  return { indentUnit: "  ", eol };
}

// ---- editing ------------------------------------------------------------------------------------------------

function applyEdit(body: string, edit: JsoncEdit, formatting: JsoncFormatting, dialect: JsoncDialect): string {
  const analysed = analyseJsoncBody(body, dialect);
  if (!analysed.ok) throw new Error(`editJsoncDocument needs a valid document: ${analysed.detail}`);
  const path: JSONPath = [...edit.path];
  const changes =
    edit.value === undefined ? removal(body, analysed.root, path) : setting(body, analysed.root, path, edit.value, formatting);
  return applyEdits(body, changes);
}

/** A syntax node's end offset. */
function endOf(node: SyntaxNode): number {
  return node.offset + node.length;
}

function lineStartOf(text: string, offset: number): number {
  return text.lastIndexOf("\n", offset - 1) + 1;
}

/** The spaces and tabs that start the line holding `offset`. */
function indentAt(text: string, offset: number): string {
  const start = lineStartOf(text, offset);
  return /^[ \t]*/.exec(text.slice(start, offset))?.[0] ?? "";
}

/** Whether only spaces and tabs precede `offset` on its line. */
function beginsLine(text: string, offset: number): boolean {
  return /^[ \t]*$/.test(text.slice(lineStartOf(text, offset), offset));
}

/** The member a value node is: its property for an object value, itself for an array element or the root. */
function memberOf(node: SyntaxNode): SyntaxNode {
  return node.parent?.type === "property" ? node.parent : node;
}

/** Whether a container is written on its member's line among other text (`"a": { "b": 1 }`), so additions stay inline. */
function isInlineContainer(text: string, container: SyntaxNode): boolean {
  const member = memberOf(container);
  return member.parent !== undefined && !beginsLine(text, member.offset);
}

/** What lies between a member's end and the next member or the closing bracket: its comma and line breaks. */
interface Gap {
  comma: number | undefined;
  /** Offset and length of the first line break after the member. */
  lineBreak: { offset: number; length: number } | undefined;
  /** The first line break after the comma, if there is a comma. */
  lineBreakAfterComma: number | undefined;
}

function scanGap(text: string, from: number): Gap {
  const scanner = createScanner(text, false);
  scanner.setPosition(from);
  const gap: Gap = { comma: undefined, lineBreak: undefined, lineBreakAfterComma: undefined };
  for (;;) {
    const token: number = scanner.scan();
    if (token === SYNTAX_KIND.lineBreak) {
      gap.lineBreak ??= { offset: scanner.getTokenOffset(), length: scanner.getTokenLength() };
      if (gap.comma !== undefined) gap.lineBreakAfterComma ??= scanner.getTokenOffset();
    } else if (token === SYNTAX_KIND.comma && gap.comma === undefined) {
      gap.comma = scanner.getTokenOffset();
    } else if (
      token !== SYNTAX_KIND.trivia &&
      token !== SYNTAX_KIND.lineComment &&
      token !== SYNTAX_KIND.blockComment &&
      token !== SYNTAX_KIND.comma
    ) {
      return gap;
    }
  }
}

function setting(body: string, root: SyntaxNode, path: JSONPath, value: unknown, formatting: JsoncFormatting): Edit[] {
  const existing = findNodeAtLocation(root, path);
  if (existing) {
    // A replaced value keeps its layout: one line stays one line (unless it would grow long), several stay several.
    const oneLine = inlineJson(value);
    const wasOneLine = !/[\r\n]/.test(body.slice(existing.offset, endOf(existing)));
    const inline =
      existing.parent !== undefined && (!beginsLine(body, memberOf(existing).offset) || (wasOneLine && oneLine.length <= INLINE_LIMIT));
    const content = inline ? oneLine : prettyJson(value, indentAt(body, existing.offset), formatting);
    return [{ offset: existing.offset, length: existing.length, content }];
  }
  // Wrap the value in objects for each missing parent, up to the deepest one that exists.
  let wrapped = value;
  for (let index = path.length - 1; index >= 0; index--) {
    const parentPath = path.slice(0, index);
    const parent = parentPath.length === 0 ? root : findNodeAtLocation(root, parentPath);
    const segment = path[index] as string | number;
    if (parent) return insertion(body, parent, segment, wrapped, formatting);
    if (typeof segment !== "string") throw new Error(`Cannot create the array at ${JSON.stringify(parentPath)}`);
    const object: Record<string, unknown> = {};
    defineOwn(object, segment, wrapped);
    wrapped = object;
  }
  throw new Error("Cannot set the document root through a path");
}

function insertion(body: string, container: SyntaxNode, segment: string | number, value: unknown, formatting: JsoncFormatting): Edit[] {
  const children = container.children ?? [];
  let member: (indent: string | undefined) => string;
  if (container.type === "object" && typeof segment === "string") {
    member = (indent) => `${JSON.stringify(segment)}: ${indent === undefined ? inlineJson(value) : prettyJson(value, indent, formatting)}`;
  } else if (container.type === "array" && segment === children.length) {
    member = (indent) => (indent === undefined ? inlineJson(value) : prettyJson(value, indent, formatting));
  } else {
    throw new Error(`Cannot add ${JSON.stringify(segment)} to a ${container.type}`);
  }
  const { eol } = formatting;
  const last = children[children.length - 1];
  if (!last) {
    const innerStart = container.offset + 1;
    const innerEnd = endOf(container) - 1;
    const inner = body.slice(innerStart, innerEnd);
    if (isInlineContainer(body, container)) {
      const content = container.type === "object" ? ` ${member(undefined)} ` : member(undefined);
      return inner.trim() === ""
        ? [{ offset: innerStart, length: inner.length, content }]
        : [{ offset: innerStart, length: 0, content: `${content} ` }];
    }
    const outer = indentAt(body, container.offset);
    const indent = outer + formatting.indentUnit;
    if (inner.trim() === "")
      return [{ offset: innerStart, length: inner.length, content: `${eol}${indent}${member(indent)}${eol}${outer}` }];
    // Comments inside the empty container stay after the new member.
    return [{ offset: innerStart, length: 0, content: `${eol}${indent}${member(indent)}` }];
  }
  const gap = scanGap(body, endOf(last));
  if (!beginsLine(body, last.offset)) {
    // An inline container (`["text"]`, `{ "id": "a" }`) gains an inline member.
    if (gap.comma !== undefined) return [{ offset: gap.comma + 1, length: 0, content: ` ${member(undefined)},` }];
    return [{ offset: endOf(last), length: 0, content: `, ${member(undefined)}` }];
  }
  // One member per line: the new one goes on its own line after the last member's line (after any comment
  // ending that line), with the last member's indentation; a trailing comma style is kept.
  const indent = indentAt(body, last.offset);
  const line = `${eol}${indent}${member(indent)}`;
  if (gap.comma !== undefined) {
    const at = gap.lineBreakAfterComma ?? gap.comma + 1;
    return [{ offset: at, length: 0, content: `${line},` }];
  }
  const lineBreak = gap.lineBreak?.offset;
  if (lineBreak === undefined) return [{ offset: endOf(last), length: 0, content: `,${line}` }];
  return [
    { offset: endOf(last), length: 0, content: "," },
    { offset: lineBreak, length: 0, content: line },
  ];
}

function removal(body: string, root: SyntaxNode, path: JSONPath): Edit[] {
  const node = findNodeAtLocation(root, path);
  if (!node) return [];
  const member = memberOf(node);
  const container = member.parent;
  if (!container) throw new Error("Cannot remove the document root");
  const siblings = container.children ?? [];
  const index = siblings.indexOf(member);
  const previous = siblings[index - 1];
  const next = siblings[index + 1];
  const gap = scanGap(body, endOf(member));
  const innerStart = container.offset + 1;
  const innerEnd = endOf(container) - 1;
  /** Removing the container's only member: when nothing but whitespace would remain, the container becomes `{}` or `[]`. */
  const emptied = (edit: Edit): Edit[] => {
    if (siblings.length !== 1) return [edit];
    const remaining = body.slice(innerStart, edit.offset) + body.slice(edit.offset + edit.length, innerEnd);
    return remaining.trim() === "" ? [{ offset: innerStart, length: innerEnd - innerStart, content: "" }] : [edit];
  };
  const lineBreak = gap.lineBreak;
  const commaOnSameLine = gap.comma === undefined || lineBreak === undefined || gap.comma < lineBreak.offset;
  if (beginsLine(body, member.offset) && lineBreak !== undefined && commaOnSameLine) {
    // The member has its own lines: remove them, with a comment that ends its last line.
    const start = lineStartOf(body, member.offset);
    const edits = emptied({ offset: start, length: lineBreak.offset + lineBreak.length - start, content: "" });
    if (gap.comma === undefined && previous && siblings.length > 1) {
      // It was the last member without a trailing comma: the previous member's comma goes too.
      const previousComma = scanGap(body, endOf(previous)).comma;
      if (previousComma !== undefined) edits.push({ offset: previousComma, length: 1, content: "" });
    }
    return edits;
  }
  if (next && gap.comma !== undefined) {
    let end = gap.comma + 1;
    while (body[end] === " " || body[end] === "\t") end++;
    return [{ offset: member.offset, length: Math.min(end, next.offset) - member.offset, content: "" }];
  }
  if (previous) return [{ offset: endOf(previous), length: endOf(member) - endOf(previous), content: "" }];
  const end = gap.comma !== undefined ? gap.comma + 1 : endOf(member);
  return emptied({ offset: member.offset, length: end - member.offset, content: "" });
}

// ---- new text -----------------------------------------------------------------------------------------------

function isContainer(value: unknown): value is object {
  return typeof value === "object" && value !== null;
}

function entriesOf(value: object): Array<[string, unknown]> {
  return Object.entries(value).filter(([, item]) => item !== undefined);
}

/** Multi-line JSON whose nested lines start with `indent`; arrays of plain values stay on one line (`["text", "image"]`). */
function prettyJson(value: unknown, indent: string, formatting: JsoncFormatting): string {
  if (!isContainer(value)) return JSON.stringify(value) ?? "null";
  const inner = indent + formatting.indentUnit;
  const { eol } = formatting;
  if (Array.isArray(value)) {
    if (value.every((item) => !isContainer(item))) return inlineJson(value);
    return `[${eol}${value.map((item) => inner + prettyJson(item, inner, formatting)).join(`,${eol}`)}${eol}${indent}]`;
  }
  const entries = entriesOf(value);
  if (entries.length === 0) return "{}";
  const lines = entries.map(([key, item]) => `${inner}${JSON.stringify(key)}: ${prettyJson(item, inner, formatting)}`);
  return `{${eol}${lines.join(`,${eol}`)}${eol}${indent}}`;
}

/** One-line JSON in the hand-written style: `{ "id": "a", "input": ["text"] }`. */
function inlineJson(value: unknown): string {
  if (!isContainer(value)) return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(inlineJson).join(", ")}]`;
  const entries = entriesOf(value);
  if (entries.length === 0) return "{}";
  return `{ ${entries.map(([key, item]) => `${JSON.stringify(key)}: ${inlineJson(item)}`).join(", ")} }`;
}
