/**
 * The syntax tree of a parsed command line (shell-syntax.ts explains what the parser covers).
 */

export interface ShellWord {
  /** The word as written. */
  raw: string;
  /** The word after quote removal, or null when it contains an expansion. */
  value: string | null;
  /** The static text before the first expansion (the whole value when there is none). */
  prefix: string;
  /** Scripts the expansion of the word runs (command and process substitutions), in order. */
  substitutions: ShellList[];
  /**
   * Arithmetic expressions the word evaluates, as written: `$((...))`, `$[...]`, `((...))` and the
   * subscripts of an array literal (`a=([i]=x)`).
   */
  arithmetic: string[];
  /** Parameter expansions of the word: the text between the braces of each `${...}`, as written. */
  parameters: string[];
}

export type RedirectOperator = "<" | ">" | ">>" | ">|" | "<>" | "<<" | "<<-" | "<<<" | "<&" | ">&" | "&>" | "&>>";

export interface HereDocument {
  body: string;
  /** Whether the delimiter was quoted (then the body is taken literally). */
  quoted: boolean;
  /** Substitutions in the body (unquoted delimiter only). */
  substitutions: ShellList[];
}

export interface ShellRedirect {
  /** The file descriptor written before the operator (`2>`), or null. */
  fd: number | null;
  op: RedirectOperator;
  /** The target file, fd, here-string word or here-document delimiter. */
  target: ShellWord;
  heredoc: HereDocument | null;
  /** The redirection as written, e.g. `> out.txt`. */
  text: string;
}

export interface SimpleCommand {
  kind: "simple";
  /** Reserved words written before the command or closing a compound command (`then`, `do`, `fi`, ...). */
  keywords: string[];
  /** `NAME=value` words in front of the command. */
  assignments: ShellWord[];
  words: ShellWord[];
  redirects: ShellRedirect[];
  /** The command as written. */
  text: string;
}

export interface SubshellCommand {
  kind: "subshell";
  body: ShellList;
  redirects: ShellRedirect[];
  text: string;
}

/** `(( ... ))` (one word holding the expression) or `[[ ... ]]` (its words). */
export interface ExpressionCommand {
  kind: "arithmetic" | "conditional";
  words: ShellWord[];
  redirects: ShellRedirect[];
  text: string;
}

export type ShellCommand = SimpleCommand | SubshellCommand | ExpressionCommand;

export interface ShellPipeline {
  negated: boolean;
  commands: ShellCommand[];
}

export type ListSeparator = ";" | "&" | "&&" | "||" | "\n" | "";

export interface ShellList {
  items: { pipeline: ShellPipeline; separator: ListSeparator }[];
}

export type ShellParse = { ok: true; list: ShellList } | { ok: false; error: string };

/** How deeply substitutions and subshells may nest. */
export const MAX_SHELL_NESTING = 24;

/** A command line that cannot be parsed; parseShell turns it into `{ ok: false, error }`. */
export class ShellSyntaxError extends Error {}

export function fail(message: string): never {
  throw new ShellSyntaxError(message);
}
