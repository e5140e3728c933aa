/**
 * Rules of the read-only bash check for programs that run other programs.
 *
 * - Wrappers (`env`, `nice`, `nohup`, `timeout`, `time`, `command`, `builtin`, `sudo`, `stdbuf`, `xargs`) and
 *   `find -exec/-execdir/-ok/-okdir`: the inner command is checked like any command. xargs appends
 *   arguments read from standard input (a computed argument: programs with file-writing options refuse
 *   it); `{}` of find is a path below a starting point (never an option).
 * - Shells (`bash -c`, `sh -c`, ...): the command string is parsed and checked; a script file or commands
 *   from standard input cannot be checked and are refused.
 * - Interpreters (python, node, perl, ruby, ...) run code that cannot be proven read-only: only version
 *   and help queries pass. `eval`, `source`, `.`, `exec`, `trap` and `alias` are refused.
 */
import {
  type Arg,
  type Check,
  findOption,
  OK,
  type OptionSyntax,
  type ProgramRule,
  refuse,
  refuseComputedOptions,
  refuseUnknownOptions,
  type RuleContext,
  scanOptions,
  shown,
  staticArg,
} from "./readonly-rules.ts";

const ASSIGNMENT_WORD = /^([A-Za-z_][A-Za-z0-9_]*)=/;

/** Checks leading `NAME=value` words (env, sudo) and returns the index of the command after them. */
function checkAssignmentWords(args: readonly Arg[], from: number, ctx: RuleContext): { check: Check; index: number } {
  let index = from;
  for (; index < args.length; index++) {
    const arg = args[index];
    const match = arg ? ASSIGNMENT_WORD.exec(arg.prefix) : null;
    if (!arg || !match) break;
    const name = match[1] ?? "";
    const value = arg.value === null ? null : { value: arg.value.slice(name.length + 1), prefix: "", raw: arg.raw };
    const check = ctx.variable(name, value);
    if (!check.ok) return { check, index };
  }
  return { check: OK, index };
}

/** A wrapper whose options end at the command it runs; `allowed` lists its options. */
function wrapper(syntax: OptionSyntax, allowed: readonly string[], skipOperands = 0): ProgramRule {
  return (program, args, ctx) => {
    const scanned = scanOptions(args, { ...syntax, stopAtOperand: true });
    const problem = refuseComputedOptions(program, scanned) ?? refuseUnknownOptions(program, scanned, allowed);
    if (problem) return problem;
    const inner = args.slice(scanned.operandIndex + skipOperands);
    return inner.length === 0 ? OK : ctx.invocation(inner);
  };
}

const env: ProgramRule = (program, args, ctx) => {
  const scanned = scanOptions(args, {
    shortValue: "uCS",
    longValue: ["--unset", "--chdir", "--split-string"],
    stopAtOperand: true,
  });
  if (findOption(scanned, "-S", "--split-string")) {
    return refuse(`${program} -S splits a string into a command, which cannot be checked; write the command directly`);
  }
  const problem =
    refuseComputedOptions(program, scanned) ??
    refuseUnknownOptions(program, scanned, [
      "-i",
      "--ignore-environment",
      "-0",
      "--null",
      "-u",
      "--unset",
      "-C",
      "--chdir",
      "-v",
      "--debug",
      "--help",
      "--version",
    ]);
  if (problem) return problem;
  const { check, index } = checkAssignmentWords(args, scanned.operandIndex, ctx);
  if (!check.ok) return check;
  const inner = args.slice(index);
  return inner.length === 0 ? OK : ctx.invocation(inner);
};

const nice: ProgramRule = (program, args, ctx) => {
  // `nice -10 cmd` is an adjustment written as a number.
  const normalized = args.map((arg) =>
    arg.value !== null && /^-\d+$/.test(arg.value) ? staticArg(`--adjustment=${arg.value.slice(1)}`) : arg,
  );
  return wrapper({ shortValue: "n", longValue: ["--adjustment"] }, ["-n", "--adjustment", "--help", "--version"])(program, normalized, ctx);
};

const timeout = wrapper(
  { shortValue: "sk", longValue: ["--signal", "--kill-after"] },
  ["-s", "--signal", "-k", "--kill-after", "--preserve-status", "--foreground", "-v", "--verbose", "--help", "--version"],
  1,
);

const time: ProgramRule = (program, args, ctx) => {
  const scanned = scanOptions(args, { shortValue: "of", longValue: ["--output", "--format"], stopAtOperand: true });
  const output = findOption(scanned, "-o", "--output");
  if (output) return refuse(`${program} ${output.name} writes its report to a file`);
  return wrapper({ shortValue: "of", longValue: ["--output", "--format"] }, [
    "-p",
    "-f",
    "--format",
    "-a",
    "--append",
    "-v",
    "--verbose",
    "-q",
    "--quiet",
    "--portability",
    "--help",
    "--version",
  ])(program, args, ctx);
};

const command: ProgramRule = (program, args, ctx) => {
  const scanned = scanOptions(args, { stopAtOperand: true });
  if (findOption(scanned, "-v", "-V")) return OK; // a lookup: runs nothing
  return wrapper({}, ["-p"])(program, args, ctx);
};

const sudo: ProgramRule = (program, args, ctx) => {
  const syntax: OptionSyntax = {
    shortValue: "ugpCDrtTUR",
    longValue: [
      "--user",
      "--group",
      "--prompt",
      "--close-from",
      "--chdir",
      "--role",
      "--type",
      "--command-timeout",
      "--other-user",
      "--chroot",
      "--host",
    ],
    stopAtOperand: true,
  };
  const scanned = scanOptions(args, syntax);
  const edit = findOption(scanned, "-e", "--edit");
  if (edit) return refuse(`${program} ${edit.name} edits files`);
  const problem =
    refuseComputedOptions(program, scanned) ??
    refuseUnknownOptions(program, scanned, [
      "-u",
      "--user",
      "-g",
      "--group",
      "-p",
      "--prompt",
      "-C",
      "--close-from",
      "-D",
      "--chdir",
      "-r",
      "--role",
      "-t",
      "--type",
      "-T",
      "--command-timeout",
      "-U",
      "--other-user",
      "-A",
      "--askpass",
      "-b",
      "--background",
      "-E",
      "--preserve-env",
      "-H",
      "--set-home",
      "-n",
      "--non-interactive",
      "-P",
      "--preserve-groups",
      "-S",
      "--stdin",
      "-i",
      "--login",
      "-s",
      "--shell",
      "-l",
      "--list",
      "-k",
      "--reset-timestamp",
      "-V",
      "--version",
      "-h",
      "--help",
    ]);
  if (problem) return problem;
  const { check, index } = checkAssignmentWords(args, scanned.operandIndex, ctx);
  if (!check.ok) return check;
  const inner = args.slice(index);
  if (inner.length > 0) return ctx.invocation(inner);
  const shell = findOption(scanned, "-i", "--login", "-s", "--shell");
  return shell ? refuse(`${program} ${shell.name} opens an interactive shell, which cannot be checked`) : OK;
};

const stdbuf = wrapper({ shortValue: "ioe", longValue: ["--input", "--output", "--error"] }, [
  "-i",
  "--input",
  "-o",
  "--output",
  "-e",
  "--error",
  "--help",
  "--version",
]);

const XARGS_OPTIONS = [
  "-0",
  "--null",
  "-a",
  "--arg-file",
  "-d",
  "--delimiter",
  "-E",
  "-e",
  "--eof",
  "-I",
  "-i",
  "--replace",
  "-L",
  "-l",
  "--max-lines",
  "-n",
  "--max-args",
  "-P",
  "--max-procs",
  "-s",
  "--max-chars",
  "-p",
  "--interactive",
  "-r",
  "--no-run-if-empty",
  "-t",
  "--verbose",
  "-x",
  "--exit",
  "-o",
  "--open-tty",
  "--process-slot-var",
  "--show-limits",
  "--help",
  "--version",
];

const xargs: ProgramRule = (program, args, ctx) => {
  const scanned = scanOptions(args, {
    shortValue: "adEILnPs",
    shortOptional: "eil",
    longValue: ["--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars", "--process-slot-var"],
    stopAtOperand: true,
  });
  const problem = refuseComputedOptions(program, scanned) ?? refuseUnknownOptions(program, scanned, XARGS_OPTIONS);
  if (problem) return problem;
  const replace = findOption(scanned, "-I", "-i", "--replace");
  let replacement: string | null = null;
  if (replace) {
    replacement = replace.value?.value || "{}";
    if (replace.value && replace.value.value === null) return refuse(`${program} ${replace.name} has a computed replacement string`);
  }
  const inner = scanned.operands.length > 0 ? scanned.operands.slice() : [staticArg("echo")];
  const fromInput = "(arguments read from standard input)";
  if (replacement === null) return ctx.invocation([...inner, { value: null, prefix: "", raw: fromInput }]);
  const token = replacement;
  return ctx.invocation(
    inner.map((arg) => {
      const at = arg.value?.indexOf(token) ?? -1;
      return arg.value === null || at === -1 ? arg : { value: null, prefix: arg.value.slice(0, at), raw: arg.raw };
    }),
  );
};

// ---------------------------------------------------------------------------------------------------------
// Shells and interpreters
// ---------------------------------------------------------------------------------------------------------

const SHELL_LONG_FLAGS = new Set(["--norc", "--noprofile", "--posix", "--login", "--noediting", "--verbose", "--restricted"]);

const shell: ProgramRule = (program, args, ctx) => {
  let commandString = false;
  let query = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (!arg) break;
    const text = arg.value;
    if (text === null) {
      if (arg.prefix === "" || /^[-+]/.test(arg.prefix))
        return refuse(`the computed argument ${shown(arg.raw)} of ${program} cannot be checked`);
      break;
    }
    if (text === "--" || text === "-") {
      i += 1;
      break;
    }
    if (text === "--version" || text === "--help") {
      query = true;
      continue;
    }
    if (text.startsWith("--")) {
      if (SHELL_LONG_FLAGS.has(text)) continue;
      return refuse(`${program} option ${text} is not known to be read-only`);
    }
    if (!/^[-+]./.test(text)) break;
    for (const letter of text.slice(1)) {
      if (letter === "c") commandString = true;
      else if (letter === "o" || letter === "O") i += 1;
      else if (letter === "s" || letter === "i") {
        return refuse(`${program} -${letter} reads commands from standard input, which cannot be checked`);
      }
    }
  }
  const operand = args[i];
  if (!operand) {
    if (query && !commandString) return OK;
    return refuse(`${program} reads commands from standard input, which cannot be checked`);
  }
  if (!commandString) return refuse(`${program} runs the script ${shown(operand.raw)}, which cannot be verified read-only`);
  if (operand.value === null) return refuse(`${program} -c runs a computed command, which cannot be checked`);
  return ctx.script(operand.value);
};

/** Flags with which an interpreter only prints its version or help. */
const INTERPRETER_QUERIES: Readonly<Record<string, readonly string[]>> = {
  python: ["--version", "-V", "-VV", "--help", "-h"],
  pypy: ["--version", "-V", "--help", "-h"],
  node: ["--version", "-v", "--help", "-h"],
  nodejs: ["--version", "-v", "--help", "-h"],
  deno: ["--version", "-V", "--help", "-h"],
  bun: ["--version", "-v", "--help", "-h"],
  ruby: ["--version", "--help", "-h"],
  perl: ["--version", "-v", "-V", "--help", "-h"],
  php: ["--version", "-v", "--help", "-h"],
  lua: ["-v"],
  luajit: ["-v"],
  java: ["-version", "--version", "-help", "--help"],
  Rscript: ["--version", "--help"],
  R: ["--version", "--help"],
  julia: ["--version", "-v", "--help", "-h"],
  tclsh: [],
  irb: ["--version", "-v"],
  ipython: ["--version", "--help"],
  pwsh: ["-Version", "-v", "--version", "-Help", "-h"],
  osascript: [],
};

/** The query flags of an interpreter (python3.12 counts as python), or null when `program` is none. */
export function interpreterQueries(program: string): readonly string[] | null {
  const base = /^(python|pypy)[0-9.]*$/.exec(program)?.[1] ?? program;
  return Object.hasOwn(INTERPRETER_QUERIES, base) ? (INTERPRETER_QUERIES[base] ?? []) : null;
}

export const interpreter: ProgramRule = (program, args) => {
  const queries = interpreterQueries(program) ?? [];
  const first = args[0];
  if (!first) return refuse(`${program} reads a program from standard input, which cannot be verified read-only`);
  const other = args.find((arg) => arg.value === null || !queries.includes(arg.value));
  if (!other) return OK;
  if (other.prefix.startsWith("-")) return refuse(`${program} ${shown(other.raw)} runs code that cannot be verified read-only`);
  return refuse(`${program} runs the script ${shown(other.raw)}, which cannot be verified read-only`);
};

const REFUSED_BUILTINS: Readonly<Record<string, string>> = {
  eval: "eval runs a computed command, which cannot be checked",
  source: "source runs a script file, which cannot be checked",
  ".": ". (source) runs a script file, which cannot be checked",
  exec: "exec replaces the shell and cannot be verified read-only",
  trap: "trap runs a command later, which cannot be checked",
  alias: "alias changes what later commands run",
  unalias: "unalias changes what later commands run",
  enable: "enable changes the shell's builtins",
};

export const WRAPPER_RULES: Readonly<Record<string, ProgramRule>> = {
  env,
  nice,
  nohup: wrapper({}, ["--help", "--version"]),
  timeout,
  time,
  command,
  builtin: wrapper({}, []),
  sudo,
  stdbuf,
  xargs,
  bash: shell,
  sh: shell,
  dash: shell,
  zsh: shell,
  ksh: shell,
  mksh: shell,
  ash: shell,
  ...Object.fromEntries(Object.entries(REFUSED_BUILTINS).map(([name, reason]): [string, ProgramRule] => [name, () => refuse(reason)])),
  ...Object.fromEntries(Object.keys(INTERPRETER_QUERIES).map((name): [string, ProgramRule] => [name, interpreter])),
};
