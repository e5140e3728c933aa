import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  desktopEditorArgs,
  EDITOR_ASSIGNMENT,
  EDITOR_CONTROL_CHARACTER,
  EDITOR_NO_PROGRAM,
  EDITOR_RELATIVE_PROGRAM,
  EDITOR_TOO_LONG,
  EDITOR_TRAILING_BACKSLASH,
  EDITOR_UNTERMINATED_QUOTE,
  formatEditorCommand,
  isKnownTerminalEditor,
  parseEditorCommand,
  runsInTerminal,
  terminalEditorArgs,
} from "./editor-command.ts";

function argv(command: string): readonly string[] {
  const parsed = parseEditorCommand(command);
  if (!parsed.ok) throw new Error(`expected ${JSON.stringify(command)} to parse: ${parsed.error}`);
  return parsed.argv;
}

function refusal(command: string): string {
  const parsed = parseEditorCommand(command);
  if (parsed.ok) throw new Error(`expected ${JSON.stringify(command)} to be refused, got ${JSON.stringify(parsed.argv)}`);
  return parsed.error;
}

describe("parseEditorCommand: words", () => {
  it("splits on spaces, trims, and keeps quoted text as one argument", () => {
    expect(argv("  code --wait  ")).toEqual(["code", "--wait"]);
    expect(argv(`'/opt/My Editor/bin/edit' -n "two words" a\\ b`)).toEqual(["/opt/My Editor/bin/edit", "-n", "two words", "a b"]);
    expect(argv(`vim -c 'set ft=*' "-c" 'it'\\''s'`)).toEqual(["vim", "-c", "set ft=*", "-c", "it's"]);
    expect(argv(`edit "a \\"q\\" \\$x \\\\ \\n"`)).toEqual(["edit", 'a "q" $x \\ \\n']);
    expect(argv(`edit 'a;b|c' "x&y" '$HOME' '\`ls\`' '~/x' '#1'`)).toEqual(["edit", "a;b|c", "x&y", "$HOME", "`ls`", "~/x", "#1"]);
    expect(argv(`edit ''`)).toEqual(["edit", ""]);
    expect(argv("a~b c#d e=f")).toEqual(["a~b", "c#d", "e=f"]);
    expect(argv("")).toEqual([]);
    expect(argv("   ")).toEqual([]);
  });

  it("refuses shell operators, expansions, substitutions, globs and braces outside single quotes", () => {
    for (const command of ["vim; rm -rf /", "vim | tee", "vim && x", "vim &", "vim < f", "vim > f", "(vim)", "vim )"]) {
      expect(refusal(command)).toMatch(/^Shell operators are not supported/);
    }
    for (const command of ["vim $HOME", "vim ${X}", "vim $(pwd)", `vim "$HOME"`, "$EDITOR"]) {
      expect(refusal(command)).toMatch(/^Expansions are not supported/);
    }
    expect(refusal("vim `pwd`")).toMatch(/^Command substitution is not supported/);
    expect(refusal('vim "`pwd`"')).toMatch(/^Command substitution is not supported/);
    for (const command of ["vim *.md", "vim a?", "vim [ab]", "vim {a,b}"]) {
      expect(refusal(command)).toMatch(/^Glob patterns and brace expansion are not supported/);
    }
    expect(refusal("~/bin/edit")).toMatch(/^Tilde expansion is not supported/);
    expect(refusal("vim # comment")).toMatch(/^Comments are not supported/);
  });

  it("refuses control characters, overlong commands, bad quoting, assignments and relative programs", () => {
    expect(refusal("vim\tfile")).toBe(EDITOR_CONTROL_CHARACTER);
    expect(refusal("vim 'a\nb'")).toBe(EDITOR_CONTROL_CHARACTER);
    expect(refusal("vim \u0000")).toBe(EDITOR_CONTROL_CHARACTER);
    expect(refusal(`code ${"x".repeat(4092)}`)).toBe(EDITOR_TOO_LONG);
    expect(argv(`code ${"x".repeat(4091)}`)).toHaveLength(2);
    expect(refusal("vim 'unclosed")).toBe(EDITOR_UNTERMINATED_QUOTE);
    expect(refusal('vim "unclosed')).toBe(EDITOR_UNTERMINATED_QUOTE);
    expect(refusal("vim \\")).toBe(EDITOR_TRAILING_BACKSLASH);
    expect(refusal("TERM=xterm vim")).toBe(EDITOR_ASSIGNMENT);
    expect(argv("'TERM=xterm' vim")).toEqual(["TERM=xterm", "vim"]);
    expect(refusal("'' file")).toBe(EDITOR_NO_PROGRAM);
    expect(refusal("./bin/edit")).toBe(EDITOR_RELATIVE_PROGRAM);
    expect(refusal("bin/edit")).toBe(EDITOR_RELATIVE_PROGRAM);
  });
});

describe("terminal editors", () => {
  it("detects known terminal editors by program name", () => {
    for (const command of [
      "vim",
      "/usr/bin/nvim",
      "nano -w",
      "hx",
      "micro",
      "kak",
      "emacs -nw",
      "emacs --no-window-system",
      "emacsclient -t",
      "emacsclient --tty",
    ]) {
      expect(isKnownTerminalEditor(argv(command)), command).toBe(true);
    }
    for (const command of ["code --wait", "emacs", "emacsclient -c", "gvim", "subl", "/opt/vim-like/editor"]) {
      expect(isKnownTerminalEditor(argv(command)), command).toBe(false);
    }
  });

  it("lets the mode decide, auto detecting", () => {
    expect(runsInTerminal(["code"], "terminal")).toBe(true);
    expect(runsInTerminal(["vim"], "desktop")).toBe(false);
    expect(runsInTerminal(["vim"], "auto")).toBe(true);
    expect(runsInTerminal(["code"], "auto")).toBe(false);
    expect(runsInTerminal([], "terminal")).toBe(false);
  });
});

describe("editor arguments", () => {
  it("opens a desktop editor with --goto for VS Code-like editors, the path otherwise", () => {
    expect(desktopEditorArgs(["code", "--wait"], "/p/a.ts", 12, 5)).toEqual(["--wait", "--goto", "/p/a.ts:12:5"]);
    expect(desktopEditorArgs(["/usr/bin/codium"], "/p/a.ts", 3)).toEqual(["--goto", "/p/a.ts:3"]);
    expect(desktopEditorArgs(["code"], "/p/a.ts")).toEqual(["/p/a.ts"]);
    expect(desktopEditorArgs(["gedit", "-s"], "/p/a;b $HOME.ts", 3)).toEqual(["-s", "/p/a;b $HOME.ts"]);
  });

  it("opens a terminal editor at the line when it takes one", () => {
    expect(terminalEditorArgs(["vim"], "/p/a.ts", 12)).toEqual(["+12", "/p/a.ts"]);
    expect(terminalEditorArgs(["emacs", "-nw"], "/p/a.ts", 2)).toEqual(["-nw", "+2", "/p/a.ts"]);
    expect(terminalEditorArgs(["hx"], "/p/a.ts", 7)).toEqual(["/p/a.ts:7"]);
    expect(terminalEditorArgs(["ed"], "/p/a.ts", 7)).toEqual(["/p/a.ts"]);
    expect(terminalEditorArgs(["nano"], "/p/a.ts")).toEqual(["/p/a.ts"]);
  });
});

const word = fc
  .string({ unit: "grapheme", maxLength: 12 })
  .filter((w) => ![...w].some((c) => c.charCodeAt(0) <= 0x1f || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f)));
const program = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_.+-]{1,12}$/),
  fc
    .array(
      word.filter((w) => w !== "" && !w.includes("/")),
      { minLength: 1, maxLength: 3 },
    )
    .map((parts) => `/${parts.join("/")}`),
);
const editorArgv = fc.tuple(program, fc.array(word, { maxLength: 5 })).map(([p, args]) => [p, ...args]);

describe("parseEditorCommand: laws", () => {
  it("reads a formatted argv back unchanged", () => {
    fc.assert(
      fc.property(editorArgv, (words) => {
        fc.pre(formatEditorCommand(words).length <= 4096 && words[0]?.trim() === words[0]);
        expect(argv(formatEditorCommand(words))).toEqual(words);
      }),
    );
  });

  it("refuses a valid command with an unquoted shell operator, expansion or substitution added", () => {
    const special = fc.constantFrom("|", "&", ";", "<", ">", "(", ")", "`", "$", "$HOME", "${X}", "$(id)", "&&", "||", "*", "?", "[");
    fc.assert(
      fc.property(editorArgv, special, fc.boolean(), (words, op, spaced) => {
        const command = formatEditorCommand(words);
        expect(parseEditorCommand(spaced ? `${command} ${op} x` : `${command}${op}`).ok).toBe(false);
      }),
    );
  });

  it("refuses any command with a control character inside", () => {
    const control = fc
      .integer({ min: 0, max: 0x9f })
      .filter((code) => code <= 0x1f || code >= 0x7f)
      .map((code) => String.fromCharCode(code));
    fc.assert(
      fc.property(editorArgv, control, fc.nat(), (words, c, at) => {
        const command = formatEditorCommand(words);
        const index = 1 + (at % command.length);
        // Inside (not at the trimmed ends): after the first character, before the end, then one more word after it.
        const withControl = `${command.slice(0, index)}${c}${command.slice(index)} x`;
        expect(parseEditorCommand(withControl).ok).toBe(false);
      }),
    );
  });
});
