/**
 * Read-only bash rules for archives and compressors.
 *
 * - tar: listing (`-t`) and comparing (`-d`) pass; extracting passes only to standard output (`-O`,
 *   `--to-stdout`); creating, appending, updating, concatenating and deleting are refused, as are options
 *   that run programs or write side files (`--to-command`, `-I`, `--checkpoint-action`, `-g`, `--index-file`,
 *   `-F`, `--rsh-command`, `--remove-files`). Old-style bundled letters (`tar tzf a.tgz`) are understood.
 * - unzip: only listing, testing and printing (`-l -v -t -p -c -z -Z`) pass.
 * - gzip, bzip2, xz, zstd and their un- forms: pass with `-c`/`--stdout`, `-l`/`--list`, `-t`/`--test`,
 *   help or version, or as a filter (no file operand, standard input to standard output); otherwise they
 *   write (and by default delete) files next to their inputs.
 */
import {
  type Arg,
  findOption,
  isStdoutTarget,
  OK,
  type ProgramRule,
  refuse,
  refuseComputedOptions,
  scanOptions,
  shown,
  staticArg,
} from "./readonly-rules.ts";

const TAR_VALUE_LETTERS = "bCfFgHIKLNTVX";

const TAR_LONG_VALUES = [
  "--file",
  "--directory",
  "--files-from",
  "--exclude-from",
  "--listed-incremental",
  "--use-compress-program",
  "--to-command",
  "--index-file",
  "--info-script",
  "--new-volume-script",
  "--checkpoint-action",
  "--rsh-command",
  "--rmt-command",
  "--format",
  "--blocking-factor",
  "--label",
  "--newer",
  "--after-date",
  "--starting-file",
  "--exclude",
  "--transform",
  "--xform",
  "--strip-components",
  "--owner",
  "--group",
  "--mode",
  "--mtime",
  "--tape-length",
  "--suffix",
];

const TAR_WRITING_MODES: Readonly<Record<string, string>> = {
  "-c": "creates an archive",
  "--create": "creates an archive",
  "-r": "appends to an archive",
  "--append": "appends to an archive",
  "-u": "updates an archive",
  "--update": "updates an archive",
  "-A": "concatenates archives",
  "--catenate": "concatenates archives",
  "--concatenate": "concatenates archives",
  "--delete": "deletes from an archive",
};

const TAR_DANGEROUS: Readonly<Record<string, string>> = {
  "--to-command": "runs a command for each member",
  "-I": "runs a compression program",
  "--use-compress-program": "runs a compression program",
  "--checkpoint-action": "can run commands at checkpoints",
  "-g": "writes a snapshot file",
  "--listed-incremental": "writes a snapshot file",
  "--index-file": "writes its listing to a file",
  "-F": "runs a volume script",
  "--info-script": "runs a volume script",
  "--new-volume-script": "runs a volume script",
  "--rsh-command": "runs a remote shell command",
  "--rmt-command": "runs a remote command",
  "--remove-files": "deletes files",
};

/** `tar tzf a.tgz x` → `-t -z -f a.tgz x`: old-style letters take their values from the next arguments. */
function expandOldStyle(args: readonly Arg[]): Arg[] {
  const first = args[0];
  if (!first || first.value === null || first.value.startsWith("-") || !/^[A-Za-z]+$/.test(first.value)) return args.slice();
  const rest = args.slice(1);
  const expanded: Arg[] = [];
  for (const letter of first.value) {
    expanded.push(staticArg(`-${letter}`));
    if (TAR_VALUE_LETTERS.includes(letter)) {
      const value = rest.shift();
      if (value) expanded.push(value);
    }
  }
  return [...expanded, ...rest];
}

export const tar: ProgramRule = (program, args) => {
  const scanned = scanOptions(expandOldStyle(args), { shortValue: TAR_VALUE_LETTERS, longValue: TAR_LONG_VALUES });
  const mode = findOption(scanned, ...Object.keys(TAR_WRITING_MODES));
  if (mode) return refuse(`${program} ${mode.name} ${TAR_WRITING_MODES[mode.name] ?? "writes an archive"}`);
  for (const [name, what] of Object.entries(TAR_DANGEROUS)) {
    const option = findOption(scanned, name);
    if (!option) continue;
    if (name === "--index-file" && isStdoutTarget(option.value?.value)) continue;
    return refuse(`${program} ${option.name} ${what}`);
  }
  const extract = findOption(scanned, "-x", "--extract", "--get");
  if (extract && !findOption(scanned, "-O", "--to-stdout")) {
    return refuse(`${program} ${extract.name} extracts files (add -O to print them instead)`);
  }
  return refuseComputedOptions(program, scanned) ?? OK;
};

export const unzip: ProgramRule = (program, args) => {
  if (args.length === 0) return OK;
  const scanned = scanOptions(args, { shortValue: "dxP", stopAtOperand: true });
  const readOnly = findOption(scanned, "-l", "-v", "-t", "-p", "-c", "-z", "-Z", "--help");
  if (!readOnly) return refuse(`${program} extracts files (use -l to list or -p to print them)`);
  return refuseComputedOptions(program, scanned) ?? OK;
};

interface Compressor {
  /** Short option letters that take a value. */
  valueLetters: string;
  /** What it writes next to its inputs. */
  writes: string;
}

const COMPRESSORS: Readonly<Record<string, Compressor>> = {
  gzip: { valueLetters: "S", writes: "compressed files" },
  gunzip: { valueLetters: "S", writes: "decompressed files" },
  bzip2: { valueLetters: "", writes: "compressed files" },
  bunzip2: { valueLetters: "", writes: "decompressed files" },
  xz: { valueLetters: "CFMST", writes: "compressed files" },
  unxz: { valueLetters: "CFMST", writes: "decompressed files" },
  lzma: { valueLetters: "CFMST", writes: "compressed files" },
  unlzma: { valueLetters: "CFMST", writes: "decompressed files" },
  zstd: { valueLetters: "oDTBM", writes: "compressed files" },
  unzstd: { valueLetters: "oDTBM", writes: "decompressed files" },
};

const compressor: ProgramRule = (program, args) => {
  const spec = COMPRESSORS[program] ?? { valueLetters: "", writes: "files" };
  const scanned = scanOptions(args, { shortValue: spec.valueLetters, longValue: ["--suffix", "--output", "--format"] });
  const output = findOption(scanned, "-o", "--output");
  if (output && !isStdoutTarget(output.value?.value)) return refuse(`${program} ${output.name} writes to a file`);
  const remove = findOption(scanned, "--rm");
  if (remove) return refuse(`${program} --rm deletes its input files`);
  const computed = refuseComputedOptions(program, scanned);
  if (computed) return computed;
  const toStdout = findOption(
    scanned,
    "-c",
    "--stdout",
    "--to-stdout",
    "-l",
    "--list",
    "-t",
    "--test",
    "-h",
    "--help",
    "-V",
    "--version",
    "-L",
    "--license",
  );
  if (toStdout || (output && isStdoutTarget(output.value?.value))) return OK;
  const file = scanned.operands.find((operand) => operand.value !== "-");
  if (file) return refuse(`${program} writes ${spec.writes} next to ${shown(file.raw)} (use -c to print to standard output)`);
  return OK;
};

export const ARCHIVE_RULES: Readonly<Record<string, ProgramRule>> = {
  tar,
  gtar: tar,
  unzip,
  ...Object.fromEntries(Object.keys(COMPRESSORS).map((name): [string, ProgramRule] => [name, compressor])),
};
