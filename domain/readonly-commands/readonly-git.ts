/**
 * The read-only bash rule for git.
 *
 * Global options: `-C`, `--git-dir`, `--work-tree`, `--no-pager` and the like pass; `-c key=value` passes only
 * for display settings (color.*, core.quotepath, ...): other keys (core.pager, alias.*, diff.external,
 * core.fsmonitor, ...) can run programs. `--exec-path=` and `--config-env` are refused.
 *
 * Subcommands: reading ones pass (status, log, show, diff, grep, blame, ls-files, rev-parse, describe,
 * cat-file, ...) unless they are given `--output` (log/diff/show write to a file with it) or a computed
 * argument that could be such an option; `grep -O` runs a pager command. Mixed ones pass in their reading
 * forms only: `branch` and `tag` list (no name to create, no -d/-m/...), `config` reads (`--get`, `--list`,
 * one name, `git config get/list`), `remote` (list, -v, show, get-url), `stash list/show`, `worktree list`,
 * `submodule status`, `notes list/show`, `reflog` (not expire/delete), `symbolic-ref NAME`, `hash-object`
 * without -w, `apply --check/--stat/--numstat/--summary`, `archive` to standard output,
 * `format-patch --stdout`. Everything else (add, commit, checkout, reset, fetch, pull, push, ...) and every
 * unknown subcommand (aliases included) is refused.
 */
import {
  type Arg,
  type Check,
  findOption,
  isStdoutTarget,
  OK,
  own,
  type ProgramRule,
  refuse,
  refuseComputedOptions,
  scanOptions,
  type ScannedArgs,
  shown,
} from "./readonly-rules.ts";

const READING = new Set([
  "status",
  "log",
  "show",
  "diff",
  "grep",
  "blame",
  "annotate",
  "ls-files",
  "ls-tree",
  "ls-remote",
  "rev-parse",
  "rev-list",
  "describe",
  "cat-file",
  "shortlog",
  "whatchanged",
  "name-rev",
  "merge-base",
  "for-each-ref",
  "show-ref",
  "show-branch",
  "count-objects",
  "verify-commit",
  "verify-tag",
  "check-ignore",
  "check-attr",
  "check-mailmap",
  "check-ref-format",
  "var",
  "version",
  "help",
  "diff-tree",
  "diff-files",
  "diff-index",
  "range-diff",
  "cherry",
  "get-tar-commit-id",
  "verify-pack",
  "show-index",
]);

const MUTATING = new Set([
  "add",
  "commit",
  "rm",
  "mv",
  "checkout",
  "switch",
  "reset",
  "restore",
  "clean",
  "am",
  "merge",
  "rebase",
  "pull",
  "push",
  "fetch",
  "clone",
  "init",
  "gc",
  "prune",
  "repack",
  "update-index",
  "update-ref",
  "write-tree",
  "commit-tree",
  "mktag",
  "mktree",
  "cherry-pick",
  "revert",
  "filter-branch",
  "replace",
  "rerere",
  "maintenance",
  "fast-import",
  "bisect",
  "pack-refs",
  "prune-packed",
  "read-tree",
  "checkout-index",
  "merge-file",
  "merge-tree",
  "mergetool",
  "difftool",
  "send-email",
  "lfs",
  "citool",
  "gui",
  "instaweb",
  "svn",
  "p4",
  "quiltimport",
  "request-pull",
  "backfill",
  "stage",
  "unpack-objects",
  "index-pack",
  "fsck",
]);

/** `-c` keys that only change how output looks. */
const SAFE_CONFIG_KEY =
  /^(color\.[a-z.]+|core\.quotepath|log\.(date|decorate|abbrevcommit|follow|showroot|showsignature|mailmap)|i18n\.[a-z]+|column\.[a-z]+|advice\.[a-z]+|status\.(short|branch|showuntrackedfiles|relativepaths)|diff\.(renames|mnemonicprefix|noprefix|relative|context|statgraphwidth|colormoved|algorithm|indentheuristic|interhunkcontext)|grep\.(linenumber|patterntype|extendedregexp|fullname|column)|pager\.[a-z-]+=(false|true)?$|core\.pager=cat$)/i;

const GLOBAL_FLAGS = new Set([
  "--no-pager",
  "-P",
  "-p",
  "--paginate",
  "--bare",
  "--no-replace-objects",
  "--literal-pathspecs",
  "--glob-pathspecs",
  "--noglob-pathspecs",
  "--icase-pathspecs",
  "--no-optional-locks",
  "--no-lazy-fetch",
  "--no-advice",
]);
const GLOBAL_QUERIES = new Set(["--version", "--help", "-h", "--html-path", "--man-path", "--info-path", "--exec-path"]);
const GLOBAL_VALUES = new Set(["-C", "--git-dir", "--work-tree", "--namespace"]);

export const git: ProgramRule = (program, args) => {
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (!arg) break;
    const text = arg.value;
    if (text === null) return refuse(`the computed argument ${shown(arg.raw)} of ${program} cannot be checked`);
    if (!text.startsWith("-")) break;
    if (GLOBAL_FLAGS.has(text)) continue;
    if (GLOBAL_QUERIES.has(text)) return OK;
    if (GLOBAL_VALUES.has(text)) {
      i += 1;
      continue;
    }
    if (/^--(git-dir|work-tree|namespace)=/.test(text)) continue;
    if (text === "-c" || text.startsWith("-c")) {
      const setting = text === "-c" ? args[++i] : { value: text.slice(2), prefix: text.slice(2), raw: arg.raw };
      const key = setting?.value?.split("=")[0] ?? "";
      const safe = setting?.value != null && (SAFE_CONFIG_KEY.test(key) || SAFE_CONFIG_KEY.test(setting.value));
      if (!safe) {
        return refuse(`${program} -c ${shown(setting?.raw ?? "")} sets a configuration value that could run programs`);
      }
      continue;
    }
    return refuse(`${program} option ${text} is not known to be read-only`);
  }
  const sub = args[i];
  if (!sub) return OK;
  if (sub.value === null) return refuse(`the git subcommand ${shown(sub.raw)} is computed and cannot be checked`);
  return subcommand(`${program} ${sub.value}`, sub.value, args.slice(i + 1));
};

function subcommand(what: string, sub: string, args: readonly Arg[]): Check {
  const special = own(SPECIAL, sub);
  if (special) return special(what, args);
  if (READING.has(sub)) return reading(what, scanOptions(args));
  if (MUTATING.has(sub)) return refuse(`${what} changes the repository or its files`);
  return refuse(`${what} is not known to be read-only`);
}

/** Checks of every reading subcommand: no --output file, no computed option. */
function reading(what: string, scanned: ScannedArgs): Check {
  const output = findOption(scanned, "--output");
  if (output && !isStdoutTarget(output.value?.value)) return refuse(`${what} --output writes to a file`);
  return refuseComputedOptions(what, scanned) ?? OK;
}

/** Passes when the first operand is one of `readOnly` (or absent, when `bareReads`), refuses otherwise. */
function byAction(readOnly: readonly string[], bareReads: boolean): (what: string, args: readonly Arg[]) => Check {
  return (what, args) => {
    const scanned = scanOptions(args);
    const action = scanned.operands[0];
    if (!action) return bareReads ? reading(what, scanned) : refuse(`${what} changes the repository or its files`);
    if (action.value !== null && readOnly.includes(action.value)) return reading(what, scanned);
    return refuse(`${what} ${shown(action.raw)} changes the repository or its files`);
  };
}

const BRANCH_MUTATING = [
  "-d",
  "-D",
  "--delete",
  "-m",
  "-M",
  "--move",
  "-c",
  "-C",
  "--copy",
  "-f",
  "--force",
  "-u",
  "--set-upstream-to",
  "--unset-upstream",
  "--edit-description",
  "-t",
  "--track",
  "--no-track",
  "--create-reflog",
  "--recurse-submodules",
];
const LIST_SELECTORS = ["-l", "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at"];
const LIST_VALUES = ["--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"];

const TAG_MUTATING = [
  "-a",
  "--annotate",
  "-s",
  "--sign",
  "-u",
  "--local-user",
  "-f",
  "--force",
  "-d",
  "--delete",
  "-m",
  "--message",
  "-F",
  "--file",
  "-e",
  "--edit",
  "--create-reflog",
  "--cleanup",
  "--trailer",
];

const CONFIG_WRITES = [
  "--add",
  "--replace-all",
  "--unset",
  "--unset-all",
  "--rename-section",
  "--remove-section",
  "--edit",
  "-e",
  "--comment",
];
const CONFIG_READS = ["--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color", "--get-colorbool", "--list", "-l"];

const SPECIAL: Readonly<Record<string, (what: string, args: readonly Arg[]) => Check>> = {
  branch(what, args) {
    const scanned = scanOptions(args, { shortValue: "u", longValue: [...LIST_VALUES, "--set-upstream-to"] });
    const mutating = findOption(scanned, ...BRANCH_MUTATING);
    if (mutating) return refuse(`${what} ${mutating.name} changes branches`);
    const name = scanned.operands[0];
    if (name && !findOption(scanned, ...LIST_SELECTORS)) return refuse(`${what} ${shown(name.raw)} creates a branch`);
    return reading(what, scanned);
  },
  tag(what, args) {
    const scanned = scanOptions(args, {
      shortValue: "mFu",
      longValue: [...LIST_VALUES, "--message", "--file", "--local-user", "--cleanup"],
    });
    const mutating = findOption(scanned, ...TAG_MUTATING);
    if (mutating) return refuse(`${what} ${mutating.name} changes tags`);
    const name = scanned.operands[0];
    const listing = findOption(scanned, ...LIST_SELECTORS, "-n", "-v", "--verify");
    if (name && !listing) return refuse(`${what} ${shown(name.raw)} creates a tag`);
    return reading(what, scanned);
  },
  config(what, args) {
    const scanned = scanOptions(args, { shortValue: "f", longValue: ["--file", "--blob", "--type", "--default", "--comment"] });
    const write = findOption(scanned, ...CONFIG_WRITES);
    if (write) return refuse(`${what} ${write.name} changes the configuration`);
    const action = scanned.operands[0]?.value;
    if (action === "get" || action === "list") return reading(what, scanned);
    if (action === "set" || action === "unset" || action === "rename-section" || action === "remove-section" || action === "edit") {
      return refuse(`${what} ${action} changes the configuration`);
    }
    if (findOption(scanned, ...CONFIG_READS)) return reading(what, scanned);
    if (scanned.operands.length >= 2) return refuse(`${what} NAME VALUE sets a configuration value`);
    return reading(what, scanned);
  },
  remote: byAction(["show", "get-url"], true),
  stash: byAction(["list", "show"], false),
  worktree: byAction(["list"], false),
  submodule: byAction(["status", "summary"], true),
  notes: byAction(["list", "show"], true),
  bundle: byAction(["list-heads", "verify"], false),
  "sparse-checkout": byAction(["list"], false),
  reflog(what, args) {
    const scanned = scanOptions(args);
    const action = scanned.operands[0]?.value;
    if (action === "expire" || action === "delete" || action === "drop") return refuse(`${what} ${action} changes the reflog`);
    return reading(what, scanned);
  },
  "symbolic-ref"(what, args) {
    const scanned = scanOptions(args, { shortValue: "m" });
    if (findOption(scanned, "-d", "--delete") || scanned.operands.length >= 2) return refuse(`${what} changes a reference`);
    return reading(what, scanned);
  },
  "hash-object"(what, args) {
    const scanned = scanOptions(args, { shortValue: "t", longValue: ["--path"] });
    if (findOption(scanned, "-w")) return refuse(`${what} -w writes an object into the repository`);
    return reading(what, scanned);
  },
  apply(what, args) {
    const scanned = scanOptions(args, { shortValue: "pC", longValue: ["--exclude", "--include", "--directory", "--whitespace"] });
    const writes = findOption(scanned, "--apply", "--build-fake-ancestor", "--reject");
    const check = findOption(scanned, "--check", "--stat", "--numstat", "--summary");
    if (writes || !check) return refuse(`${what} changes files (only --check, --stat, --numstat and --summary are read-only)`);
    return reading(what, scanned);
  },
  archive(what, args) {
    const scanned = scanOptions(args, { shortValue: "o", longValue: ["--output", "--format", "--prefix", "--remote", "--exec"] });
    const output = findOption(scanned, "-o", "--output");
    if (output && !isStdoutTarget(output.value?.value)) return refuse(`${what} ${output.name} writes the archive to a file`);
    return refuseComputedOptions(what, scanned) ?? OK;
  },
  "format-patch"(what, args) {
    const scanned = scanOptions(args, { shortValue: "o", longValue: ["--output-directory"] });
    if (findOption(scanned, "-o", "--output-directory") || !findOption(scanned, "--stdout")) {
      return refuse(`${what} writes patch files (add --stdout to print them)`);
    }
    return reading(what, scanned);
  },
  grep(what, args) {
    const scanned = scanOptions(args, {
      shortValue: "efABC",
      longValue: ["--max-depth", "--threads", "--context", "--after-context", "--before-context"],
    });
    const pager = findOption(scanned, "-O", "--open-files-in-pager");
    if (pager) return refuse(`${what} ${pager.name} runs a pager program`);
    return reading(what, scanned);
  },
};

export const GIT_RULES: Readonly<Record<string, ProgramRule>> = { git };
