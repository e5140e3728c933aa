/**
 * Read-only bash rules for package managers and build tools: querying subcommands pass (npm ls/view/
 * outdated, pip list/show/freeze, apt list/show/search, dpkg -l/-L/-s, go version/env/doc, ...); installing,
 * removing, updating, publishing and building are refused, and so is running package scripts or packages
 * (npm run/test/exec, npx, make), which cannot be proven read-only. Unknown subcommands are refused.
 * (Querying subcommands may still refresh a package manager's own cache; the project's files stay as they are.)
 */
import { type Arg, OK, own, type ProgramRule, refuse, shown } from "./readonly-rules.ts";

const VERSION_FLAGS = new Set(["--version", "-v", "-V", "--help", "-h", "help", "version"]);

/** The first argument that is not an option, with its position. */
function firstOperand(args: readonly Arg[]): { arg: Arg; index: number } | null {
  const index = args.findIndex((arg) => arg.value === null || !arg.value.startsWith("-"));
  const arg = index === -1 ? undefined : args[index];
  return arg ? { arg, index } : null;
}

interface SubcommandPolicy {
  /** Subcommands that only read. */
  reads: readonly string[];
  /** Subcommands that read only with one of these next words (config get, pkg get, ...). */
  readsWith?: Readonly<Record<string, readonly string[]>>;
  /** Subcommands that run scripts or packages. */
  runs?: readonly string[];
  /** Options that make a reading subcommand write (audit --fix). */
  writingOptions?: readonly string[];
  /** What a refused subcommand does. */
  changes: string;
  /** Whether running without a subcommand only prints help (npm) rather than installing (yarn). */
  bareIsHelp: boolean;
}

function bySubcommand(policy: SubcommandPolicy): ProgramRule {
  return (program, args) => {
    const found = firstOperand(args);
    if (!found) {
      if (args.length > 0 && args.every((arg) => arg.value !== null && VERSION_FLAGS.has(arg.value))) return OK;
      return policy.bareIsHelp ? OK : refuse(`${program} without a subcommand ${policy.changes}`);
    }
    const sub = found.arg.value;
    if (sub === null) return refuse(`the ${program} subcommand ${shown(found.arg.raw)} is computed and cannot be checked`);
    const what = `${program} ${sub}`;
    if (VERSION_FLAGS.has(sub)) return OK;
    if (policy.runs?.includes(sub)) return refuse(`${what} runs scripts or packages, which cannot be verified read-only`);
    const rest = args.slice(found.index + 1);
    const writing = args.find((arg) => arg.value !== null && (policy.writingOptions ?? []).includes(arg.value));
    if (writing) return refuse(`${what} ${writing.value ?? ""} ${policy.changes}`);
    if (policy.reads.includes(sub)) return OK;
    const readsWith = policy.readsWith ? own(policy.readsWith, sub) : undefined;
    if (readsWith) {
      const action = firstOperand(rest)?.arg.value;
      if (action !== undefined && action !== null && readsWith.includes(action)) return OK;
      return refuse(`${what} ${action ?? ""} ${policy.changes}`.replace(/\s+/g, " "));
    }
    return refuse(`${what} ${policy.changes}`);
  };
}

const npm = bySubcommand({
  reads: [
    "ls",
    "list",
    "ll",
    "la",
    "view",
    "info",
    "show",
    "v",
    "search",
    "s",
    "find",
    "se",
    "outdated",
    "explain",
    "why",
    "root",
    "prefix",
    "help-search",
    "ping",
    "whoami",
    "fund",
    "query",
    "audit",
  ],
  readsWith: { config: ["get", "list", "ls"], pkg: ["get"], cache: ["ls"] },
  runs: ["run", "run-script", "rum", "urn", "test", "t", "tst", "start", "stop", "restart", "exec", "x", "explore"],
  writingOptions: ["fix", "--fix"],
  changes: "installs or changes packages or files (node_modules, lock files, the npm registry)",
  bareIsHelp: true,
});

const pnpm = bySubcommand({
  reads: ["ls", "list", "ll", "la", "why", "outdated", "view", "info", "show", "root", "audit", "licenses"],
  readsWith: { config: ["get", "list"] },
  runs: ["run", "test", "t", "start", "exec", "dlx", "create"],
  writingOptions: ["--fix"],
  changes: "installs or changes packages or files (node_modules, lock files)",
  bareIsHelp: true,
});

const yarn = bySubcommand({
  reads: ["list", "info", "why", "outdated", "versions", "licenses", "npm"],
  readsWith: { config: ["get", "list"], workspaces: ["info", "list"] },
  runs: ["run", "test", "start", "exec", "dlx", "create", "node"],
  changes: "installs or changes packages or files (node_modules, lock files)",
  bareIsHelp: false,
});

const pip = bySubcommand({
  reads: ["list", "show", "freeze", "check", "search", "debug", "inspect"],
  readsWith: { config: ["list", "get", "debug"], index: ["versions"], cache: ["dir", "info", "list"] },
  changes: "installs, downloads or removes packages",
  bareIsHelp: true,
});

const apt = bySubcommand({
  reads: ["list", "search", "show", "showsrc", "policy", "depends", "rdepends", "madison", "changelog"],
  changes: "installs, removes or updates packages",
  bareIsHelp: true,
});

const aptCache = bySubcommand({
  reads: [
    "search",
    "show",
    "showpkg",
    "showsrc",
    "policy",
    "depends",
    "rdepends",
    "madison",
    "pkgnames",
    "stats",
    "dump",
    "dumpavail",
    "unmet",
    "dotty",
    "xvcg",
  ],
  changes: "changes the package cache",
  bareIsHelp: true,
});

const aptGet = bySubcommand({ reads: [], changes: "installs, removes, downloads or updates packages", bareIsHelp: true });

const DPKG_READS = new Set([
  "-l",
  "--list",
  "-L",
  "--listfiles",
  "-s",
  "--status",
  "-S",
  "--search",
  "-p",
  "--print-avail",
  "--print-architecture",
  "--print-foreign-architectures",
  "--version",
  "--help",
  "-c",
  "--contents",
  "-I",
  "--info",
  "-f",
  "--field",
  "--compare-versions",
  "--get-selections",
  "-C",
  "--audit",
]);

const dpkg: ProgramRule = (program, args) => {
  const action = args.find((arg) => arg.value === null || arg.value.startsWith("-"));
  if (!action) return OK;
  if (action.value !== null && DPKG_READS.has(action.value)) return OK;
  return refuse(`${program} ${shown(action.raw)} installs, removes or changes packages`);
};

const cargo = bySubcommand({
  reads: ["search", "--list", "locate-project", "pkgid", "verify-project"],
  changes: "builds, installs or changes files (target/, Cargo.lock, ~/.cargo)",
  bareIsHelp: true,
});

const go: ProgramRule = (program, args) => {
  const found = firstOperand(args);
  const sub = found?.arg.value;
  if (!found || sub === "version" || sub === "doc" || sub === "help") return OK;
  if (sub === "env") {
    const write = args.find((arg) => arg.value === "-w" || arg.value === "-u");
    return write ? refuse(`${program} env ${write.value ?? ""} changes the Go environment file`) : OK;
  }
  return refuse(`${program} ${shown(found.arg.raw)} builds, downloads or changes files`);
};

/** Programs that only pass for a version or help query. */
function queryOnly(does: string): ProgramRule {
  return (program, args) =>
    args.length > 0 && args.every((arg) => arg.value !== null && VERSION_FLAGS.has(arg.value))
      ? OK
      : refuse(`${program} ${does}, which cannot be verified read-only`);
}

const BUILD_TOOLS = ["make", "gmake", "cmake", "ninja", "gradle", "gradlew", "mvn", "ant", "bazel", "meson", "scons", "just", "task"];
const PACKAGE_RUNNERS = ["npx", "pnpx", "bunx", "uvx", "pipx", "uv", "poetry", "pipenv", "conda", "gem", "bundle", "composer"];

export const PACKAGE_RULES: Readonly<Record<string, ProgramRule>> = {
  npm,
  pnpm,
  yarn,
  pip,
  pip3: pip,
  apt,
  "apt-get": aptGet,
  "apt-cache": aptCache,
  dpkg,
  "dpkg-query": () => OK,
  cargo,
  go,
  ...Object.fromEntries(BUILD_TOOLS.map((name): [string, ProgramRule] => [name, queryOnly("runs build steps that can write files")])),
  ...Object.fromEntries(PACKAGE_RUNNERS.map((name): [string, ProgramRule] => [name, queryOnly("installs or runs packages")])),
};
