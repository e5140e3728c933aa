import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseShell, type ShellCommand, type ShellList, type SimpleCommand } from "./shell-syntax.ts";

function parsed(source: string): ShellList {
  const result = parseShell(source);
  if (!result.ok) throw new Error(`expected ${JSON.stringify(source)} to parse: ${result.error}`);
  return result.list;
}

function commands(list: ShellList): ShellCommand[] {
  return list.items.flatMap((item) => item.pipeline.commands);
}

function simple(source: string, index = 0): SimpleCommand {
  const command = commands(parsed(source))[index];
  if (command?.kind !== "simple") throw new Error(`command ${index} of ${source} is not simple`);
  return command;
}

function values(command: SimpleCommand): (string | null)[] {
  return command.words.map((w) => w.value);
}

describe("parseShell: words", () => {
  it("removes quotes and escapes", () => {
    expect(values(simple(`echo 'a b' "c d" e\\ f g'h'"i"`))).toEqual(["echo", "a b", "c d", "e f", "ghi"]);
    expect(values(simple(`echo "a \\"q\\" \\$x \\\\ \\n"`))).toEqual(["echo", 'a "q" $x \\ \\n']);
    expect(values(simple(`echo $'plain' $"locale"`))).toEqual(["echo", "plain", "locale"]);
  });

  it("marks expansions as computed and keeps the static prefix", () => {
    const words = simple(`echo $x "a$x" pre\${y}post $(pwd) \`pwd\` $((1+2)) <(ls) $'a\\tb'`).words;
    expect(words.map((w) => [w.value, w.prefix])).toEqual([
      ["echo", "echo"],
      [null, ""],
      [null, "a"],
      [null, "pre"],
      [null, ""],
      [null, ""],
      [null, ""],
      [null, "/dev/fd/"],
      [null, "a"],
    ]);
  });

  it("counts unquoted brace expansion as an expansion, but not quoted braces or {}", () => {
    expect(values(simple(`echo {a,b} x{1..3} '{a,b}' {} {x}`))).toEqual(["echo", null, null, "{a,b}", "{}", "{x}"]);
  });

  it("parses command substitutions recursively, also inside double quotes and ${...}", () => {
    const word = simple(`echo "$(ls "a b" | wc -l)" \${v:-$(pwd)}`).words;
    expect(commands(word[1]?.substitutions[0] ?? { items: [] }).map((c) => c.text)).toEqual(['ls "a b"', "wc -l"]);
    expect(commands(word[2]?.substitutions[0] ?? { items: [] }).map((c) => c.text)).toEqual(["pwd"]);
  });

  it("unescapes nested backquotes", () => {
    const outer = simple("echo `ls \\`pwd\\``").words[1]?.substitutions[0];
    const inner = outer && commands(outer)[0];
    expect(inner?.kind === "simple" ? inner.words[1]?.substitutions.length : -1).toBe(1);
  });

  it("keeps the arithmetic expressions and parameter expansions of a word", () => {
    const word = simple('echo "$((x + 1))${a[i]:-$[2*3]}"').words[1];
    expect(word?.arithmetic).toEqual(["x + 1", "2*3"]);
    expect(word?.parameters).toEqual(["a[i]:-$[2*3]"]);
    expect(simple("a=([k]=v [2]=w)").assignments[0]?.arithmetic).toEqual(["k", "2"]);
    expect(commands(parsed("((n > 1))"))[0]).toMatchObject({ kind: "arithmetic", words: [{ arithmetic: ["n > 1"] }] });
  });

  it("separates assignments from words", () => {
    const command = simple("A=1 B+=2 c[0]=3 cmd D=4");
    expect(command.assignments.map((w) => w.raw)).toEqual(["A=1", "B+=2", "c[0]=3"]);
    expect(values(command)).toEqual(["cmd", "D=4"]);
    expect(simple("arr=(1 2 $(pwd))").assignments[0]?.substitutions).toHaveLength(1);
  });
});

describe("parseShell: lists and compound commands", () => {
  it("splits lists and pipelines with their separators", () => {
    const list = parsed("a && b || c; d & e\nf | g |& h");
    expect(list.items.map((i) => [i.pipeline.commands.map((c) => c.text), i.separator])).toEqual([
      [["a"], "&&"],
      [["b"], "||"],
      [["c"], ";"],
      [["d"], "&"],
      [["e"], "\n"],
      [["f", "g", "h"], ""],
    ]);
  });

  it("keeps reserved words as keywords of the commands they start or close", () => {
    const all = commands(parsed("if ! grep -q x f; then cat f; else echo no; fi > out"));
    expect(all.map((c) => (c.kind === "simple" ? [c.keywords, values(c)] : c.kind))).toEqual([
      [
        ["if", "!"],
        ["grep", "-q", "x", "f"],
      ],
      [["then"], ["cat", "f"]],
      [["else"], ["echo", "no"]],
      [["fi"], []],
    ]);
    expect(all[3]?.kind === "simple" ? all[3].redirects.map((r) => r.text) : []).toEqual(["> out"]);
  });

  it("parses loops, subshells, arithmetic and conditionals", () => {
    expect(simple("for f in a b; do echo; done").keywords).toEqual(["for"]);
    expect(values(simple("for ((i=0;i<2;i++)); do :; done"))).toEqual([null]);
    const kinds = commands(parsed("(ls; pwd) > f; ((x > 1)); [[ a < b && -f c ]]")).map((c) => c.kind);
    expect(kinds).toEqual(["subshell", "arithmetic", "conditional"]);
    const subshell = commands(parsed("(ls; pwd) 2>/dev/null"))[0];
    expect(subshell?.kind === "subshell" ? [commands(subshell.body).length, subshell.redirects[0]?.fd] : []).toEqual([2, 2]);
  });

  it("reads $((...)) as arithmetic and $((...) ...) as a substitution of a subshell", () => {
    expect(simple("echo $((1 + 2))").words[1]?.substitutions).toEqual([]);
    const sub = simple("echo $((ls) ; (pwd))").words[1]?.substitutions[0];
    expect(sub ? commands(sub).map((c) => c.kind) : []).toEqual(["subshell", "subshell"]);
  });

  it("skips comments and line continuations", () => {
    expect(values(simple("ls -l \\\n  docs # > out"))).toEqual(["ls", "-l", "docs"]);
    expect(simple("ls # > out").redirects).toEqual([]);
    expect(values(simple("echo a#b"))).toEqual(["echo", "a#b"]);
  });
});

describe("parseShell: redirections and here-documents", () => {
  it("reads operators, fds and targets", () => {
    const redirects = simple("cmd >a >>b 2>c &>d &>>e 2>&1 >&2 <f <>g >|h 3<&0").redirects;
    expect(redirects.map((r) => [r.fd, r.op, r.target.value])).toEqual([
      [null, ">", "a"],
      [null, ">>", "b"],
      [2, ">", "c"],
      [null, "&>", "d"],
      [null, "&>>", "e"],
      [2, ">&", "1"],
      [null, ">&", "2"],
      [null, "<", "f"],
      [null, "<>", "g"],
      [null, ">|", "h"],
      [3, "<&", "0"],
    ]);
  });

  it("reads here-document bodies after the line, with substitutions only for unquoted delimiters", () => {
    const list = parsed("cat <<EOF; cat <<'END'\n$(date) > x\nEOF\n$(pwd)\nEND\nls");
    const [first, second, third] = commands(list);
    const doc = (c: ShellCommand | undefined) => (c?.kind === "simple" ? c.redirects[0]?.heredoc : undefined);
    expect(doc(first)).toMatchObject({ body: "$(date) > x\n", quoted: false });
    expect(doc(first)?.substitutions).toHaveLength(1);
    expect(doc(second)).toMatchObject({ body: "$(pwd)\n", quoted: true, substitutions: [] });
    expect(third?.text).toBe("ls");
  });

  it("strips leading tabs with <<- and takes here-strings as words", () => {
    expect(simple("cat <<-X\n\tbody\n\tX").redirects[0]?.heredoc?.body).toBe("body\n");
    expect(simple("grep a <<< 'x > y'").redirects[0]).toMatchObject({ op: "<<<", target: { value: "x > y" } });
  });
});

describe("parseShell: errors", () => {
  it.each([
    ["echo 'a", "unterminated single quote"],
    ['echo "a', "unterminated double quote"],
    ["echo `a", "unterminated backquote"],
    ["echo $(a", "missing )"],
    ["echo ${a", "unterminated ${"],
    ["(a", "missing )"],
    ["a )", 'unexpected ")"'],
    ["a |", "needs a command"],
    ["a ||", "needs a command"],
    ["; a", "expected a command"],
    ["a > ", "needs a target"],
    ["case a in b) c;; esac", "case statements are not supported"],
    ["f() { a; }", "defining shell functions is not supported"],
    ["[[ a", "unterminated [["],
  ])("%j: %s", (source, message) => {
    const result = parseShell(source);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(message);
  });

  it("limits nesting", () => {
    expect(parseShell(`echo ${"$(".repeat(100)}${")".repeat(100)}`)).toMatchObject({
      ok: false,
      error: expect.stringContaining("too deeply"),
    });
  });
});

describe("parseShell: laws", () => {
  it("a single-quoted word is exactly its text", () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !s.includes("'")),
        (text) => {
          const words = simple(`echo '${text}'`).words;
          expect(words).toHaveLength(2);
          expect(words[1]?.value).toBe(text);
        },
      ),
    );
  });

  it("parsing never throws", () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom(
            "a",
            " ",
            "'",
            '"',
            "`",
            "$",
            "(",
            ")",
            "{",
            "}",
            ";",
            "&",
            "|",
            "<",
            ">",
            "\n",
            "\\",
            "#",
            "[[",
            "]]",
            "<<",
          ),
        }),
        (source) => {
          const result = parseShell(source);
          expect(typeof result.ok).toBe("boolean");
        },
      ),
    );
  });
});
