/**
 * The vocabulary of the read-only bash check's program rules (readonly-bash.ts composes them): a command's
 * arguments, a rule's answer, and a getopt-like scanner that splits arguments into options and operands.
 *
 * An argument is static (`value` known) or computed (`value` null: it holds an expansion). A computed
 * argument whose static `prefix` is empty or starts with "-" could become any option, so the scanner
 * reports it apart (`computed`); rules of programs that have options which write files refuse it.
 */

export interface Arg {
  /** The text after quote removal, or null when computed. */
  value: string | null;
  /** Static text before the first expansion (the whole value when static). */
  prefix: string;
  /** The argument as written (used in reasons). */
  raw: string;
}

export type Check = { ok: true } | { ok: false; reason: string; command?: string };

export const OK: Check = { ok: true };

export function refuse(reason: string): Check {
  return { ok: false, reason };
}

/** What a rule may ask the classifier: checks of inner commands, scripts and variables. */
export interface RuleContext {
  /** Checks a command that a wrapper runs (its words, program first). */
  invocation(words: readonly Arg[]): Check;
  /** Checks shell source that a program runs (`bash -c`). */
  script(source: string): Check;
  /** Checks that setting a variable is harmless (PATH, LD_PRELOAD, GIT_* ... can change what runs). */
  variable(name: string, value: Arg | null): Check;
}

/** A rule for one program: `args` are the words after the program name. */
export type ProgramRule = (program: string, args: readonly Arg[], ctx: RuleContext) => Check;

/** A static argument (for words a rule makes up, such as xargs' default `echo`). */
export function staticArg(value: string): Arg {
  return { value, prefix: value, raw: value };
}

/** Files a command may write to because they are not files: the null device and the standard streams. */
const DEVICES = new Set(["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2", "/dev/tty"]);

export function isDevice(target: string | null | undefined): boolean {
  return typeof target === "string" && DEVICES.has(target);
}

/** A device or "-" (standard output, for tools that use that convention). */
export function isStdoutTarget(target: string | null | undefined): boolean {
  return target === "-" || isDevice(target);
}

/** `record[key]` when `key` is the record's own key (never an Object.prototype member such as "constructor"). */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Quotes a raw word for a reason. */
export function shown(raw: string): string {
  return raw.length > 80 ? `${raw.slice(0, 77)}...` : raw;
}

// ---------------------------------------------------------------------------------------------------------
// Option scanning
// ---------------------------------------------------------------------------------------------------------

export interface OptionSyntax {
  /** Short option letters that take a value, attached (`-ofile`) or as the next argument. */
  shortValue?: string;
  /** Short option letters that take an optional attached value only (`-i[SUFFIX]`). */
  shortOptional?: string;
  /** Long option names (with `--`) that take a value as the next argument when not given with `=`. */
  longValue?: readonly string[];
  /** Options end at the first operand (wrappers, POSIX tools); otherwise they may follow operands (GNU). */
  stopAtOperand?: boolean;
}

export interface ScannedOption {
  /** `-o` for a short option (one per letter of a cluster), `--output` for a long one. */
  name: string;
  /** The option's value when it takes one (attached or the next argument), else null. */
  value: Arg | null;
  /** The argument the option was written in. */
  raw: string;
}

export interface ScannedArgs {
  options: ScannedOption[];
  operands: Arg[];
  /** Computed arguments that could be options. */
  computed: Arg[];
  /** With `stopAtOperand`: the index in `args` of the first operand (args.length when none). */
  operandIndex: number;
}

/** Splits arguments into options and operands (getopt_long conventions; `--` ends the options). */
export function scanOptions(args: readonly Arg[], syntax: OptionSyntax = {}): ScannedArgs {
  const shortValue = syntax.shortValue ?? "";
  const shortOptional = syntax.shortOptional ?? "";
  const longValue = syntax.longValue ?? [];
  const scanned: ScannedArgs = { options: [], operands: [], computed: [], operandIndex: args.length };
  let onlyOperands = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg) continue;
    const text = arg.value;
    if (onlyOperands) {
      scanned.operands.push(arg);
      continue;
    }
    if (text === null && (arg.prefix === "" || arg.prefix.startsWith("-"))) {
      scanned.computed.push(arg);
      continue;
    }
    if (text === "--") {
      onlyOperands = true;
      if (syntax.stopAtOperand) {
        scanned.operandIndex = i + 1;
        scanned.operands.push(...args.slice(i + 1));
        return scanned;
      }
      continue;
    }
    if (text === null || text === "-" || !text.startsWith("-")) {
      if (syntax.stopAtOperand) {
        scanned.operandIndex = i;
        scanned.operands.push(...args.slice(i));
        return scanned;
      }
      scanned.operands.push(arg);
      continue;
    }
    if (text.startsWith("--")) {
      const eq = text.indexOf("=");
      const name = eq === -1 ? text : text.slice(0, eq);
      let value: Arg | null = null;
      if (eq !== -1) value = partOf(arg, text.slice(eq + 1));
      else if (longValue.includes(name)) {
        value = args[i + 1] ?? null;
        if (value) i += 1;
      }
      scanned.options.push({ name, value, raw: arg.raw });
      continue;
    }
    for (let j = 1; j < text.length; j++) {
      const letter = text[j] ?? "";
      const rest = text.slice(j + 1);
      if (shortValue.includes(letter)) {
        let value: Arg | null = rest ? partOf(arg, rest) : (args[i + 1] ?? null);
        if (!rest && value) i += 1;
        if (!rest && !value) value = null;
        scanned.options.push({ name: `-${letter}`, value, raw: arg.raw });
        break;
      }
      if (shortOptional.includes(letter)) {
        scanned.options.push({ name: `-${letter}`, value: partOf(arg, rest), raw: arg.raw });
        break;
      }
      scanned.options.push({ name: `-${letter}`, value: null, raw: arg.raw });
    }
  }
  return scanned;
}

/** The attached value of an option (`-ofile`, `--output=file`): shown as the value itself. */
function partOf(_arg: Arg, text: string): Arg {
  return { value: text, prefix: text, raw: text };
}

/**
 * Whether an option as written names `long` (`--output`): exactly, or as an abbreviation (getopt_long
 * accepts any unambiguous prefix, so `--out` may well mean `--output`).
 */
export function isLongOption(name: string, long: string): boolean {
  return name === long || (name.length >= 3 && name.startsWith("--") && long.startsWith(name));
}

/** The first option matching one of `names` (short names exactly, long names also abbreviated). */
export function findOption(scanned: ScannedArgs, ...names: string[]): ScannedOption | undefined {
  return scanned.options.find((option) =>
    names.some((name) => (name.startsWith("--") ? isLongOption(option.name, name) : option.name === name)),
  );
}

/** Refuses the first computed argument that could be an option of `program`. */
export function refuseComputedOptions(program: string, scanned: ScannedArgs): Check | null {
  const computed = scanned.computed[0];
  if (!computed) return null;
  return refuse(`the computed argument ${shown(computed.raw)} could be a ${program} option that changes files`);
}

/** Refuses the first option not in `allowed` (short names exactly, long names exactly or abbreviated). */
export function refuseUnknownOptions(program: string, scanned: ScannedArgs, allowed: readonly string[]): Check | null {
  for (const option of scanned.options) {
    const known = allowed.some((name) => (name.startsWith("--") ? isLongOption(option.name, name) : option.name === name));
    if (!known) return refuse(`${program} option ${option.name} is not known to be read-only`);
  }
  return null;
}
