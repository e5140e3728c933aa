/**
 * The read-only bash rule for `find`: tests and printing actions pass; `-delete` and the actions that write
 * files (`-fprint`, `-fprint0`, `-fprintf`, `-fls`) are refused; `-exec`, `-execdir`, `-ok` and `-okdir` run
 * their command, which is checked like any command (`{}` stands for a found path, which is never an
 * option: find paths start with a starting point, and a starting point cannot start with "-"). An unknown
 * primary is refused, as is a computed word where an action could stand.
 */
import { type Arg, type Check, OK, own, type ProgramRule, refuse, shown } from "./readonly-rules.ts";

const OPERATORS = new Set(["(", ")", "!", ",", "-not", "-a", "-and", "-o", "-or"]);

const NO_VALUE = new Set([
  "-print",
  "-print0",
  "-ls",
  "-prune",
  "-quit",
  "-true",
  "-false",
  "-depth",
  "-d",
  "-follow",
  "-xdev",
  "-mount",
  "-noleaf",
  "-ignore_readdir_race",
  "-noignore_readdir_race",
  "-daystart",
  "-warn",
  "-nowarn",
  "-empty",
  "-executable",
  "-readable",
  "-writable",
  "-nouser",
  "-nogroup",
  "-help",
  "--help",
  "-version",
  "--version",
]);

const ONE_VALUE = new Set([
  "-name",
  "-iname",
  "-path",
  "-ipath",
  "-wholename",
  "-iwholename",
  "-regex",
  "-iregex",
  "-type",
  "-xtype",
  "-size",
  "-mtime",
  "-mmin",
  "-atime",
  "-amin",
  "-ctime",
  "-cmin",
  "-newer",
  "-anewer",
  "-cnewer",
  "-user",
  "-group",
  "-uid",
  "-gid",
  "-perm",
  "-links",
  "-inum",
  "-samefile",
  "-maxdepth",
  "-mindepth",
  "-fstype",
  "-lname",
  "-ilname",
  "-used",
  "-printf",
  "-regextype",
  "-context",
  "-files0-from",
]);

const WRITING_ACTIONS: Readonly<Record<string, string>> = {
  "-delete": "deletes files",
  "-fprint": "writes its output to a file",
  "-fprint0": "writes its output to a file",
  "-fprintf": "writes its output to a file",
  "-fls": "writes its output to a file",
};

const EXEC_ACTIONS = new Set(["-exec", "-execdir", "-ok", "-okdir"]);

/** `{}` inside an -exec command: a found path (a standalone `{}` is never an option). */
function foundPath(arg: Arg): Arg {
  if (arg.value === null) return arg;
  const at = arg.value.indexOf("{}");
  if (at === -1) return arg;
  if (arg.value === "{}") return { value: null, prefix: "./", raw: arg.raw };
  return { value: null, prefix: arg.value.slice(0, at), raw: arg.raw };
}

export const find: ProgramRule = (program, args, ctx) => {
  let i = 0;
  // Options before the starting points: -H -L -P, -D debugopts, -Olevel.
  for (;;) {
    const text = args[i]?.value;
    if (text === "-H" || text === "-L" || text === "-P" || (text !== undefined && text !== null && /^-O\d*$/.test(text))) i += 1;
    else if (text === "-D") i += 2;
    else break;
  }
  // Starting points: everything before the first word that starts an expression.
  for (; i < args.length; i++) {
    const arg = args[i];
    if (!arg) break;
    if (arg.value === null) {
      if (arg.prefix === "" || arg.prefix.startsWith("-")) {
        return refuse(`the computed argument ${shown(arg.raw)} of ${program} could be an action that changes files`);
      }
      continue;
    }
    if (arg.value.startsWith("-") || OPERATORS.has(arg.value)) break;
  }
  while (i < args.length) {
    const arg = args[i];
    if (!arg) break;
    const text = arg.value;
    if (text === null) {
      return refuse(`the computed argument ${shown(arg.raw)} of ${program} could be an action that changes files`);
    }
    if (OPERATORS.has(text) || NO_VALUE.has(text)) {
      i += 1;
      continue;
    }
    if (ONE_VALUE.has(text) || /^-newer[aBcmt][aBcmt]$/.test(text)) {
      i += 2;
      continue;
    }
    const writes = own(WRITING_ACTIONS, text);
    if (writes !== undefined) return refuse(`${program} ${text} ${writes}`);
    if (EXEC_ACTIONS.has(text)) {
      const end = args.findIndex((a, j) => j > i && (a.value === ";" || (a.value === "+" && args[j - 1]?.value === "{}")));
      if (end === -1) return refuse(`${program} ${text} has no terminating ";" or "+"`);
      const inner = args.slice(i + 1, end).map(foundPath);
      if (inner.length === 0) return refuse(`${program} ${text} has no command`);
      const check: Check = ctx.invocation(inner);
      if (!check.ok) return check;
      i = end + 1;
      continue;
    }
    return refuse(`${program} ${text} is not known to be read-only`);
  }
  return OK;
};
