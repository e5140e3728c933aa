/**
 * Rules of the read-only bash check for everyday programs: tools that never write files (any arguments),
 * programs that exist to change files (always refused, with what they do), tools that are read-only
 * unless given an output option or operand (sort -o, uniq IN OUT, tee FILE, xxd IN OUT, dd of=, tree -o,
 * iconv -o, file -C, date -s, less -o, rg --pre), and shell builtins that set variables (checked like
 * assignments: PATH=... or LD_PRELOAD=... could change what later commands run).
 */
import {
  type Arg,
  type Check,
  findOption,
  isStdoutTarget,
  OK,
  type ProgramRule,
  refuse,
  refuseComputedOptions,
  scanOptions,
  shown,
} from "./readonly-rules.ts";
import { conditionalIssue, isLiteralArithmetic } from "./readonly-arithmetic.ts";

/** Programs and shell builtins that read, print or compute and have no option that writes a file. */
export const PLAIN_PROGRAMS: readonly string[] = [
  // files and text
  "cat",
  "head",
  "tail",
  "grep",
  "egrep",
  "fgrep",
  "zgrep",
  "zegrep",
  "zfgrep",
  "zcat",
  "bzcat",
  "xzcat",
  "zstdcat",
  "lzcat",
  "wc",
  "cut",
  "tr",
  "nl",
  "fold",
  "fmt",
  "pr",
  "expand",
  "unexpand",
  "rev",
  "tac",
  "comm",
  "paste",
  "join",
  "column",
  "strings",
  "od",
  "hexdump",
  "base64",
  "base32",
  "basenc",
  "look",
  "cmp",
  "diff",
  "diff3",
  "jq",
  "zipinfo",
  "more",
  "ls",
  "dir",
  "vdir",
  "stat",
  "du",
  "df",
  "realpath",
  "readlink",
  "basename",
  "dirname",
  "pathchk",
  "md5sum",
  "sha1sum",
  "sha224sum",
  "sha256sum",
  "sha384sum",
  "sha512sum",
  "b2sum",
  "cksum",
  "sum",
  "shasum",
  // printing and computing
  "echo",
  "seq",
  "yes",
  "expr",
  "factor",
  "numfmt",
  "tsort",
  "true",
  "false",
  ":",
  // system information
  "pwd",
  "which",
  "whereis",
  "type",
  "id",
  "whoami",
  "groups",
  "uname",
  "nproc",
  "free",
  "uptime",
  "ps",
  "printenv",
  "locale",
  "getconf",
  "getent",
  "lsblk",
  "lscpu",
  "arch",
  "tty",
  "logname",
  "users",
  "who",
  "dig",
  "host",
  "nslookup",
  // shell state that touches no file
  "cd",
  "pushd",
  "popd",
  "dirs",
  "set",
  "shopt",
  "unset",
  "wait",
  "sleep",
  "exit",
  "return",
  "break",
  "continue",
  "shift",
  "getopts",
  "times",
];

/** Programs that exist to change files, with what they do. */
export const MUTATING_PROGRAMS: Readonly<Record<string, string>> = {
  rm: "deletes files",
  rmdir: "deletes directories",
  unlink: "deletes a file",
  shred: "overwrites and deletes files",
  mv: "moves or renames files",
  rename: "renames files",
  cp: "copies files (it creates or overwrites the destination)",
  install: "copies files into place",
  rsync: "copies and synchronises files",
  scp: "copies files",
  sftp: "copies files",
  mkdir: "creates directories",
  mktemp: "creates temporary files",
  tempfile: "creates temporary files",
  touch: "creates files or changes their timestamps",
  ln: "creates links",
  link: "creates links",
  mkfifo: "creates named pipes",
  mknod: "creates special files",
  chmod: "changes file permissions",
  chown: "changes file ownership",
  chgrp: "changes file group ownership",
  chattr: "changes file attributes",
  setfacl: "changes file access lists",
  setfattr: "changes file attributes",
  truncate: "changes file sizes",
  fallocate: "allocates file space",
  patch: "modifies files",
  split: "writes output files",
  csplit: "writes output files",
  sponge: "writes a file",
  zip: "creates or updates archives",
  "7z": "creates or extracts archives",
  "7za": "creates or extracts archives",
  rar: "creates archives",
  unrar: "extracts archives",
  ar: "creates or extracts archives",
  cpio: "creates or extracts archives",
  ed: "edits files",
  ex: "edits files",
  vi: "edits files",
  vim: "edits files",
  nvim: "edits files",
  view: "can edit files",
  nano: "edits files",
  pico: "edits files",
  emacs: "edits files",
  micro: "edits files",
  sdiff: "writes merged files",
  mount: "changes mounted filesystems",
  umount: "changes mounted filesystems",
  mkfs: "formats filesystems",
  fdisk: "changes partition tables",
  parted: "changes partition tables",
  wipefs: "erases filesystem signatures",
};

const mutating: ProgramRule = (program) => refuse(`${program} ${MUTATING_PROGRAMS[program] ?? "changes files"}`);

/** A refusal when an option's value is a file to write (not a device or "-"). */
function writesTo(program: string, option: { name: string; value: Arg | null } | undefined): Check | null {
  if (!option) return null;
  if (option.value && isStdoutTarget(option.value.value)) return null;
  const target = option.value ? ` ${shown(option.value.raw)}` : "";
  return refuse(`${program} ${option.name}${target} writes its output to a file`);
}

const sort: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, {
    shortValue: "kotST",
    longValue: [
      "--key",
      "--output",
      "--field-separator",
      "--buffer-size",
      "--temporary-directory",
      "--files0-from",
      "--compress-program",
      "--parallel",
      "--random-source",
      "--sort",
      "--batch-size",
    ],
  });
  const compress = findOption(scanned, "--compress-program");
  if (compress) return refuse(`${program} --compress-program runs another program`);
  return writesTo(program, findOption(scanned, "-o", "--output")) ?? refuseComputedOptions(program, scanned) ?? OK;
};

const uniq: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, {
    shortValue: "fsw",
    longValue: ["--skip-fields", "--skip-chars", "--check-chars"],
  });
  const output = scanned.operands[1];
  if (output && !isStdoutTarget(output.value)) return refuse(`${program} writes its output to the file ${shown(output.raw)}`);
  return refuseComputedOptions(program, scanned) ?? OK;
};

const tee: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, { longValue: [] });
  const file = scanned.operands.find((operand) => !isStdoutTarget(operand.value) || operand.value === "-");
  if (file) return refuse(`${program} writes to the file ${shown(file.raw)}`);
  return refuseComputedOptions(program, scanned) ?? OK;
};

const xxd: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, { shortValue: "cglonsR", longValue: [] });
  const output = scanned.operands[1];
  if (output && !isStdoutTarget(output.value)) return refuse(`${program} writes its output to the file ${shown(output.raw)}`);
  return refuseComputedOptions(program, scanned) ?? OK;
};

const dd: ProgramRule = (program, args) => {
  for (const arg of args) {
    if (arg.value === null) return refuse(`the computed operand ${shown(arg.raw)} of ${program} could name an output file`);
    if (arg.value.startsWith("of=") && !isStdoutTarget(arg.value.slice(3))) {
      return refuse(`${program} ${shown(arg.raw)} writes to a file`);
    }
  }
  return OK;
};

const tree: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, {
    shortValue: "LPIoHT",
    longValue: ["--charset", "--filelimit", "--timefmt", "--sort", "--fromfile", "--hintro", "--houtro"],
  });
  return writesTo(program, findOption(scanned, "-o")) ?? refuseComputedOptions(program, scanned) ?? OK;
};

const iconv: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, { shortValue: "fto", longValue: ["--from-code", "--to-code", "--output"] });
  return writesTo(program, findOption(scanned, "-o", "--output")) ?? refuseComputedOptions(program, scanned) ?? OK;
};

const file: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, {
    shortValue: "efFmP",
    longValue: ["--exclude", "--exclude-quiet", "--files-from", "--separator", "--magic-file", "--parameter"],
  });
  if (findOption(scanned, "-C", "--compile")) return refuse(`${program} -C compiles a magic file (it writes a file)`);
  return refuseComputedOptions(program, scanned) ?? OK;
};

const date: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, { shortValue: "dfrs", shortOptional: "I", longValue: ["--date", "--file", "--reference", "--set"] });
  if (findOption(scanned, "-s", "--set")) return refuse(`${program} --set changes the system clock`);
  return refuseComputedOptions(program, scanned) ?? OK;
};

const less: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, {
    shortValue: "bhjkoOpPtTxyzD#",
    longValue: ["--log-file", "--LOG-FILE", "--lesskey-file", "--tag", "--tag-file"],
  });
  const log = findOption(scanned, "-o", "-O", "--log-file", "--LOG-FILE");
  if (log) return refuse(`${program} ${log.name} writes a log file`);
  const command = scanned.operands.find((operand) => operand.prefix.startsWith("+"));
  if (command) return refuse(`${program} ${shown(command.raw)} runs an initial command`);
  return refuseComputedOptions(program, scanned) ?? OK;
};

const ripgrep: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, { longValue: ["--pre"] });
  const pre = findOption(scanned, "--pre");
  if (pre) return refuse(`${program} --pre runs a preprocessor program`);
  return refuseComputedOptions(program, scanned) ?? OK;
};

const hostname: ProgramRule = (program, args) => {
  const display = new Set([
    "-s",
    "--short",
    "-f",
    "--fqdn",
    "--long",
    "-d",
    "--domain",
    "-i",
    "--ip-address",
    "-I",
    "--all-ip-addresses",
    "-a",
    "--alias",
    "-A",
    "--all-fqdns",
    "-y",
    "--yp",
    "--nis",
    "-V",
    "--version",
    "-h",
    "--help",
  ]);
  const other = args.find((arg) => arg.value === null || !display.has(arg.value));
  return other ? refuse(`${program} ${shown(other.raw)} could change the host name`) : OK;
};

/** `printf -v NAME`, `read NAME...`: the names are variables the command sets. */
const printf: ProgramRule = (program, args, ctx) => {
  const first = args[0];
  if (first?.value === "-v") {
    const name = args[1];
    if (!name || name.value === null) return refuse(`${program} -v sets a computed variable name`);
    return ctx.variable(name.value, null);
  }
  if (first && first.value === null && first.prefix.startsWith("-"))
    return refuse(`the computed argument ${shown(first.raw)} of ${program} could be -v`);
  return OK;
};

const read: ProgramRule = (program, args, ctx) => {
  const scanned = scanOptions(args, { shortValue: "adinNptu" });
  const names = [...scanned.operands, ...scanned.options.flatMap((o) => (o.name === "-a" && o.value ? [o.value] : []))];
  for (const name of names) {
    if (name.value === null) return refuse(`${program} sets the computed variable ${shown(name.raw)}`);
    const check = ctx.variable(name.value, null);
    if (!check.ok) return check;
  }
  return refuseComputedOptions(program, scanned) ?? OK;
};

/** `export`, `declare`, `local`, ...: every `NAME=value` (or `NAME`) operand is a variable set. */
const declare: ProgramRule = (program, args, ctx) => {
  for (const arg of args) {
    if (arg.value !== null && (arg.value.startsWith("-") || arg.value.startsWith("+"))) {
      if (/f/.test(arg.value)) return refuse(`${program} ${arg.value} changes shell functions`);
      // A name reference (`declare -n r=PATH`) would let a harmless-looking name set any variable.
      if (/n/.test(arg.value) && program !== "export") return refuse(`${program} ${arg.value} declares a name reference`);
      // An integer variable evaluates what is assigned to it as arithmetic (see readonly-arithmetic.ts).
      if (/i/.test(arg.value) && program !== "export")
        return refuse(`${program} ${arg.value} declares an integer variable, whose assignments are evaluated as code`);
      continue;
    }
    const eq = arg.prefix.indexOf("=");
    const name = eq === -1 ? arg.value : arg.prefix.slice(0, eq).replace(/\+$/, "");
    if (name === null) return refuse(`${program} sets the computed variable ${shown(arg.raw)}`);
    if (eq === -1) continue; // `export NAME` marks an existing variable
    const value: Arg | null = arg.value === null ? null : { value: arg.value.slice(eq + 1), prefix: arg.value.slice(eq + 1), raw: arg.raw };
    const check = ctx.variable(name, value);
    if (!check.ok) return check;
  }
  return OK;
};

/** `test` and `[`: `-v NAME` must not evaluate a computed name or subscript (numeric operands are plain numbers). */
const test: ProgramRule = (_program, args) => {
  const issue = conditionalIssue(args, false);
  return issue ? refuse(issue) : OK;
};

/** `let`: its expressions may only hold literal numbers (see readonly-arithmetic.ts). */
const letRule: ProgramRule = (program, args) => {
  const other = args.find(
    (arg) => arg.value === null || !isLiteralArithmetic(arg.value.replace(/^[A-Za-z_][A-Za-z0-9_]*\s*[-+*/%&|^]?=/, "")),
  );
  return other ? refuse(`${program} ${shown(other.raw)} evaluates variables as arithmetic, which cannot be checked`) : OK;
};

const hash: ProgramRule = (program, args) =>
  args.some((arg) => arg.value === null || /^-[a-z]*p/.test(arg.value))
    ? refuse(`${program} -p changes where a command name is looked up`)
    : OK;

export const PROGRAM_RULES: Readonly<Record<string, ProgramRule>> = {
  ...Object.fromEntries(Object.keys(MUTATING_PROGRAMS).map((name) => [name, mutating])),
  sort,
  uniq,
  tee,
  xxd,
  dd,
  tree,
  iconv,
  file,
  date,
  less,
  rg: ripgrep,
  hostname,
  printf,
  read,
  export: declare,
  declare,
  typeset: declare,
  local: declare,
  readonly: declare,
  hash,
  test,
  "[": test,
  let: letRule,
};
