/**
 * pi's configuration files as text documents, parsed the way pi reads them, with a user-facing message for a file
 * that cannot be used (spec "Targets and revisions"). Editing them is jsonc-edit.ts's.
 *
 * Two dialects: "jsonc" is models.json, which pi reads after stripping `//` line comments and trailing commas (so
 * block comments are an error there); "json" is mcp.json, plain JSON without comments or trailing commas. Both
 * reject duplicate object keys anywhere, which pi would silently resolve to the last one.
 *
 * Parsing and scanning are jsonc-parser's (parseTree, createScanner); the checks jsonc-parser does not make
 * (comments the dialect forbids, trailing commas in "json", duplicate keys) are made here.
 *
 * Pure: no I/O. A byte-order mark is ignored for parsing, as pi's loader strips it.
 */
import { createScanner, parseTree, printParseErrorCode } from "jsonc-parser";
import type { Node as SyntaxNode, ParseError } from "jsonc-parser";

export type JsoncDialect = "jsonc" | "json";

export type JsoncParseResult = { ok: true; value: unknown } | { ok: false; message: string };

/** The syntax tree of a valid document, or why it is not valid (without the file label). */
export type JsoncAnalysis = { ok: true; root: SyntaxNode } | { ok: false; detail: string };

export const BOM = "\uFEFF";

/** jsonc-parser's SyntaxKind values; its declarations are a `const enum`, which isolatedModules cannot read. */
export const SYNTAX_KIND = {
  closeBrace: 2,
  closeBracket: 4,
  comma: 5,
  lineComment: 12,
  blockComment: 13,
  lineBreak: 14,
  trivia: 15,
  unknown: 16,
  eof: 17,
} as const;

/** The user-facing words for jsonc-parser's parse error codes (by their printParseErrorCode names). */
const PARSE_ERROR_PHRASES: Readonly<Record<string, string>> = {
  InvalidSymbol: "unexpected token",
  InvalidNumberFormat: "invalid number",
  PropertyNameExpected: "expected a property name",
  ValueExpected: "expected a value",
  ColonExpected: 'expected ":"',
  CommaExpected: 'expected ","',
  CloseBraceExpected: 'expected "}"',
  CloseBracketExpected: 'expected "]"',
  EndOfFileExpected: "unexpected text after the end of the document",
  InvalidCommentToken: "comments are not supported",
  UnexpectedEndOfComment: "unterminated comment",
  UnexpectedEndOfString: "unterminated string",
  UnexpectedEndOfNumber: "incomplete number",
  InvalidUnicode: "invalid unicode escape",
  InvalidEscapeCharacter: "invalid escape character",
  InvalidCharacter: "invalid character in a string",
};

export function defaultFileLabel(dialect: JsoncDialect): string {
  return dialect === "jsonc" ? "models.json" : "mcp.json";
}

/**
 * The value of a configuration file, or a user-facing message saying why the file cannot be used, such as
 * `models.json is not valid: duplicate key "openai" at line 4`.
 *
 * An empty or whitespace-only text is the empty object `{}`: pi treats a missing models.json as no configuration,
 * and the settings routes read a missing file as empty text, so an emptied file means the same.
 */
export function parseJsoncDocument(text: string, dialect: JsoncDialect, fileLabel: string = defaultFileLabel(dialect)): JsoncParseResult {
  const body = withoutBom(text);
  if (body.trim() === "") return { ok: true, value: {} };
  const analysed = analyseJsoncBody(body, dialect);
  if (!analysed.ok) return { ok: false, message: `${fileLabel} is not valid: ${analysed.detail}` };
  return { ok: true, value: valueOf(analysed.root) };
}

// ---- parsing ------------------------------------------------------------------------------------------------

interface Problem {
  offset: number;
  detail: string;
}

function withoutBom(text: string): string {
  return text.startsWith(BOM) ? text.slice(1) : text;
}

/** The document body (no byte-order mark) as a syntax tree, after every check parseJsoncDocument makes. */
export function analyseJsoncBody(body: string, dialect: JsoncDialect): JsoncAnalysis {
  const errors: ParseError[] = [];
  const root = parseTree(body, errors, { allowTrailingComma: dialect === "jsonc", disallowComments: false, allowEmptyContent: false });
  const firstError = errors[0];
  const syntax: Problem | undefined = firstError ? { offset: firstError.offset, detail: describeParseError(body, firstError) } : undefined;
  const lexical = findLexicalProblem(body, dialect);
  const problem = syntax && lexical ? (lexical.offset <= syntax.offset ? lexical : syntax) : (syntax ?? lexical);
  if (problem) return { ok: false, detail: problem.detail };
  if (!root) return { ok: false, detail: "expected a value at line 1, column 1" };
  const duplicate = findDuplicateKey(body, root);
  if (duplicate) return { ok: false, detail: duplicate };
  return { ok: true, root };
}

function describeParseError(body: string, error: ParseError): string {
  const { line, column } = lineColumn(body, error.offset);
  const phrase =
    error.offset >= body.length ? "unexpected end of file" : (PARSE_ERROR_PHRASES[printParseErrorCode(error.error)] ?? "unexpected token");
  return `${phrase} at line ${line}, column ${column}`;
}

/** Comments the dialect does not allow, and (in "json") trailing commas: what the parser itself accepts or words poorly. */
function findLexicalProblem(body: string, dialect: JsoncDialect): Problem | undefined {
  const scanner = createScanner(body, false);
  let pendingComma: number | undefined;
  for (;;) {
    const token: number = scanner.scan();
    if (token === SYNTAX_KIND.eof || token === SYNTAX_KIND.unknown || scanner.getTokenError() !== 0) return undefined;
    const offset = scanner.getTokenOffset();
    const line = scanner.getTokenStartLine() + 1;
    if (token === SYNTAX_KIND.blockComment) {
      return {
        offset,
        detail: dialect === "jsonc" ? `block comments are not supported (line ${line})` : `comments are not supported (line ${line})`,
      };
    }
    if (token === SYNTAX_KIND.lineComment) {
      if (dialect === "json") return { offset, detail: `comments are not supported (line ${line})` };
      continue;
    }
    if (token === SYNTAX_KIND.lineBreak || token === SYNTAX_KIND.trivia) continue;
    if ((token === SYNTAX_KIND.closeBrace || token === SYNTAX_KIND.closeBracket) && pendingComma !== undefined && dialect === "json") {
      return { offset: pendingComma, detail: `trailing commas are not supported (line ${lineColumn(body, pendingComma).line})` };
    }
    pendingComma = token === SYNTAX_KIND.comma ? offset : undefined;
  }
}

function findDuplicateKey(body: string, node: SyntaxNode): string | undefined {
  if (node.type === "object") {
    const seen = new Set<string>();
    for (const property of node.children ?? []) {
      const [keyNode, valueNode] = property.children ?? [];
      if (!keyNode) continue;
      const key = String(keyNode.value);
      if (seen.has(key)) return `duplicate key ${JSON.stringify(key)} at line ${lineColumn(body, keyNode.offset).line}`;
      seen.add(key);
      const nested = valueNode ? findDuplicateKey(body, valueNode) : undefined;
      if (nested) return nested;
    }
  } else if (node.type === "array") {
    for (const child of node.children ?? []) {
      const nested = findDuplicateKey(body, child);
      if (nested) return nested;
    }
  }
  return undefined;
}

/** A node's value as JSON.parse builds it: every key an own property, "__proto__" included. */
function valueOf(node: SyntaxNode): unknown {
  if (node.type === "array") return (node.children ?? []).map(valueOf);
  if (node.type !== "object") return node.value;
  const object: Record<string, unknown> = {};
  for (const property of node.children ?? []) {
    const [keyNode, valueNode] = property.children ?? [];
    if (keyNode && valueNode) defineOwn(object, String(keyNode.value), valueOf(valueNode));
  }
  return object;
}

/** Sets an own, enumerable property, even one named "__proto__". */
export function defineOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf("\n"); index !== -1 && index < offset; index = text.indexOf("\n", index + 1)) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}
