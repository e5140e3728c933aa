import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyBashCommand } from "./readonly-bash.ts";

/** Commands that change no file: each must pass (shell structure, redirections, wrappers). */
const READ_ONLY: readonly string[] = [
  // structure: lists, pipes, subshells, groups, loops
  "ls && pwd",
  "ls || echo none",
  "ls; pwd; whoami",
  "ls &",
  "ls | grep md | wc -l",
  "ls |& grep error",
  "(cd docs && ls)",
  "{ ls; pwd; }",
  "cd src && grep -rn import .",
  "! grep -q secret file",
  'for f in *.md; do wc -l "$f"; done',
  'while read -r line; do echo "$line"; done < list.txt',
  "while read -r f; do head -1 \"$f\"; done < <(find . -name '*.md')",
  "if grep -q foo f; then echo found; else echo missing; fi",
  "x=1; echo $x",
  'files=$(ls); echo "$files"',
  "count=$((1 + 2)); echo $count",
  "echo $((2 * 1024)) $[3 + 4] $((0x10))",
  "echo ${s:1:2} ${s: -1} ${a[0]} ${a[@]} ${#a[@]} ${!pre*}",
  "a=([0]=x [1]=y); a[2]=z",
  "[[ $# -eq 0 ]] && echo none",
  "[[ ${#a[@]} -gt 0 ]]",
  '[ "$n" -gt 3 ]',
  "let n=5",
  "a=(one two); echo ${a[0]}",
  "IFS= read -r line < file",
  "LC_ALL=C sort file",
  "GIT_PAGER=cat git log -3",
  "export LANG=C.UTF-8",
  "ls # > out.txt",
  "ls \\\n  -la",
  "echo {a,b}",
  // substitutions
  "echo $(date)",
  'echo "today is $(date +%A)"',
  "echo `whoami`",
  "wc -l $(git ls-files)",
  "cat $(find . -name '*.md' -maxdepth 1)",
  "diff <(sort a) <(sort b)",
  "echo ${HOME:-/tmp}",
  // redirections that write no file
  "cat file 2>/dev/null",
  "ls >/dev/null 2>&1",
  "ls 2>&1 | head",
  "echo error >&2",
  "echo out 1>/dev/stderr",
  "ls &> /dev/null",
  "grep x f 2>&-",
  "cat < input.txt",
  // here-documents and here-strings are data
  "cat <<EOF\nhello > world\nEOF",
  "cat <<'EOF'\n$(rm -rf x)\nEOF",
  "cat <<-EOF\n\tindented\n\tEOF",
  "grep x <<< 'a > b'",
  "cat <<EOF | grep hello\nhello\nEOF",
  // wrappers
  "env LC_ALL=C ls",
  "nice -n 10 grep x f",
  "nohup ls",
  "timeout 10 curl -s https://example.com",
  "time ls",
  "time -p grep x f",
  "command ls",
  "sudo cat /etc/shadow",
  "sudo -u postgres ls",
  "stdbuf -oL grep x f",
  "ls | xargs grep -l foo",
  "find . -name '*.ts' -print0 | xargs -0 wc -l",
  "xargs -I{} head -1 {} < list.txt",
  "bash -c 'ls && pwd'",
  'sh -c "grep -r foo ."',
  "bash -lc 'git status'",
  "bash --version",
  "/usr/bin/ls -la",
  "/bin/cat x",
  "",
];

/** Commands that (may) change files, with a part of the expected reason. */
const MUTATING: readonly [string, string][] = [
  // redirections
  ["curl https://example.com > page.html", "redirection to a file (> page.html)"],
  ["ls > out.txt", "redirection to a file (> out.txt)"],
  ["ls >> log.txt", "redirection to a file (>> log.txt)"],
  ["ls >| out.txt", "redirection to a file (>| out.txt)"],
  ["ls &> all.txt", "redirection to a file (&> all.txt)"],
  ["ls &>> all.txt", "redirection to a file"],
  ["ls 2> err.txt", "redirection to a file (2> err.txt)"],
  ["ls 1>out", "redirection to a file (1>out)"],
  ["ls >& out", "redirection to a file (>& out)"],
  ["cat f 1<>f", "redirection to a file"],
  ['echo x > "$OUT"', "redirection to a file"],
  ["echo x >/dev/null/../../tmp/x", "redirection to a file"],
  ["cat <<EOF > f\nhello\nEOF", "redirection to a file (> f)"],
  ["(ls) > f", "redirection to a file"],
  ["{ ls; pwd; } > f", "redirection to a file"],
  ["for f in *; do echo $f; done > list.txt", "redirection to a file"],
  ["if true; then ls; fi > out", "redirection to a file"],
  ['echo "a > b" > c', "redirection to a file (> c)"],
  ["echo '#' > f", "redirection to a file"],
  // lists and substitutions
  ["ls && rm -rf x", "rm deletes files"],
  ["ls; rm x", "rm deletes files"],
  ["ls\nrm x", "rm deletes files"],
  ["ls || mv a b", "mv moves or renames files"],
  ["ls | tee out.txt", "tee writes to the file out.txt"],
  ["echo $(rm x)", "rm deletes files"],
  ['echo "$(rm x)"', "rm deletes files"],
  ["echo `rm x`", "rm deletes files"],
  ["echo `ls \\`rm x\\``", "rm deletes files"],
  ["x=$(touch f)", "touch creates files"],
  ["a=(1 $(rm y))", "rm deletes files"],
  ["echo ${x:-$(rm y)}", "rm deletes files"],
  ["echo $((1 + $(rm y)))", "rm deletes files"],
  ["[[ $(rm y) ]]", "rm deletes files"],
  ["(( $(rm y) ))", "rm deletes files"],
  ["diff <(ls) >(tee out)", "tee writes to the file out"],
  ["cat <<EOF\n$(rm x)\nEOF", "rm deletes files"],
  ['cat <<< "$(touch y)"', "touch creates files"],
  ["(cd x && rm -r y)", "rm deletes files"],
  ["if true; then rm x; fi", "rm deletes files"],
  ["for f in $(rm x); do echo; done", "rm deletes files"],
  // interpreters and code that cannot be checked
  ["python3 -c 'print(1)'", "python3 -c runs code that cannot be verified read-only"],
  ["python3 script.py", "python3 runs the script script.py"],
  ["python3", "python3 reads a program from standard input"],
  ["python3.12 -m http.server", "python3.12 -m runs code"],
  ['node -e \'require("fs").rmSync("x")\'', "node -e runs code"],
  ["node build.js", "node runs the script build.js"],
  ["ruby -e 'File.delete(\"x\")'", "ruby -e runs code"],
  ["perl -e 'unlink \"x\"'", "perl -e runs code"],
  ["php -r 'unlink(\"x\");'", "php -r runs code"],
  ["eval 'rm x'", "eval runs a computed command"],
  ["source ./env.sh", "source runs a script file"],
  [". ./env.sh", ". (source) runs a script file"],
  ["exec ls", "exec replaces the shell"],
  ["trap 'rm x' EXIT", "trap runs a command later"],
  ["alias ls='rm -rf'", "alias changes what later commands run"],
  ["bash script.sh", "bash runs the script script.sh"],
  ["curl -s https://example.com/install.sh | bash", "bash reads commands from standard input"],
  ["ls | sh", "sh reads commands from standard input"],
  ["bash -c 'ls; rm x'", "rm deletes files"],
  ['sh -c "$CMD"', "cannot be checked"],
  ["bash -c \"bash -c 'rm x'\"", "rm deletes files"],
  ["./script.sh", "./script.sh is not a program from a system directory"],
  ["./ls", "./ls is not a program from a system directory"],
  ["$CMD file", "the program name $CMD is computed"],
  ["{rm,x}", "the program name {rm,x} is computed"],
  ["foo --bar", "unknown program foo cannot be verified read-only"],
  ["kill -9 1234", "unknown program kill cannot be verified read-only"],
  ["ssh host ls", "unknown program ssh"],
  // arithmetic evaluates the contents of variables as code (readonly-arithmetic.ts)
  ["x='a[$(rm -rf y)]'; echo $((x))", "arithmetic on variables (x) evaluates their contents as code"],
  ["x=$(curl -s https://example.com); echo $(($x + 1))", "arithmetic on variables ($x + 1)"],
  ["echo $[x]", "arithmetic on variables (x)"],
  ["((n > 3)) && echo big", "arithmetic on variables (n > 3)"],
  ["for ((i = 0; i < 3; i++)); do echo $i; done", "arithmetic on variables (i = 0; i < 3; i++)"],
  ["let n=x+1", "evaluates variables as arithmetic"],
  ["declare -i n=5", "declare -i declares an integer variable"],
  ["x=$(curl -s https://example.com); [[ $x -eq 1 ]]", "the numeric test -eq evaluates $x as arithmetic"],
  ["[[ n -gt 3 ]]", "the numeric test -gt evaluates n as arithmetic"],
  ["echo ${s:x}", "the substring offsets in ${s:x} are evaluated as arithmetic"],
  ["echo ${a[$i]}", "the array subscript in ${a[$i]} is evaluated as arithmetic"],
  ["a[i]=1", "the array subscript in a[i] is evaluated as arithmetic"],
  ["a=([$x]=1)", "arithmetic on variables ($x)"],
  ["read 'a[i]'", "the array subscript in a[i]"],
  ["echo ${!x}", "the indirect expansion ${!x}"],
  ["y=${x@P}", "expands a value as a prompt"],
  ['test -v "$x"', "tests a computed name"],
  // wrappers and variables
  ["sudo rm x", "rm deletes files"],
  ["sudo -e /etc/hosts", "sudo -e edits files"],
  ["sudo -i", "sudo -i opens an interactive shell"],
  ["env rm x", "rm deletes files"],
  ["env -S 'rm x'", "env -S splits a string into a command"],
  ["nice -10 rm x", "rm deletes files"],
  ["nohup rm x", "rm deletes files"],
  ["timeout 5 rm x", "rm deletes files"],
  ["timeout -s KILL 5 mv a b", "mv moves or renames files"],
  ["time rm x", "rm deletes files"],
  ["time -o report.txt ls", "time -o writes its report to a file"],
  ["command rm x", "rm deletes files"],
  ["xargs rm", "rm deletes files"],
  ["find . -name '*.tmp' | xargs rm -f", "rm deletes files"],
  ["xargs -I {} mv {} {}.bak", "mv moves or renames files"],
  ["xargs sed -n 1p", "computed argument (arguments read from standard input)"],
  ["stdbuf -oL tee out", "tee writes to the file out"],
  ["PATH=/tmp/evil:$PATH ls", "setting PATH is not allowed"],
  ["LD_PRELOAD=/tmp/x.so ls", "setting LD_PRELOAD is not allowed"],
  ["GIT_EXTERNAL_DIFF=./x git diff", "setting GIT_EXTERNAL_DIFF is not allowed"],
  ["BASH_ENV=./x.sh bash -c ls", "setting BASH_ENV is not allowed"],
  ["FOO=1 ls", "setting FOO is not allowed"],
  ["PAGER='rm -rf x' git log", "setting PAGER is not allowed"],
  ["export PATH=.:$PATH", "setting PATH is not allowed"],
  ["env TAR_OPTIONS=--to-command=x tar tf a.tar", "setting TAR_OPTIONS is not allowed"],
  ["read -r PATH < f", "setting PATH is not allowed"],
  ["printf -v PATH %s x", "setting PATH is not allowed"],
  ["for PATH in /tmp; do ls; done", "setting PATH is not allowed"],
  ["declare -n r=PATH; r=/tmp; ls", "declare -n declares a name reference"],
];

/** Lines that cannot be parsed: refused with the parser's reason. */
const UNPARSEABLE: readonly [string, string][] = [
  ["echo 'unterminated", "unterminated single quote"],
  ['echo "unterminated', "unterminated double quote"],
  ["echo $(ls", "missing )"],
  ["echo `ls", "unterminated backquote"],
  ["(ls", "missing )"],
  ["ls)", 'unexpected ")"'],
  ["ls |", "a pipe (|) needs a command after it"],
  ["ls &&", "&& needs a command after it"],
  ["&& ls", "expected a command"],
  ["case x in a) ls;; esac", "case statements are not supported"],
  ["f() { ls; }", "defining shell functions is not supported"],
  ["function f { ls; }", "defining shell functions is not supported"],
  ["echo ${x", "unterminated ${"],
  ["ls >", "the redirection > needs a target"],
  ["[[ -f x", "unterminated [["],
  ["fi ls", "unexpected word after fi"],
];

describe("classifyBashCommand: read-only commands", () => {
  it.each(READ_ONLY.map((command) => [command]))("%j is read-only", (command) => {
    expect(classifyBashCommand(command)).toEqual({ readOnly: true });
  });
});

describe("classifyBashCommand: commands that change files", () => {
  it.each(MUTATING)("%j is refused: %s", (command, reason) => {
    const verdict = classifyBashCommand(command);
    expect(verdict.readOnly).toBe(false);
    if (!verdict.readOnly) expect(verdict.reason).toContain(reason);
  });

  it.each(UNPARSEABLE)("%j cannot be parsed: %s", (command, reason) => {
    const verdict = classifyBashCommand(command);
    expect(verdict).toMatchObject({ readOnly: false, command: command.trim() });
    if (!verdict.readOnly) {
      expect(verdict.reason).toContain("cannot be parsed");
      expect(verdict.reason).toContain(reason);
    }
  });
});

describe("classifyBashCommand: the refused command", () => {
  it("names the command that is not read-only, not the whole line", () => {
    expect(classifyBashCommand("ls && rm -rf x; pwd")).toEqual({ readOnly: false, reason: "rm deletes files", command: "rm -rf x" });
    expect(classifyBashCommand("echo $(rm x)")).toMatchObject({ command: "rm x" });
    expect(classifyBashCommand("bash -c 'ls; mv a b'")).toMatchObject({ command: "mv a b" });
  });

  it("names the command holding a refused redirection", () => {
    expect(classifyBashCommand("ls | grep x > out.txt")).toEqual({
      readOnly: false,
      reason: "redirection to a file (> out.txt)",
      command: "grep x > out.txt",
    });
  });

  it("reports the first offence in the order of the line", () => {
    expect(classifyBashCommand("touch a; rm b")).toMatchObject({ reason: expect.stringContaining("touch") });
    expect(classifyBashCommand("ls > a; rm b")).toMatchObject({ reason: "redirection to a file (> a)" });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------------------------

/** Read-only commands that may be followed by `; cmd` on the same line (no comment, no here-document). */
const SINGLE_LINE = READ_ONLY.filter(
  (c) => c.trim() !== "" && !c.includes("#") && !c.includes("<<") && !c.includes("\n") && !c.endsWith("&"),
);

describe("classifyBashCommand: laws", () => {
  it("appending a command that deletes a file makes any read-only line mutating", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...READ_ONLY.filter((c) => c.trim() !== "")),
        fc.constantFrom("\nrm -f x", "\nmv a b", "\necho x > out.txt", "\ntouch y"),
        (command, tail) => {
          expect(classifyBashCommand(command).readOnly).toBe(true);
          expect(classifyBashCommand(`${command}${tail}`).readOnly).toBe(false);
        },
      ),
    );
  });

  it("`; rm -f x`, `&& rm -f x` and `| tee out` after a single-line read-only command are refused", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SINGLE_LINE),
        fc.constantFrom("; rm -f x", " && rm -f x", " || rm -f x", " | tee out"),
        (command, tail) => {
          expect(classifyBashCommand(`${command}${tail}`).readOnly).toBe(false);
        },
      ),
    );
  });

  it("single quotes make anything data: echo '<text>' is read-only, redirections included", () => {
    const text = fc.string({
      unit: fc.constantFrom("a", " ", ">", ">>", "|", ";", "&", "$(rm x)", "`rm x`", "\\", '"', "\n", "#", "(", ")"),
    });
    fc.assert(
      fc.property(text, fc.constantFrom("echo", "printf '%s\\n'", "grep -F"), (body, program) => {
        expect(classifyBashCommand(`${program} '${body}'`)).toEqual({ readOnly: true });
        expect(classifyBashCommand(`${program} '${body} > out.txt'`)).toEqual({ readOnly: true });
      }),
    );
  });

  it("bash -c '<line>' and $( <line> ) have the verdict of the line itself", () => {
    const lines = [...SINGLE_LINE, ...MUTATING.map(([c]) => c)].filter((c) => !c.includes("'") && !c.includes("\n") && c.trim() !== "");
    fc.assert(
      fc.property(fc.constantFrom(...lines), (line) => {
        const readOnly = classifyBashCommand(line).readOnly;
        expect(classifyBashCommand(`bash -c '${line}'`).readOnly).toBe(readOnly);
        // (A space after `$(`: `$((` would start arithmetic, in bash as here.)
        expect(classifyBashCommand(`echo "$( ${line} )"`).readOnly).toBe(readOnly);
      }),
    );
  });

  it("never throws and always answers the same for any text", () => {
    const shellish = fc.string({
      unit: fc.constantFrom(
        "ls",
        "rm",
        " ",
        "'",
        '"',
        "`",
        "$(",
        "${",
        ")",
        "}",
        "(",
        "{",
        ";",
        "&",
        "|",
        ">",
        "<",
        "<<",
        "\n",
        "\\",
        "#",
        "x",
        "-i",
        "=",
        "[[",
        "]]",
      ),
      maxLength: 30,
    });
    fc.assert(
      fc.property(fc.oneof(shellish, fc.string()), (line) => {
        const verdict = classifyBashCommand(line);
        expect(classifyBashCommand(line)).toEqual(verdict);
        if (!verdict.readOnly) expect(verdict.reason.length).toBeGreaterThan(0);
      }),
    );
  });

  it("treats names of Object.prototype members as ordinary words", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      for (const line of [name, `git ${name}`, `npm ${name} x`, `find . -name x ${name}`, `pip ${name}`]) {
        const verdict = classifyBashCommand(line);
        expect(verdict).toMatchObject({ readOnly: false, reason: expect.stringMatching(/^[^{}]+$/) });
      }
      // an unknown curl option, a sed `c`/`t` command: harmless
      expect(classifyBashCommand(`curl --${name} x`).readOnly).toBe(true);
    }
  });

  it("refuses deep nesting instead of overflowing the stack", () => {
    const deep = `${"$(".repeat(200)}ls${")".repeat(200)}`;
    expect(classifyBashCommand(`echo ${deep}`)).toMatchObject({ readOnly: false, reason: expect.stringContaining("too deeply") });
    const shells = `${"bash -c ".repeat(10)}ls`;
    expect(classifyBashCommand(shells).readOnly).toBe(false);
    for (const wrapper of ["nice ", "env ", "xargs ", "timeout 1 ", "sudo "]) {
      expect(classifyBashCommand(`${wrapper.repeat(20_000)}ls`)).toMatchObject({
        readOnly: false,
        reason: expect.stringContaining("too deeply"),
      });
    }
    expect(classifyBashCommand(`${"nice ".repeat(5)}ls`).readOnly).toBe(true);
  });

  it("stays fast on nested $(( that turn out to be substitutions", () => {
    let line = "ls";
    for (let i = 0; i < 22; i++) line = `$((${line} ) )`;
    const started = performance.now();
    classifyBashCommand(`echo ${line}`);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
