/**
 * Read-only bash rules for sed and awk, whose scripts can write files or run commands.
 *
 * sed: `-i`/`--in-place` edits files; a script file (`-f`) cannot be checked. The script is parsed command
 * by command (addresses, `s` with any delimiter and its flags, `y`, `a/i/c` text, labels): `w`/`W` and the
 * `w` flag of `s` write files (except to /dev/stdout and /dev/stderr), `e` and the `e` flag run commands.
 * An unknown command makes the script uncheckable.
 *
 * awk: only options known to be harmless pass (`-i inplace`, `-f`, `-o`, `-p`, `-d` ... are refused). The
 * program is scanned with string and regex literals and comments set aside: `system(...)`, a pipe `|` (to or
 * from a command), an `@` directive and a `print`/`printf` redirected with `>`/`>>` to anything but a
 * "/dev/stdout" or "/dev/stderr" string are refused. This is a lexical check, not an awk parser: it errs
 * towards refusing (for example `print (a > b)` is read as a redirection).
 */
import {
  findOption,
  OK,
  type ProgramRule,
  refuse,
  refuseComputedOptions,
  refuseUnknownOptions,
  scanOptions,
  shown,
} from "./readonly-rules.ts";

const STREAM_FILES = new Set(["/dev/stdout", "/dev/stderr"]);

// ---------------------------------------------------------------------------------------------------------
// sed
// ---------------------------------------------------------------------------------------------------------

const SED_OPTIONS = [
  "-n",
  "--quiet",
  "--silent",
  "-E",
  "-r",
  "--regexp-extended",
  "-s",
  "--separate",
  "-u",
  "--unbuffered",
  "-z",
  "--null-data",
  "--zero-terminated",
  "--posix",
  "--debug",
  "--sandbox",
  "--follow-symlinks",
  "-b",
  "--binary",
  "-e",
  "--expression",
  "-l",
  "--line-length",
  "--help",
  "--version",
];

export const sed: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, {
    shortValue: "efl",
    shortOptional: "i",
    longValue: ["--expression", "--file", "--line-length"],
  });
  const inPlace = findOption(scanned, "-i", "--in-place");
  if (inPlace) return refuse(`${program} ${inPlace.name} edits files in place`);
  if (findOption(scanned, "-f", "--file")) return refuse(`${program} -f reads its script from a file, which cannot be checked`);
  const problem = refuseComputedOptions(program, scanned) ?? refuseUnknownOptions(program, scanned, SED_OPTIONS);
  if (problem) return problem;
  const expressions = scanned.options.filter((o) => o.name === "-e" || o.name === "--expression").map((o) => o.value);
  const scripts = expressions.length > 0 ? expressions : scanned.operands.slice(0, 1);
  for (const script of scripts) {
    if (!script) continue;
    if (script.value === null) return refuse(`the ${program} script ${shown(script.raw)} is computed and cannot be checked`);
    const issue = sedScriptIssue(script.value);
    if (issue) return refuse(`the ${program} script ${shown(script.raw)} ${issue}`);
  }
  return OK;
};

/** Why a sed script is not read-only (writes, runs a command, or cannot be parsed), or null. */
export function sedScriptIssue(script: string): string | null {
  const s = script;
  let pos = 0;
  const skipSpaces = (): void => {
    while (s[pos] === " " || s[pos] === "\t") pos += 1;
  };
  /** Reads a delimited part (regex or replacement) ending at an unescaped `delim`; false when unterminated. */
  const readPart = (delim: string): boolean => {
    while (pos < s.length) {
      const c = s[pos];
      if (c === "\\") pos += 2;
      else if (c === delim) {
        pos += 1;
        return true;
      } else pos += 1;
    }
    return false;
  };
  const restOfLine = (): string => {
    const eol = s.indexOf("\n", pos);
    const text = s.slice(pos, eol === -1 ? s.length : eol);
    pos = eol === -1 ? s.length : eol;
    return text.trim();
  };
  const readAddress = (): boolean => {
    const c = s[pos];
    if (c !== undefined && /[0-9]/.test(c)) {
      while (/[0-9~]/.test(s[pos] ?? "")) pos += 1;
    } else if (c === "$") {
      pos += 1;
    } else if (c === "/" || c === "\\") {
      const delim = c === "/" ? "/" : (s[pos + 1] ?? "");
      pos += c === "/" ? 1 : 2;
      if (!delim || !readPart(delim)) return false;
      while (s[pos] === "I" || s[pos] === "M") pos += 1;
    }
    return true;
  };

  while (pos < s.length) {
    while (pos < s.length && /[\s;]/.test(s[pos] ?? "")) pos += 1;
    if (pos >= s.length) break;
    if (s[pos] === "#") {
      restOfLine();
      continue;
    }
    if (!readAddress()) return "has an unterminated address";
    skipSpaces();
    if (s[pos] === ",") {
      pos += 1;
      skipSpaces();
      if (s[pos] === "+" || s[pos] === "~") pos += 1;
      if (!readAddress()) return "has an unterminated address";
    }
    skipSpaces();
    while (s[pos] === "!") {
      pos += 1;
      skipSpaces();
    }
    const command = s[pos] ?? "";
    pos += 1;
    if (command === "{") continue; // a block: its first command may follow directly
    switch (command) {
      case "}":
      case "=":
      case "d":
      case "D":
      case "g":
      case "G":
      case "h":
      case "H":
      case "n":
      case "N":
      case "p":
      case "P":
      case "x":
      case "z":
      case "F":
        break;
      case "s": {
        const delim = s[pos] ?? "";
        if (!delim || delim === "\n" || delim === "\\") return "cannot be parsed";
        pos += 1;
        if (!readPart(delim) || !readPart(delim)) return "has an unterminated s command";
        while (pos < s.length && /[gpiImMe0-9w]/.test(s[pos] ?? "")) {
          const flag = s[pos];
          pos += 1;
          if (flag === "e") return "runs a command (the e flag of s)";
          if (flag === "w") {
            const target = restOfLine();
            if (!STREAM_FILES.has(target)) return `writes to the file ${target || "(none)"} (the w flag of s)`;
          }
        }
        break;
      }
      case "y": {
        const delim = s[pos] ?? "";
        if (!delim || delim === "\n" || delim === "\\") return "cannot be parsed";
        pos += 1;
        if (!readPart(delim) || !readPart(delim)) return "has an unterminated y command";
        break;
      }
      case "a":
      case "i":
      case "c": {
        // Text to the end of the line; a backslash before the newline continues it.
        while (pos < s.length) {
          if (s[pos] === "\\") pos += 2;
          else if (s[pos] === "\n") break;
          else pos += 1;
        }
        break;
      }
      case "r":
      case "R":
        restOfLine();
        break;
      case "w":
      case "W": {
        const target = restOfLine();
        if (!STREAM_FILES.has(target)) return `writes to the file ${target || "(none)"} (the ${command} command)`;
        break;
      }
      case "e":
        return "runs a command (the e command)";
      case ":":
        while (pos < s.length && s[pos] !== "\n" && s[pos] !== ";") pos += 1;
        break;
      case "b":
      case "t":
      case "T":
      case "q":
      case "Q":
      case "l":
      case "L":
      case "v":
        while (pos < s.length && s[pos] !== "\n" && s[pos] !== ";" && s[pos] !== "}") pos += 1;
        break;
      default:
        return `has a command (${command || "end of script"}) that is not known to be read-only`;
    }
    skipSpaces();
    const next = s[pos];
    if (next !== undefined && !/[\n;}#]/.test(next)) return "cannot be parsed";
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// awk
// ---------------------------------------------------------------------------------------------------------

const AWK_OPTIONS = [
  "-F",
  "--field-separator",
  "-v",
  "--assign",
  "-e",
  "--source",
  "-b",
  "--characters-as-bytes",
  "-c",
  "--traditional",
  "-C",
  "--copyright",
  "-g",
  "--gen-pot",
  "-M",
  "--bignum",
  "-N",
  "--use-lc-numeric",
  "-n",
  "--non-decimal-data",
  "-O",
  "--optimize",
  "-P",
  "--posix",
  "-r",
  "--re-interval",
  "-s",
  "--no-optimize",
  "-S",
  "--sandbox",
  "-t",
  "--lint-old",
  "-V",
  "--version",
  "-h",
  "--help",
  "--",
];

export const awk: ProgramRule = (program, args) => {
  const scanned = scanOptions(args, {
    shortValue: "Fvfeil",
    longValue: ["--field-separator", "--assign", "--file", "--source", "--include", "--load"],
    stopAtOperand: true,
  });
  const script = findOption(scanned, "-f", "--file");
  if (script) return refuse(`${program} ${script.name} runs a program file, which cannot be checked`);
  const problem = refuseComputedOptions(program, scanned) ?? refuseUnknownOptions(program, scanned, AWK_OPTIONS);
  if (problem) return problem;
  const sources = scanned.options.filter((o) => o.name === "-e" || o.name === "--source").map((o) => o.value);
  const programs = sources.length > 0 ? sources : scanned.operands.slice(0, 1);
  for (const text of programs) {
    if (!text) continue;
    if (text.value === null) return refuse(`the ${program} program ${shown(text.raw)} is computed and cannot be checked`);
    const issue = awkProgramIssue(text.value);
    if (issue) return refuse(`the ${program} program ${shown(text.raw)} ${issue}`);
  }
  return OK;
};

/** Why an awk program is not read-only, or null (a lexical check; see the file header). */
export function awkProgramIssue(source: string): string | null {
  const { code, strings } = awkCode(source);
  if (code === null) return "cannot be parsed (an unterminated string or regex)";
  if (/\bsystem\s*\(/.test(code)) return "runs a command (system)";
  if (code.replace(/\|\|/g, "").includes("|")) return "runs a command through a pipe (|)";
  if (code.includes("@")) return "uses an @ directive (@load, @include or an indirect call)";
  const print = /\bprintf?\b/g;
  for (let match = print.exec(code); match; match = print.exec(code)) {
    let depth = 0;
    for (let i = match.index + match[0].length; i < code.length; i++) {
      const c = code[i];
      if (c === "(" || c === "[") depth += 1;
      else if (c === ")" || c === "]") depth -= 1;
      else if (depth <= 0 && (c === ";" || c === "\n" || c === "}")) break;
      else if (depth <= 0 && c === ">") {
        const target = /^>?\s*\uE000(\d+)\uE001/.exec(code.slice(i + 1));
        const file = target ? strings[Number(target[1])] : undefined;
        if (file !== undefined && STREAM_FILES.has(file)) break;
        return "writes to a file (print >)";
      }
    }
  }
  return null;
}

/** The program with strings replaced by `\uE000n\uE001` markers (private-use characters), regexes by `//` and comments removed. */
function awkCode(source: string): { code: string | null; strings: string[] } {
  const strings: string[] = [];
  let code = "";
  let i = 0;
  while (i < source.length) {
    const c = source[i] ?? "";
    if (c === '"') {
      let j = i + 1;
      let text = "";
      while (j < source.length && source[j] !== '"') {
        if (source[j] === "\\") {
          text += source[j + 1] ?? "";
          j += 2;
        } else {
          text += source[j];
          j += 1;
        }
      }
      if (j >= source.length) return { code: null, strings };
      code += `\uE000${strings.length}\uE001`;
      strings.push(text);
      i = j + 1;
    } else if (c === "/" && regexCanStart(code)) {
      let j = i + 1;
      let inBracket = false;
      while (j < source.length && (inBracket || source[j] !== "/")) {
        if (source[j] === "\\") j += 1;
        else if (source[j] === "[") inBracket = true;
        else if (source[j] === "]") inBracket = false;
        else if (source[j] === "\n") return { code: null, strings };
        j += 1;
      }
      if (j >= source.length) return { code: null, strings };
      code += "//";
      i = j + 1;
    } else if (c === "#") {
      while (i < source.length && source[i] !== "\n") i += 1;
    } else {
      code += c;
      i += 1;
    }
  }
  return { code, strings };
}

/** Whether a `/` after `code` starts a regex (an operand is expected) rather than a division. */
function regexCanStart(code: string): boolean {
  const before = code.trimEnd();
  const last = before[before.length - 1];
  if (last === undefined) return true;
  if (/\b(print|printf|return|in|case|getline)$/.test(before)) return true;
  return !/[A-Za-z0-9_)\]$\uE001.]/.test(last);
}

export const TEXT_TOOL_RULES: Readonly<Record<string, ProgramRule>> = {
  sed,
  gsed: sed,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
};
