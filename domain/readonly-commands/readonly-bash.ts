/**
 * Whether a bash command line is read-only: research workers may run a command only when it does not
 * create, modify, move, rename or delete files (spec/deep-research.md, "Research workers").
 *
 * The line is parsed (shell-syntax.ts), not matched as a string: quotes, escapes, `;` `&&` `||` `|` `&`,
 * newlines, subshells, groups, loops and conditionals, here-documents and here-strings are understood, and
 * every command substitution (`$(...)`, backquotes, `<(...)`, `>(...)`, also inside double quotes,
 * `${...}`, arithmetic and unquoted here-documents) is checked as a command line of its own. A line passes
 * only when every command in it passes:
 *
 * 1. Redirections: output to a file (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `N>`, `>&file`) is refused; the
 *    devices /dev/null, /dev/stdout, /dev/stderr, /dev/fd/1, /dev/fd/2, /dev/tty and fd duplication
 *    (`2>&1`, `>&2`) are not files. Input redirections, here-documents and here-strings are data.
 * 2. Variables (`NAME=value cmd`, `export`, `read`, `env NAME=value`, loop variables): a name with a
 *    lower-case letter is a script variable and passes; an upper-case name passes only when listed as
 *    harmless (locale, colours, terminal size, IFS, ...; PAGER/GIT_PAGER only as `cat` or `less`).
 *    PATH, LD_PRELOAD, BASH_ENV, GIT_*, *_OPTIONS and the like can change which program runs or what it
 *    does, so setting them is refused.
 * 3. Arithmetic: bash evaluates the text of variables used in arithmetic as code (after
 *    `x='a[$(rm -rf ~)]'`, `echo $((x))` runs rm), so arithmetic contexts may only hold literal numbers:
 *    `$((2 * 8))` passes, `$((n + 1))`, `[[ $n -gt 3 ]]`, `${a[$i]}`, `${s:n}`, `${!x}` are refused
 *    (readonly-arithmetic.ts lists the contexts).
 * 4. The program: its name must be static; a path must be in a system directory (/bin, /usr/bin, ...).
 *    Then, by name: plain read-only tools pass with any arguments (readonly-programs.ts); programs that
 *    exist to change files are refused; the others have a rule (sort -o, sed -i, find -delete, curl -o,
 *    git subcommands, tar modes, package managers, wrappers such as env/sudo/xargs/timeout and
 *    `bash -c`, whose inner command is checked). Interpreters (python, node, perl, ...), eval, source and
 *    exec run code that cannot be proven read-only and pass only for version or help queries.
 * 5. Policy for everything else: an unknown program is refused ("unknown program X cannot be verified
 *    read-only"). A refusal names the offending command; an unparseable line (an unbalanced quote or
 *    parenthesis, `case`, a function definition) is refused with the parser's reason.
 *
 * Limits (on purpose, this is a guard against mistakes, not a sandbox): what an allowed program does with
 * its own configuration (a git alias or textconv driver already configured, a pager from the environment)
 * is not analysed, and glob patterns are taken as written (a file named "-i" in the directory is not
 * foreseen). The check is pure: no file is read and nothing is run.
 */
import { conditionalIssue, subscriptIssue, wordArithmeticIssue } from "./readonly-arithmetic.ts";
import { ARCHIVE_RULES } from "./readonly-archives.ts";
import { find } from "./readonly-find.ts";
import { GIT_RULES } from "./readonly-git.ts";
import { NETWORK_RULES } from "./readonly-network.ts";
import { PACKAGE_RULES } from "./readonly-packages.ts";
import { PLAIN_PROGRAMS, PROGRAM_RULES } from "./readonly-programs.ts";
import { type Arg, type Check, isDevice, OK, type ProgramRule, refuse, type RuleContext, shown } from "./readonly-rules.ts";
import { TEXT_TOOL_RULES } from "./readonly-text-tools.ts";
import { interpreter, interpreterQueries, WRAPPER_RULES } from "./readonly-wrappers.ts";
import {
  parseShell,
  type ShellCommand,
  type ShellList,
  type ShellRedirect,
  type ShellWord,
  type SimpleCommand,
} from "../shell/shell-syntax.ts";

export type BashVerdict = { readOnly: true } | { readOnly: false; reason: string; command: string };

/** Decides whether a bash command line is read-only (see the file header for the rules). */
export function classifyBashCommand(commandLine: string): BashVerdict {
  const check = checkSource(commandLine, 0);
  if (check.ok) return { readOnly: true };
  return { readOnly: false, reason: check.reason, command: check.command ?? commandLine.trim() };
}

/** How many shells deep (`bash -c "bash -c '...'"`) a command line may go. */
const MAX_SHELL_DEPTH = 6;

/** How many wrappers deep (`nice timeout 5 env xargs ...`) a command may go. */
const MAX_WRAPPER_DEPTH = 16;

const PLAIN = new Set(PLAIN_PROGRAMS);

const RULES: ReadonlyMap<string, ProgramRule> = new Map(
  Object.entries({
    ...PROGRAM_RULES,
    ...WRAPPER_RULES,
    ...TEXT_TOOL_RULES,
    ...NETWORK_RULES,
    ...ARCHIVE_RULES,
    ...GIT_RULES,
    ...PACKAGE_RULES,
    find,
  }),
);

const SYSTEM_DIRECTORIES = new Set(["/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/usr/local/sbin/"]);

/** Upper-case variables that change only formatting, locale or word splitting. */
const HARMLESS_VARIABLES = new Set([
  "LANG",
  "LANGUAGE",
  "TZ",
  "TERM",
  "COLUMNS",
  "LINES",
  "NO_COLOR",
  "FORCE_COLOR",
  "CLICOLOR",
  "CLICOLOR_FORCE",
  "GREP_COLOR",
  "GREP_COLORS",
  "LS_COLORS",
  "TIME_STYLE",
  "QUOTING_STYLE",
  "BLOCK_SIZE",
  "POSIXLY_CORRECT",
  "IFS",
  "OPTIND",
  "OPTARG",
  "REPLY",
  "GIT_TERMINAL_PROMPT",
  "GIT_OPTIONAL_LOCKS",
]);
const PAGER_VARIABLES = new Set(["PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER"]);
const HARMLESS_PAGERS = new Set(["cat", "less", ""]);

/** Setting a variable (`name` or `name[subscript]`): see rule 2 of the file header. */
export function checkVariable(variable: string, value: Arg | null): Check {
  const subscript = subscriptIssue(variable);
  if (subscript) return refuse(subscript);
  const name = variable.replace(/\[.*$/, "");
  if (/[a-z]/.test(name) || HARMLESS_VARIABLES.has(name) || /^LC_[A-Z]+$/.test(name)) return OK;
  if (PAGER_VARIABLES.has(name) && value?.value !== null && value?.value !== undefined && HARMLESS_PAGERS.has(value.value)) return OK;
  return refuse(`setting ${name} is not allowed: it can change which programs run or what they do`);
}

function checkSource(source: string, depth: number): Check {
  if (depth > MAX_SHELL_DEPTH) return { ok: false, reason: "the command nests shells too deeply to be checked", command: source.trim() };
  const parsed = parseShell(source);
  if (!parsed.ok) {
    return {
      ok: false,
      reason: `the command cannot be parsed (${parsed.error}), so it cannot be verified read-only`,
      command: source.trim(),
    };
  }
  return new Checker(depth).list(parsed.list);
}

class Checker implements RuleContext {
  private wrappers = 0;

  constructor(private readonly depth: number) {}

  list(list: ShellList): Check {
    for (const item of list.items) {
      for (const command of item.pipeline.commands) {
        const check = this.command(command);
        if (!check.ok) return check.command === undefined ? { ...check, command: command.text } : check;
      }
    }
    return OK;
  }

  private command(command: ShellCommand): Check {
    switch (command.kind) {
      case "subshell":
        return first(
          () => this.list(command.body),
          () => this.redirects(command.redirects),
        );
      case "arithmetic":
        return first(
          () => this.substitutions(command.words),
          () => this.redirects(command.redirects),
        );
      case "conditional": {
        const issue = conditionalIssue(command.words, true);
        if (issue) return refuse(issue);
        return first(
          () => this.substitutions(command.words),
          () => this.redirects(command.redirects),
        );
      }
      case "simple":
        return this.simple(command);
    }
  }

  private simple(command: SimpleCommand): Check {
    const substitutions = this.substitutions([...command.assignments, ...command.words]);
    if (!substitutions.ok) return substitutions;
    const redirects = this.redirects(command.redirects);
    if (!redirects.ok) return redirects;
    if (command.keywords.includes("for") || command.keywords.includes("select")) {
      const name = command.words[0];
      return name?.value ? this.variable(name.value, null) : OK;
    }
    for (const assignment of command.assignments) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?/.exec(assignment.raw)?.[0] ?? "";
      const eq = assignment.prefix.indexOf("=");
      const value =
        assignment.value === null
          ? null
          : { value: assignment.value.slice(eq + 1), prefix: assignment.value.slice(eq + 1), raw: assignment.raw };
      const check = this.variable(name, value);
      if (!check.ok) return check;
    }
    if (command.words.length === 0) return OK;
    return this.invocation(command.words.map(toArg));
  }

  /** The substitutions a word runs and the arithmetic it evaluates. */
  private substitutions(words: readonly ShellWord[]): Check {
    for (const word of words) {
      for (const substitution of word.substitutions) {
        const check = this.list(substitution);
        if (!check.ok) return check;
      }
      const arithmetic = wordArithmeticIssue(word);
      if (arithmetic) return refuse(arithmetic);
    }
    return OK;
  }

  private redirects(redirects: readonly ShellRedirect[]): Check {
    for (const redirect of redirects) {
      const inner = this.substitutions([redirect.target]);
      if (!inner.ok) return inner;
      for (const substitution of redirect.heredoc?.substitutions ?? []) {
        const check = this.list(substitution);
        if (!check.ok) return check;
      }
      const check = checkRedirect(redirect);
      if (!check.ok) return check;
    }
    return OK;
  }

  invocation(words: readonly Arg[]): Check {
    if (this.wrappers >= MAX_WRAPPER_DEPTH) return refuse("the command nests wrappers too deeply to be checked");
    this.wrappers += 1;
    try {
      return this.program(words);
    } finally {
      this.wrappers -= 1;
    }
  }

  private program(words: readonly Arg[]): Check {
    const program = words[0];
    if (!program) return OK;
    if (program.value === null) {
      return refuse(`the program name ${shown(program.raw)} is computed, so it cannot be verified read-only`);
    }
    let name = program.value;
    const slash = name.lastIndexOf("/");
    if (slash !== -1) {
      if (!SYSTEM_DIRECTORIES.has(name.slice(0, slash + 1))) {
        return refuse(`${name} is not a program from a system directory, so it cannot be verified read-only`);
      }
      name = name.slice(slash + 1);
    }
    if (name === "") return refuse("the program name is empty");
    if (PLAIN.has(name)) return OK;
    const rule = RULES.get(name) ?? (interpreterQueries(name) !== null ? interpreter : undefined);
    if (!rule) return refuse(`unknown program ${name} cannot be verified read-only`);
    return rule(name, words.slice(1), this);
  }

  script(source: string): Check {
    return checkSource(source, this.depth + 1);
  }

  variable(name: string, value: Arg | null): Check {
    return checkVariable(name, value);
  }
}

function first(...checks: (() => Check)[]): Check {
  for (const run of checks) {
    const check = run();
    if (!check.ok) return check;
  }
  return OK;
}

function toArg(word: ShellWord): Arg {
  return { value: word.value, prefix: word.prefix, raw: word.raw };
}

const OUTPUT_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>", "<>"]);

/** Rule 1 of the file header. */
function checkRedirect(redirect: ShellRedirect): Check {
  const target = redirect.target.value;
  if (redirect.op === ">&" && target !== null && /^(\d+|-)$/.test(target)) return OK;
  if (redirect.op === ">&" || OUTPUT_OPERATORS.has(redirect.op)) {
    return isDevice(target) ? OK : refuse(`redirection to a file (${redirect.text.trim()})`);
  }
  return OK;
}
