/**
 * The editor command of the Files settings (spec "PUT /api/pi/files/settings"): split into an argv the server
 * spawns without a shell, and the rules that keep what runs equal to what a person reads.
 *
 * The split follows the POSIX shell's quoting exactly, so the argv is what `sh` would pass: words separated by
 * spaces; `'...'` literal; `"..."` literal except `\"`, `\\`, `\$` and `` \` ``; `\x` outside quotes is `x`.
 * Everything a shell would give another meaning is refused instead of silently taken literally:
 * - shell operators `| & ; < > ( )` (a pipeline, list, redirection or subshell);
 * - expansions and substitutions: `$` (also inside double quotes), backquotes;
 * - unquoted glob characters `* ? [` and braces `{ }` (a shell would expand them into file names or words),
 *   a `~` starting a word (tilde expansion), `#` starting a word (a comment), a `NAME=value` first word (an
 *   environment assignment);
 * - control characters (C0, DEL, C1), more than 4,096 characters, an unterminated quote, a lone final backslash.
 * Quoted, these characters are plain text: `vim -c 'set ft=*'` and `'/opt/My Editor/bin/edit'` are accepted.
 * The program must be a name found on PATH or an absolute path (a relative path would depend on the cwd).
 *
 * Also here: which editors run in a terminal (editorMode "auto"), and the argv that opens a file at a line for a
 * desktop editor and for a terminal editor. Pure: finding the program on PATH is the adapter's.
 */
import { hasControlCharacter } from "./control-characters.ts";

export const EDITOR_MODES = ["auto", "desktop", "terminal"] as const;
export type EditorMode = (typeof EDITOR_MODES)[number];

export const EDITOR_COMMAND_MAX_LENGTH = 4096;

export const EDITOR_TOO_LONG = "The editor command is longer than 4,096 characters";
export const EDITOR_CONTROL_CHARACTER = "The editor command contains a control character";
export const EDITOR_UNTERMINATED_QUOTE = "The editor command has an unterminated quote";
export const EDITOR_TRAILING_BACKSLASH = "The editor command ends with a lone backslash";
export const EDITOR_NO_PROGRAM = "The editor command must start with a program name";
export const EDITOR_RELATIVE_PROGRAM = "The editor program must be a name on PATH or an absolute path";
export const EDITOR_ASSIGNMENT = "Variable assignments are not supported in the editor command";

export type EditorCommandParse = { readonly ok: true; readonly argv: readonly string[] } | { readonly ok: false; readonly error: string };

const OPERATORS = new Set(["|", "&", ";", "<", ">", "(", ")"]);
const GLOBS = new Set(["*", "?", "["]);
const BRACES = new Set(["{", "}"]);
/** Characters a backslash escapes inside double quotes (POSIX). */
const DOUBLE_QUOTE_ESCAPES = new Set(['"', "\\", "$", "`"]);

function refused(error: string): EditorCommandParse {
  return { ok: false, error };
}

function operatorError(c: string): string {
  return `Shell operators are not supported in the editor command: "${c}" (quote it if it belongs to an argument)`;
}
function expansionError(c: string): string {
  return c === "`"
    ? 'Command substitution is not supported in the editor command: "`"'
    : 'Expansions are not supported in the editor command: "$" (quote it with single quotes if it is literal)';
}
function globError(c: string): string {
  return `Glob patterns and brace expansion are not supported in the editor command: "${c}" (quote it if it is literal)`;
}
const TILDE_ERROR = "Tilde expansion is not supported in the editor command: write the full path";
const COMMENT_ERROR = 'Comments are not supported in the editor command: "#" (quote it if it is literal)';

/**
 * The argv of an editor command (trimmed first), or why it is refused. An empty command is the empty argv
 * (no stored editor: the environment's is used).
 */
export function parseEditorCommand(command: string): EditorCommandParse {
  if (command.length > EDITOR_COMMAND_MAX_LENGTH) return refused(EDITOR_TOO_LONG);
  const text = command.trim();
  if (hasControlCharacter(text)) return refused(EDITOR_CONTROL_CHARACTER);
  const argv: string[] = [];
  let word: string | null = null;
  let firstRaw = "";
  let raw = "";
  let i = 0;
  const finish = (): void => {
    if (word !== null) {
      if (argv.length === 0) firstRaw = raw;
      argv.push(word);
    }
    word = null;
    raw = "";
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (c === " ") {
      finish();
      i += 1;
      continue;
    }
    const wordStart = word === null;
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return refused(EDITOR_UNTERMINATED_QUOTE);
      word = (word ?? "") + text.slice(i + 1, end);
      raw += text.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    if (c === '"') {
      let value = "";
      let j = i + 1;
      for (;;) {
        if (j >= text.length) return refused(EDITOR_UNTERMINATED_QUOTE);
        const d = text[j] as string;
        if (d === '"') break;
        if (d === "$" || d === "`") return refused(expansionError(d));
        if (d === "\\" && j + 1 < text.length && DOUBLE_QUOTE_ESCAPES.has(text[j + 1] as string)) {
          value += text[j + 1];
          j += 2;
          continue;
        }
        value += d;
        j += 1;
      }
      word = (word ?? "") + value;
      raw += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === "\\") {
      if (i + 1 >= text.length) return refused(EDITOR_TRAILING_BACKSLASH);
      word = (word ?? "") + text[i + 1];
      raw += text.slice(i, i + 2);
      i += 2;
      continue;
    }
    if (OPERATORS.has(c)) return refused(operatorError(c));
    if (c === "$" || c === "`") return refused(expansionError(c));
    if (GLOBS.has(c) || BRACES.has(c)) return refused(globError(c));
    if (wordStart && c === "~") return refused(TILDE_ERROR);
    if (wordStart && c === "#") return refused(COMMENT_ERROR);
    word = (word ?? "") + c;
    raw += c;
    i += 1;
  }
  finish();
  if (argv.length === 0) return { ok: true, argv };
  const program = argv[0] as string;
  if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(firstRaw)) return refused(EDITOR_ASSIGNMENT);
  if (program === "") return refused(EDITOR_NO_PROGRAM);
  if (!program.startsWith("/") && program.includes("/")) return refused(EDITOR_RELATIVE_PROGRAM);
  return { ok: true, argv };
}

/** One word as the parser reads it back: bare when safe, else single-quoted (`'` written `'\''`). */
export function quoteEditorWord(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return singleQuoted(word);
}

function singleQuoted(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The command text of an argv (parseEditorCommand(formatEditorCommand(argv)) gives argv back). */
export function formatEditorCommand(argv: readonly string[]): string {
  return argv
    .map((word, index) => (index === 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word) ? singleQuoted(word) : quoteEditorWord(word)))
    .join(" ");
}

/** The program's name: the last path segment, lower-cased, without `.exe`. */
export function programName(program: string): string {
  const base = program.slice(program.lastIndexOf("/") + 1).toLowerCase();
  return base.endsWith(".exe") ? base.slice(0, -4) : base;
}

/** Editors that always run in a terminal. */
const TERMINAL_EDITORS = new Set([
  "vi",
  "vim",
  "vim.basic",
  "vim.tiny",
  "nvim",
  "nano",
  "micro",
  "hx",
  "helix",
  "kak",
  "ne",
  "joe",
  "mg",
  "jed",
  "mcedit",
  "pico",
  "ed",
]);
const EMACS_TERMINAL_FLAGS = new Set(["-nw", "--no-window-system", "-t"]);
const EMACSCLIENT_TERMINAL_FLAGS = new Set(["-t", "-nw", "--tty"]);

/** Whether the command is a known terminal editor (the "auto" mode's detection). */
export function isKnownTerminalEditor(argv: readonly string[]): boolean {
  const program = argv[0];
  if (program === undefined) return false;
  const name = programName(program);
  if (TERMINAL_EDITORS.has(name)) return true;
  const args = argv.slice(1);
  if (name === "emacs") return args.some((arg) => EMACS_TERMINAL_FLAGS.has(arg));
  if (name === "emacsclient") return args.some((arg) => EMACSCLIENT_TERMINAL_FLAGS.has(arg));
  return false;
}

/** Whether the editor runs in a terminal: the mode decides, "auto" detects known terminal editors. */
export function runsInTerminal(argv: readonly string[], mode: EditorMode): boolean {
  if (argv.length === 0) return false;
  if (mode === "terminal") return true;
  if (mode === "desktop") return false;
  return isKnownTerminalEditor(argv);
}

/** Desktop editors that open `path:line[:column]` with `--goto`. */
const GOTO_EDITORS = new Set(["code", "code-insiders", "code-oss", "codium", "vscodium", "cursor", "windsurf"]);

/** The arguments after the program that open `file` (absolute) in a desktop editor, at `line` when it can. */
export function desktopEditorArgs(argv: readonly string[], file: string, line?: number, column?: number): string[] {
  const args = argv.slice(1);
  const name = programName(argv[0] ?? "");
  if (line !== undefined && GOTO_EDITORS.has(name))
    return [...args, "--goto", `${file}:${line}${column !== undefined ? `:${column}` : ""}`];
  return [...args, file];
}

/** Terminal editors that take `+line` before the file. */
const PLUS_LINE_EDITORS = new Set([
  "vi",
  "vim",
  "vim.basic",
  "vim.tiny",
  "nvim",
  "nano",
  "emacs",
  "emacsclient",
  "micro",
  "kak",
  "ne",
  "joe",
  "mg",
  "pico",
  "mcedit",
]);
/** Terminal editors that take `file:line`. */
const COLON_LINE_EDITORS = new Set(["hx", "helix"]);

/** The arguments after the program that open `file` (absolute) in a terminal editor, at `line` when it can. */
export function terminalEditorArgs(argv: readonly string[], file: string, line?: number): string[] {
  const args = argv.slice(1);
  const name = programName(argv[0] ?? "");
  if (line === undefined) return [...args, file];
  if (PLUS_LINE_EDITORS.has(name)) return [...args, `+${line}`, file];
  if (COLON_LINE_EDITORS.has(name)) return [...args, `${file}:${line}`];
  return [...args, file];
}
