/**
 * The lexical half of the shell parser (shell-syntax.ts holds the grammar): words with their quoting,
 * escapes and expansions, here-document bodies, blanks, line continuations and comments. Substitutions
 * inside words (`$(...)`, backquotes, `<(...)`) are handed back to the grammar through the abstract
 * `parseNested`, `parseSource` and `scanSource`, so that they are parsed as command lines of their own.
 */
import { fail, MAX_SHELL_NESTING, type ShellList, type ShellRedirect, ShellSyntaxError, type ShellWord } from "./shell-ast.ts";
import { WordBuilder } from "./shell-word-builder.ts";

/** Blanks that separate words. */
export const BLANK = new Set([" ", "\t"]);
/** Characters that end an unquoted word. */
export const META = new Set([" ", "\t", "\n", ";", "&", "|", "(", ")", "<", ">"]);
const ARRAY_OPEN = /^[A-Za-z_][A-Za-z0-9_]*\+?=$/;

export interface PendingHeredoc {
  redirect: ShellRedirect;
  delimiter: string;
  stripTabs: boolean;
}

export abstract class ShellLexer {
  protected pos = 0;
  protected pending: PendingHeredoc[] = [];
  /**
   * Results of `tryArithmetic` by start position in this source. Without it, nested `$((` that turn out to
   * be substitutions would be scanned again by every enclosing attempt: exponential time on a short line.
   */
  protected arithmeticMemo = new Map<number, { end: number; builder: WordBuilder } | null>();

  constructor(
    protected readonly src: string,
    protected readonly depth: number,
  ) {
    if (depth > MAX_SHELL_NESTING) fail("the command line nests substitutions too deeply");
  }

  /** Parses the list that starts at `pos` (in this source) up to its `)`, and moves `pos` past the `)`. */
  protected abstract parseNested(): ShellList;

  /** Parses another piece of source (the inside of backquotes) one level deeper. */
  protected abstract parseSource(source: string): ShellList;

  /** The substitutions of an unquoted here-document body, one level deeper. */
  protected abstract scanSource(source: string): ShellList[];

  /** Consumes a newline at token level and reads the bodies of the here-documents opened on its line. */
  protected consumeNewline(): void {
    this.pos += 1;
    this.readHeredocBodies();
  }

  protected readHeredocBodies(): void {
    const s = this.src;
    while (this.pending.length > 0) {
      const heredoc = this.pending.shift();
      if (!heredoc) break;
      let body = "";
      while (this.pos < s.length) {
        const eol = s.indexOf("\n", this.pos);
        const end = eol === -1 ? s.length : eol;
        const line = s.slice(this.pos, end);
        this.pos = eol === -1 ? s.length : eol + 1;
        const compared = heredoc.stripTabs ? line.replace(/^\t+/, "") : line;
        if (compared === heredoc.delimiter) break;
        body += `${compared}\n`;
      }
      const doc = heredoc.redirect.heredoc;
      if (!doc) continue;
      doc.body = body;
      if (!doc.quoted) doc.substitutions = this.scanSource(body);
    }
  }

  /** The substitutions of an unquoted here-document body (which is expanded like a double-quoted string). */
  scanHeredocBody(): ShellList[] {
    const builder = new WordBuilder();
    const s = this.src;
    while (this.pos < s.length) {
      const c = s[this.pos];
      if (c === "\\") this.pos += 2;
      else if (c === "$") this.readDollar(builder, true);
      else if (c === "`") this.readBackquote(builder);
      else this.pos += 1;
    }
    return builder.substitutions;
  }

  /** Reads one word; in a `[[ ]]` (`blanksOnly`) only blanks and newlines end it. */
  protected readWord(blanksOnly: boolean): ShellWord {
    const s = this.src;
    const start = this.pos;
    const builder = new WordBuilder();
    if ((s[start] === "<" || s[start] === ">") && s[start + 1] === "(") {
      this.pos += 2;
      builder.text("/dev/fd/");
      builder.expansion(this.parseNested());
      return builder.word(s.slice(start, this.pos));
    }
    while (this.pos < s.length) {
      const c = s[this.pos] ?? "";
      if (blanksOnly ? c === " " || c === "\t" || c === "\n" : META.has(c)) {
        if (c === "(" && ARRAY_OPEN.test(s.slice(start, this.pos))) {
          this.readArrayLiteral(builder);
          continue;
        }
        break;
      }
      if (c === "\\") {
        const next = s[this.pos + 1];
        if (next === "\n") {
          this.pos += 2;
          continue;
        }
        builder.text(next ?? "\\");
        this.pos += next === undefined ? 1 : 2;
      } else if (c === "'") {
        const close = s.indexOf("'", this.pos + 1);
        if (close === -1) fail("unterminated single quote (')");
        builder.text(s.slice(this.pos + 1, close));
        this.pos = close + 1;
      } else if (c === '"') {
        this.readDoubleQuoted(builder);
      } else if (c === "`") {
        this.readBackquote(builder);
      } else if (c === "$") {
        this.readDollar(builder, false);
      } else {
        builder.unquoted(c);
        this.pos += 1;
      }
    }
    return builder.word(s.slice(start, this.pos));
  }

  private readArrayLiteral(builder: WordBuilder): void {
    this.pos += 1;
    builder.expansion();
    for (;;) {
      this.skipBlanks();
      const c = this.src[this.pos];
      if (c === undefined) fail("unterminated array assignment (");
      if (c === ")") {
        this.pos += 1;
        return;
      }
      if (c === "\n") {
        this.consumeNewline();
        continue;
      }
      const word = this.readWord(false);
      if (word.raw === "") fail(`unexpected ${this.describeAt(this.pos)} in an array assignment`);
      builder.absorb(word);
      // `[i]=value`: the subscript of an indexed array is arithmetic.
      const subscript = /^\[([^\]]*)\]\+?=/.exec(word.raw);
      if (subscript) builder.arithmetic.push(subscript[1] ?? "");
    }
  }

  private readDoubleQuoted(builder: WordBuilder): void {
    const s = this.src;
    this.pos += 1;
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) fail('unterminated double quote (")');
      if (c === '"') {
        this.pos += 1;
        return;
      }
      if (c === "\\") {
        const next = s[this.pos + 1];
        if (next === "\n") {
          this.pos += 2;
        } else if (next === "$" || next === "`" || next === '"' || next === "\\") {
          builder.text(next);
          this.pos += 2;
        } else {
          builder.text("\\");
          this.pos += 1;
        }
      } else if (c === "$") {
        this.readDollar(builder, true);
      } else if (c === "`") {
        this.readBackquote(builder);
      } else {
        builder.text(c);
        this.pos += 1;
      }
    }
  }

  private readBackquote(builder: WordBuilder): void {
    const s = this.src;
    let i = this.pos + 1;
    let content = "";
    for (;;) {
      const c = s[i];
      if (c === undefined) fail("unterminated backquote (`)");
      if (c === "`") break;
      const next = s[i + 1];
      if (c === "\\" && (next === "$" || next === "`" || next === "\\")) {
        content += next;
        i += 2;
      } else {
        content += c;
        i += 1;
      }
    }
    this.pos = i + 1;
    builder.expansion(this.parseSource(content));
  }

  private readDollar(builder: WordBuilder, inDoubleQuotes: boolean): void {
    const s = this.src;
    const next = s[this.pos + 1];
    if (next === "'" && !inDoubleQuotes) {
      this.readAnsiC(builder);
    } else if (next === '"' && !inDoubleQuotes) {
      this.pos += 1;
      this.readDoubleQuoted(builder);
    } else if (next === "(") {
      if (s[this.pos + 2] === "(") {
        const arithmetic = this.tryArithmetic(this.pos + 3);
        if (arithmetic) {
          this.pos = arithmetic.end;
          builder.absorb(arithmetic.builder);
          return;
        }
      }
      this.pos += 2;
      builder.expansion(this.parseNested());
    } else if (next === "{") {
      this.readBraceExpansion(builder);
    } else if (next === "[") {
      this.readOldArithmetic(builder);
    } else if (next !== undefined && /[A-Za-z_]/.test(next)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(this.pos + 1)) ?? [""];
      this.pos += 1 + name[0].length;
      builder.expansion();
    } else if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      this.pos += 2;
      builder.expansion();
    } else {
      builder.text("$");
      this.pos += 1;
    }
  }

  /** `$'...'`: static when it has no backslash escape (escapes are not decoded: the value is then unknown). */
  private readAnsiC(builder: WordBuilder): void {
    const s = this.src;
    let i = this.pos + 2;
    let content = "";
    let escaped = false;
    for (;;) {
      const c = s[i];
      if (c === undefined) fail("unterminated $' quote");
      if (c === "'") break;
      if (c === "\\") {
        escaped = true;
        i += 2;
        continue;
      }
      if (!escaped) content += c;
      i += 1;
    }
    this.pos = i + 1;
    builder.text(content);
    if (escaped) builder.expansion();
  }

  /** `${...}`: a parameter expansion (its text is kept); substitutions inside it are parsed. */
  private readBraceExpansion(builder: WordBuilder): void {
    const s = this.src;
    this.pos += 2;
    const start = this.pos;
    builder.expansion();
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) fail("unterminated ${");
      if (c === "}") {
        builder.parameters.push(s.slice(start, this.pos));
        this.pos += 1;
        return;
      }
      if (c === "\\") this.pos += 2;
      else if (c === "'") {
        const close = s.indexOf("'", this.pos + 1);
        if (close === -1) fail("unterminated single quote (')");
        this.pos = close + 1;
      } else if (c === '"') this.readDoubleQuoted(builder);
      else if (c === "$") this.readDollar(builder, true);
      else if (c === "`") this.readBackquote(builder);
      else this.pos += 1;
    }
  }

  /** `$[...]`, the old form of `$((...))`. */
  private readOldArithmetic(builder: WordBuilder): void {
    const s = this.src;
    this.pos += 2;
    const start = this.pos;
    builder.expansion();
    let depth = 0;
    for (;;) {
      const c = s[this.pos];
      if (c === undefined) fail("unterminated $[");
      if (c === "]" && depth === 0) {
        builder.arithmetic.push(s.slice(start, this.pos));
        this.pos += 1;
        return;
      }
      if (c === "[") depth += 1;
      if (c === "]") depth -= 1;
      if (c === "\\") this.pos += 2;
      else if (c === '"') this.readDoubleQuoted(builder);
      else if (c === "$") this.readDollar(builder, true);
      else if (c === "`") this.readBackquote(builder);
      else this.pos += 1;
    }
  }

  /**
   * Scans an arithmetic expression from `from` (after its opening `((`) to its closing `))`. Null when the
   * parentheses do not close as arithmetic (then `$((` / `((` is a substitution or subshell of a subshell).
   */
  protected tryArithmetic(from: number): { end: number; builder: WordBuilder } | null {
    const known = this.arithmeticMemo.get(from);
    if (known !== undefined) return known;
    const result = this.scanArithmetic(from);
    this.arithmeticMemo.set(from, result);
    return result;
  }

  private scanArithmetic(from: number): { end: number; builder: WordBuilder } | null {
    const saved = this.pos;
    const builder = new WordBuilder();
    builder.expansion();
    this.pos = from;
    let depth = 0;
    try {
      for (;;) {
        const c = this.src[this.pos];
        if (c === undefined) return null;
        if (c === "(") {
          depth += 1;
          this.pos += 1;
        } else if (c === ")") {
          if (depth > 0) {
            depth -= 1;
            this.pos += 1;
          } else if (this.src[this.pos + 1] === ")") {
            builder.arithmetic.push(this.src.slice(from, this.pos));
            return { end: this.pos + 2, builder };
          } else {
            return null;
          }
        } else if (c === "\\") this.pos += 2;
        else if (c === '"') this.readDoubleQuoted(builder);
        else if (c === "$") this.readDollar(builder, true);
        else if (c === "`") this.readBackquote(builder);
        else this.pos += 1;
      }
    } catch (error) {
      if (error instanceof ShellSyntaxError) return null;
      throw error;
    } finally {
      this.pos = saved;
    }
  }

  protected skipBlanks(): void {
    const s = this.src;
    for (;;) {
      const c = s[this.pos];
      if (c !== undefined && BLANK.has(c)) this.pos += 1;
      else if (c === "\\" && s[this.pos + 1] === "\n") this.pos += 2;
      else if (c === "#" && this.isWordStart(this.pos)) this.skipComment();
      else break;
    }
  }

  /** Blanks, comments and newlines (reading pending here-document bodies). */
  protected skipLinebreaks(): void {
    for (;;) {
      this.skipBlanks();
      if (this.src[this.pos] !== "\n") return;
      this.consumeNewline();
    }
  }

  private skipComment(): void {
    const eol = this.src.indexOf("\n", this.pos);
    this.pos = eol === -1 ? this.src.length : eol;
  }

  private isWordStart(index: number): boolean {
    const before = this.src[index - 1];
    return before === undefined || META.has(before);
  }

  protected isWordEnd(index: number): boolean {
    const c = this.src[index];
    return c === undefined || META.has(c);
  }

  protected describeAt(index: number): string {
    const c = this.src[index];
    if (c === undefined) return "end of input";
    if (c === "\n") return "newline";
    const token = /^(&&|\|\||;;|[;&|()<>]|[^\s;&|()<>]+)/.exec(this.src.slice(index, index + 40));
    return token ? `"${token[0]}"` : `"${c}"`;
  }
}
