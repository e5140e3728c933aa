/**
 * A small bash parser: enough of the shell grammar to know every command a command line runs, with its
 * words, assignments and redirections (used by readonly-bash.ts; no evaluation, no I/O).
 *
 * Covered: words with single quotes, double quotes, backslash escapes, `$'...'` and `$"..."`; parameter
 * expansions (`$x`, `${...}`), command substitutions (`$(...)`, backquotes), arithmetic (`$((...))`,
 * `((...))`), process substitutions (`<(...)`, `>(...)`), each substitution parsed recursively; the
 * operators `;` `&` `&&` `||` `|` `|&` and newlines; subshells `( )`; redirections (`<` `>` `>>` `>|` `<>`
 * `<&` `>&` `&>` `&>>`, with an optional fd number) and here-documents (`<<`, `<<-`, their bodies read after
 * the end of the line; an unquoted delimiter keeps the substitutions of the body) and here-strings (`<<<`);
 * comments; `[[ ... ]]`; array assignments `a=(...)`.
 *
 * Reserved words are not structured: `if then else elif fi while until do done for select { } !` are kept
 * as `keywords` of the command they start (or close), so that `if grep -q x f; then cat f; fi` is the
 * commands `[if] grep -q x f`, `[then] cat f` and `[fi]`. That is all a read-only check needs: every command
 * and every redirection is seen, whatever runs it. Not supported (a parse error): `case`, function
 * definitions, `coproc`, extended globs. An unbalanced quote, parenthesis or substitution is a parse error.
 *
 * A word's `value` is its text after quote removal when it has no expansion, else null; `prefix` is the
 * static text before its first expansion (a process substitution counts as the text "/dev/fd/", which is
 * what it expands to). Unquoted brace expansion (`{a,b}`, `{1..3}`) counts as an expansion: it can turn one
 * word into several. Globs (`*.md`) are kept as written.
 *
 * This file holds the grammar (lists, pipelines, commands, redirections); shell-lexer.ts reads words,
 * here-document bodies, blanks and comments; shell-ast.ts declares the tree.
 */
import {
  fail,
  type ListSeparator,
  type RedirectOperator,
  type ShellCommand,
  type ShellList,
  type ShellParse,
  type ShellPipeline,
  type ShellRedirect,
  ShellSyntaxError,
  type ShellWord,
} from "./shell-ast.ts";
import { META, ShellLexer } from "./shell-lexer.ts";

export type {
  ExpressionCommand,
  HereDocument,
  ListSeparator,
  RedirectOperator,
  ShellCommand,
  ShellList,
  ShellParse,
  ShellPipeline,
  ShellRedirect,
  ShellWord,
  SimpleCommand,
  SubshellCommand,
} from "./shell-ast.ts";
export { MAX_SHELL_NESTING } from "./shell-ast.ts";

/** Parses a command line; never throws. */
export function parseShell(source: string): ShellParse {
  try {
    return { ok: true, list: new Parser(source, 0).parseProgram() };
  } catch (error) {
    if (error instanceof ShellSyntaxError) return { ok: false, error: error.message };
    throw error;
  }
}

const OPENING_KEYWORDS = new Set(["if", "then", "else", "elif", "while", "until", "do", "{", "!"]);
const CLOSING_KEYWORDS = new Set(["fi", "done", "}"]);
const LOOP_KEYWORDS = new Set(["for", "select"]);
const UNSUPPORTED_KEYWORDS: Record<string, string> = {
  case: "case statements are not supported",
  function: "defining shell functions is not supported",
  coproc: "coproc is not supported",
  "]]": "unexpected ]]",
};
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

class Parser extends ShellLexer {
  protected parseNested(): ShellList {
    return new Parser(this.src, this.depth + 1).parseNestedAt(this);
  }

  protected parseSource(source: string): ShellList {
    return new Parser(source, this.depth + 1).parseProgram();
  }

  protected scanSource(source: string): ShellList[] {
    return new Parser(source, this.depth + 1).scanHeredocBody();
  }

  parseProgram(): ShellList {
    const list = this.parseList(false);
    if (this.pos < this.src.length) fail(`unexpected ${this.describeAt(this.pos)}`);
    this.readHeredocBodies();
    return list;
  }

  /** A list up to the end of input, or up to an unmatched `)` when `nested`. */
  private parseList(nested: boolean): ShellList {
    const items: ShellList["items"] = [];
    for (;;) {
      this.skipLinebreaks();
      if (this.pos >= this.src.length) break;
      if (this.src[this.pos] === ")") {
        if (nested) break;
        fail("unexpected )");
      }
      const pipeline = this.parsePipeline();
      this.skipBlanks();
      const separator = this.readSeparator();
      items.push({ pipeline, separator });
      if (separator === "&&" || separator === "||") {
        this.skipLinebreaks();
        if (this.pos >= this.src.length || this.src[this.pos] === ")") fail(`${separator} needs a command after it`);
        continue;
      }
      if (separator === "") {
        if (this.pos >= this.src.length || (nested && this.src[this.pos] === ")")) break;
        fail(`unexpected ${this.describeAt(this.pos)}`);
      }
    }
    return { items };
  }

  private readSeparator(): ListSeparator {
    const s = this.src;
    const c = s[this.pos];
    if (c === "&" && s[this.pos + 1] === "&") return this.advance(2, "&&");
    if (c === "|" && s[this.pos + 1] === "|") return this.advance(2, "||");
    if (c === ";" && s[this.pos + 1] === ";") fail("case statements are not supported (;;)");
    if (c === ";") return this.advance(1, ";");
    if (c === "&") return this.advance(1, "&");
    if (c === "\n") {
      this.consumeNewline();
      return "\n";
    }
    return "";
  }

  private advance<T>(count: number, result: T): T {
    this.pos += count;
    return result;
  }

  private parsePipeline(): ShellPipeline {
    let negated = false;
    this.skipBlanks();
    if (this.src[this.pos] === "!" && this.isWordEnd(this.pos + 1)) {
      negated = true;
      this.pos += 1;
    }
    const commands = [this.parseCommand()];
    for (;;) {
      this.skipBlanks();
      const s = this.src;
      if (s[this.pos] !== "|" || s[this.pos + 1] === "|") break;
      this.pos += s[this.pos + 1] === "&" ? 2 : 1;
      this.skipLinebreaks();
      if (this.pos >= s.length) fail("a pipe (|) needs a command after it");
      commands.push(this.parseCommand());
    }
    return { negated, commands };
  }

  private parseCommand(): ShellCommand {
    this.skipBlanks();
    const start = this.pos;
    const s = this.src;
    if (s.startsWith("((", this.pos)) {
      const arithmetic = this.tryArithmetic(this.pos + 2);
      if (arithmetic) {
        this.pos = arithmetic.end;
        const word = arithmetic.builder.word(s.slice(start, this.pos));
        const redirects = this.parseTrailingRedirects();
        return { kind: "arithmetic", words: [word], redirects, text: this.textFrom(start) };
      }
    }
    if (s[this.pos] === "(") {
      this.pos += 1;
      const body = this.parseNested();
      const redirects = this.parseTrailingRedirects();
      return { kind: "subshell", body, redirects, text: this.textFrom(start) };
    }
    return this.parseSimpleCommand(start);
  }

  /** Parses a nested list in the parent's source from the parent's position up to `)`, and moves it past `)`. */
  parseNestedAt(parent: Parser): ShellList {
    this.pos = parent.pos;
    this.pending = parent.pending;
    this.arithmeticMemo = parent.arithmeticMemo;
    const list = this.parseList(true);
    this.skipLinebreaks();
    if (this.src[this.pos] !== ")") fail("missing ) (an unbalanced parenthesis or substitution)");
    parent.pos = this.pos + 1;
    return list;
  }

  private parseSimpleCommand(start: number): ShellCommand {
    const keywords: string[] = [];
    const assignments: ShellWord[] = [];
    const words: ShellWord[] = [];
    const redirects: ShellRedirect[] = [];
    let closed = false;
    let loopHeader = false;
    const s = this.src;
    for (;;) {
      this.skipBlanks();
      if (this.pos >= s.length) break;
      const c = s[this.pos] ?? "";
      const redirect = this.tryRedirect();
      if (redirect) {
        redirects.push(redirect);
        continue;
      }
      if (loopHeader && words.length === 0 && s.startsWith("((", this.pos)) {
        const arithmetic = this.tryArithmetic(this.pos + 2);
        if (!arithmetic) fail("unterminated (( in a for loop");
        const from = this.pos;
        this.pos = arithmetic.end;
        words.push(arithmetic.builder.word(s.slice(from, this.pos)));
        continue;
      }
      if (c === "(") {
        if (words.length === 1 && s.slice(this.pos).match(/^\(\s*\)/)) fail("defining shell functions is not supported");
        fail("unexpected (");
      }
      const processSubstitution = (c === "<" || c === ">") && s[this.pos + 1] === "(";
      if (META.has(c) && !processSubstitution) break;
      if (closed) fail(`unexpected word after ${keywords[keywords.length - 1] ?? "the command"}`);
      const commandPosition = words.length === 0 && assignments.length === 0 && !loopHeader;
      if (commandPosition && s.startsWith("[[", this.pos) && this.isWordEnd(this.pos + 2)) {
        return this.parseConditional(start);
      }
      const word = this.readWord(false);
      if (commandPosition && word.value !== null && word.raw === word.value) {
        const unsupported = Object.hasOwn(UNSUPPORTED_KEYWORDS, word.raw) ? UNSUPPORTED_KEYWORDS[word.raw] : undefined;
        if (unsupported !== undefined) fail(unsupported);
        if (OPENING_KEYWORDS.has(word.raw)) {
          keywords.push(word.raw);
          continue;
        }
        if (CLOSING_KEYWORDS.has(word.raw)) {
          keywords.push(word.raw);
          closed = true;
          continue;
        }
        if (LOOP_KEYWORDS.has(word.raw)) {
          keywords.push(word.raw);
          loopHeader = true;
          continue;
        }
      }
      if (words.length === 0 && !loopHeader && ASSIGNMENT.test(word.raw)) assignments.push(word);
      else words.push(word);
    }
    if (keywords.length === 0 && assignments.length === 0 && words.length === 0 && redirects.length === 0) {
      fail(`expected a command before ${this.describeAt(this.pos)}`);
    }
    return { kind: "simple", keywords, assignments, words, redirects, text: this.textFrom(start) };
  }

  /** `[[ ... ]]` (keywords in front of it, like `if`, are dropped: they run nothing). */
  private parseConditional(start: number): ShellCommand {
    this.pos += 2;
    const words: ShellWord[] = [];
    for (;;) {
      this.skipBlanks();
      while (this.src[this.pos] === "\n") this.consumeNewline();
      this.skipBlanks();
      if (this.pos >= this.src.length) fail("unterminated [[");
      if (this.src.startsWith("]]", this.pos) && this.isWordEnd(this.pos + 2)) {
        this.pos += 2;
        break;
      }
      words.push(this.readWord(true));
    }
    const redirects = this.parseTrailingRedirects();
    return { kind: "conditional", words, redirects, text: this.textFrom(start) };
  }

  private parseTrailingRedirects(): ShellRedirect[] {
    const redirects: ShellRedirect[] = [];
    for (;;) {
      this.skipBlanks();
      const redirect = this.tryRedirect();
      if (!redirect) break;
      redirects.push(redirect);
    }
    this.skipBlanks();
    const c = this.src[this.pos];
    if (c !== undefined && !META.has(c) && c !== "#") fail(`unexpected word ${this.describeAt(this.pos)}`);
    return redirects;
  }

  private textFrom(start: number): string {
    return this.src.slice(start, this.pos).trim();
  }

  private tryRedirect(): ShellRedirect | null {
    const s = this.src;
    const start = this.pos;
    const digits = /^\d+(?=[<>])/.exec(s.slice(start, start + 12));
    let i = start + (digits ? digits[0].length : 0);
    const rest = s.slice(i, i + 3);
    let op: RedirectOperator | null = null;
    for (const candidate of ["&>>", "<<<", "<<-", "&>", "<<", "<&", "<>", ">>", ">|", ">&", "<", ">"] as const) {
      if (rest.startsWith(candidate)) {
        op = candidate;
        break;
      }
    }
    if (op === null) return null;
    if (digits && op.startsWith("&")) return null;
    if ((op === "<" || op === ">") && s[i + 1] === "(") return null; // a process substitution
    i += op.length;
    this.pos = i;
    this.skipBlanks();
    const c = s[this.pos];
    const processSubstitution = (c === "<" || c === ">") && s[this.pos + 1] === "(";
    if (c === undefined || (META.has(c) && !processSubstitution)) fail(`the redirection ${op} needs a target`);
    const target = this.readWord(false);
    const redirect: ShellRedirect = {
      fd: digits ? Number(digits[0]) : null,
      op,
      target,
      heredoc: null,
      text: s.slice(start, this.pos),
    };
    if (op === "<<" || op === "<<-") {
      const quoted = /['"\\]/.test(target.raw);
      const delimiter = target.raw.replace(/\\(.)|['"]/g, "$1");
      redirect.heredoc = { body: "", quoted, substitutions: [] };
      this.pending.push({ redirect, delimiter, stripTabs: op === "<<-" });
    }
    return redirect;
  }
}
