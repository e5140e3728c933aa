/**
 * Accumulates one word while the lexer (shell-lexer.ts) reads it: the static value, the prefix before the
 * first expansion, and what the expansions run or evaluate.
 */
import type { ShellList, ShellWord } from "./shell-ast.ts";

/** Accumulates one word: its static value, the prefix before its first expansion, its substitutions. */
export class WordBuilder {
  value = "";
  isStatic = true;
  substitutions: ShellList[] = [];
  arithmetic: string[] = [];
  parameters: string[] = [];
  /** Where an unquoted `{` opened (index in `value`), and whether a `,` or `..` followed it. */
  private brace: { at: number; list: boolean } | null = null;

  text(text: string): void {
    if (this.isStatic) this.value += text;
  }

  /** An unquoted character: tracks brace expansion (`{a,b}`, `{1..3}`), which makes the word computed. */
  unquoted(c: string): void {
    if (c === "{") this.brace = { at: this.value.length, list: false };
    else if (this.brace && (c === "," || (c === "." && this.value.endsWith(".")))) this.brace.list = true;
    this.text(c);
    if (c === "}" && this.brace?.list && this.isStatic) {
      this.value = this.value.slice(0, this.brace.at);
      this.expansion();
    }
    if (c === "}") this.brace = null;
  }

  expansion(substitution?: ShellList): void {
    this.isStatic = false;
    if (substitution) this.substitutions.push(substitution);
  }

  /** Takes the expansions of a word read inside this one (an arithmetic expression, an array literal). */
  absorb(inner: { substitutions: ShellList[]; arithmetic: string[]; parameters: string[] }): void {
    this.expansion();
    this.substitutions.push(...inner.substitutions);
    this.arithmetic.push(...inner.arithmetic);
    this.parameters.push(...inner.parameters);
  }

  word(raw: string): ShellWord {
    return {
      raw,
      value: this.isStatic ? this.value : null,
      prefix: this.value,
      substitutions: this.substitutions,
      arithmetic: this.arithmetic,
      parameters: this.parameters,
    };
  }
}
