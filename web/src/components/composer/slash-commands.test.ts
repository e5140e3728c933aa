import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Model, SlashCommand } from "../../../../domain/runtime/runtime-types.ts";
import { FAST_MODEL, FAUX_MODEL } from "./composer.fixture.ts";
import {
  BUILTIN_COMMANDS,
  chooseItem,
  commandCatalog,
  filterCommands,
  invocationOf,
  matchModel,
  matchThinkingLevel,
  MENU_LIMIT,
  menuContextOf,
  menuOf,
  submissionOf,
  unknownCommandText,
  type CommandItem,
  type MenuItem,
  type MenuSources,
} from "./slash-commands.ts";

const RUNTIME: SlashCommand[] = [
  { name: "ask", description: "Ask a question", source: "extension" },
  { name: "review", description: "Review the diff", source: "prompt" },
  { name: "skill:pdf", description: "Read PDFs", source: "skill" },
  // A runtime command named like a built-in: the built-in wins.
  { name: "model", description: "An extension's model command", source: "extension" },
];

const sources = (overrides: Partial<MenuSources> = {}): MenuSources => ({
  commands: commandCatalog(RUNTIME),
  models: [FAUX_MODEL, FAST_MODEL],
  currentModel: "faux/faux-1",
  levels: ["off", "low", "high"],
  currentLevel: "low",
  ...overrides,
});

const labels = (text: string, overrides: Partial<MenuSources> = {}) => menuOf(text, sources(overrides)).items.map((item) => item.label);

describe("commandCatalog", () => {
  it("lists the built-ins first, then the runtime's commands once each, a built-in name winning", () => {
    const catalog = commandCatalog(RUNTIME);
    expect(catalog.map((c) => `${c.source}:${c.name}`)).toEqual([
      ...BUILTIN_COMMANDS.map((c) => `builtin:${c.name}`),
      "extension:ask",
      "prompt:review",
      "skill:skill:pdf",
    ]);
    expect(catalog.find((c) => c.name === "model")?.description).toContain("Select a model");
  });

  it("has only the built-ins before a runtime reports its commands", () => {
    expect(commandCatalog(null).map((c) => c.name)).toEqual([
      "model",
      "thinking",
      "compact",
      "name",
      "tree",
      "fork",
      "export",
      "reload",
      "new",
    ]);
  });
});

describe("filterCommands", () => {
  it("puts names starting with the query first, then names containing it, case-insensitively", () => {
    expect(labels("/re")).toEqual(["/reload", "/review", "/tree"]);
    expect(labels("/E")).toEqual(["/export", "/model", "/name", "/tree", "/reload", "/new", "/review"]);
    expect(labels("/")).toHaveLength(12);
    expect(labels("/zzz")).toEqual([]);
  });

  const nameArb = fc.string({ minLength: 1, maxLength: 6, unit: fc.constantFrom("a", "b", "c", "A", ":", "-") });
  const catalogArb = fc
    .uniqueArray(nameArb, { maxLength: 12 })
    .map((names) =>
      names.map((name): CommandItem => ({ name, description: "", source: "extension", argumentHint: "", argument: "optional" })),
    );
  const queryArb = fc.string({ maxLength: 3, unit: fc.constantFrom("a", "b", "c", "B", ":") });

  it("puts a name typed out exactly first: /exp runs the extension's exp, not /export", () => {
    const withExp = commandCatalog([{ name: "exp", description: "An experiment", source: "extension" }]);
    expect(labels("/exp", { commands: withExp })).toEqual(["/exp", "/export"]);
    expect(chooseItem(menuOf("/exp", sources({ commands: withExp })).items[0] as MenuItem, "/exp")).toEqual({ text: "/exp", submit: true });
    // Case-insensitively.
    expect(labels("/EXP", { commands: withExp })[0]).toBe("/exp");
  });

  it("finds exactly the commands whose name contains the query, each once: exact, then prefixes, then the rest (property)", () => {
    fc.assert(
      fc.property(catalogArb, queryArb, (catalog, query) => {
        const found = filterCommands(catalog, query);
        const q = query.toLowerCase();
        const expected = catalog.filter((c) => c.name.toLowerCase().includes(q));
        expect(new Set(found)).toEqual(new Set(expected));
        expect(found).toHaveLength(expected.length);
        const rank = (c: CommandItem) => {
          const name = c.name.toLowerCase();
          return name === q ? 0 : name.startsWith(q) ? 1 : 2;
        };
        // Groups in rank order, each keeping the catalog's order.
        const key = (c: CommandItem) => rank(c) * 1000 + catalog.indexOf(c);
        expect(found.map(key)).toEqual([...found.map(key)].sort((a, b) => a - b));
      }),
    );
  });

  it("lists everything for an empty query (property)", () => {
    fc.assert(
      fc.property(catalogArb, (catalog) => {
        expect(filterCommands(catalog, "")).toEqual(catalog);
      }),
    );
  });
});

describe("submissionOf", () => {
  it("runs built-ins with their argument, sends runtime commands, and stops unknown ones", () => {
    expect(submissionOf("/model openai/gpt-6-astra", RUNTIME)).toMatchObject({
      kind: "builtin",
      command: { name: "model" },
      args: "openai/gpt-6-astra",
    });
    expect(submissionOf("/compact keep the API notes\nand the tests", RUNTIME)).toMatchObject({
      kind: "builtin",
      args: "keep the API notes\nand the tests",
    });
    expect(submissionOf("/tree", null)).toMatchObject({ kind: "builtin", command: { name: "tree", argument: "none" } });
    expect(submissionOf("/ask what is this?", RUNTIME)).toEqual({ kind: "runtime", name: "ask" });
    expect(submissionOf("/skill:pdf report.pdf", RUNTIME)).toEqual({ kind: "runtime", name: "skill:pdf" });
    expect(submissionOf("/deploy now", RUNTIME)).toEqual({ kind: "unknown", name: "deploy", hint: "" });
    expect(submissionOf("/settings", RUNTIME)).toMatchObject({ kind: "unknown", name: "settings" });
  });

  it("sends paths and prose as text: a second slash, a first character that is no letter or digit, or no leading slash", () => {
    for (const text of [
      "/etc/hosts is broken",
      "/usr/local/bin",
      "/ a lone slash",
      "/",
      "/* comment */",
      "/-v",
      " /tree",
      "tree /fork",
      "hello",
    ]) {
      expect(submissionOf(text, RUNTIME), text).toEqual({ kind: "text" });
    }
  });

  it("waits for the runtime for a /word that is not a built-in before pi runs", () => {
    expect(submissionOf("/ask why", null)).toEqual({ kind: "pending", name: "ask" });
    expect(submissionOf("/etc/hosts", null)).toEqual({ kind: "text" });
    expect(submissionOf("/quit", null)).toMatchObject({ kind: "unknown" });
  });

  it("says what is unknown, and where the browser has a terminal command", () => {
    expect(unknownCommandText("deploy", "")).toBe("Unknown command /deploy");
    expect(unknownCommandText("copy", "use the copy button on a message")).toBe(
      "/copy is a command of pi's terminal: use the copy button on a message.",
    );
  });

  it("never calls a draft without a leading slash a command, and parses name and argument back (property)", () => {
    const word = fc
      .string({ minLength: 1, maxLength: 8, unit: fc.constantFrom("a", "z", "0", ":", "-", "é") })
      .filter((w) => /^[a-z0-9é]/.test(w));
    const args = fc.string({ maxLength: 20, unit: fc.constantFrom("a", " ", "\n", "/", "x") });
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (text) => {
        if (!text.startsWith("/")) expect(submissionOf(text, RUNTIME)).toEqual({ kind: "text" });
      }),
    );
    fc.assert(
      fc.property(word, args, (name, rest) => {
        const parsed = invocationOf(`/${name} ${rest}`);
        expect(parsed).toEqual({ name, args: rest.trim() });
        const submission = submissionOf(`/${name} ${rest}`, []);
        expect(["builtin", "unknown"]).toContain(submission.kind);
      }),
    );
  });
});

describe("the menu", () => {
  it("opens on a command name being typed and on the argument of /model and /thinking only", () => {
    expect(menuContextOf("/")).toEqual({ kind: "commands", query: "" });
    expect(menuContextOf("/mo")).toEqual({ kind: "commands", query: "mo" });
    expect(menuContextOf("/model ")).toEqual({ kind: "argument", command: "model", query: "" });
    expect(menuContextOf("/model open")).toEqual({ kind: "argument", command: "model", query: "open" });
    expect(menuContextOf("/thinking hi")).toEqual({ kind: "argument", command: "thinking", query: "hi" });
    for (const text of ["", "hello", "/etc/hosts", "/compact now", "/model a b", "/mo\nmore", " /mo"]) {
      expect(menuContextOf(text), text).toEqual({ kind: "none" });
    }
  });

  it("shows each command with its argument, description and source; built-ins carry no source badge", () => {
    const items = menuOf("/", sources()).items;
    expect(items.find((i) => i.label === "/model")).toMatchObject({
      hint: "[provider/model]",
      badge: "",
      completion: "/model ",
      runs: false,
    });
    expect(items.find((i) => i.label === "/tree")).toMatchObject({ hint: "", completion: "/tree", runs: true });
    expect(items.find((i) => i.label === "/ask")).toMatchObject({ description: "Ask a question", badge: "extension", completion: "/ask " });
    expect(items.find((i) => i.label === "/skill:pdf")?.badge).toBe("skill");
  });

  it("completes models and thinking levels, marking the current one", () => {
    expect(labels("/model ")).toEqual(["faux/faux-1", "openai/gpt-6-astra"]);
    expect(labels("/model astra")).toEqual(["openai/gpt-6-astra"]);
    // By display name too.
    expect(labels("/model one")).toEqual(["faux/faux-1"]);
    const model = menuOf("/model fa", sources()).items[0];
    expect(model).toMatchObject({ badge: "current", completion: "/model faux/faux-1", runs: true, hint: "Faux One" });
    expect(labels("/thinking ")).toEqual(["off", "low", "high"]);
    expect(menuOf("/thinking l", sources()).items[0]).toMatchObject({ label: "low", badge: "current", completion: "/thinking low" });
  });

  it("puts the model typed out exactly first, by provider/id, id or name, so Enter picks it and not a longer id", () => {
    const model = (provider: string, id: string, name = id): Model => ({ ...FAUX_MODEL, provider, id, name });
    const models = [model("anthropic", "claude-sonnet-4-5"), model("anthropic", "claude-sonnet-4", "Sonnet")];
    for (const typed of [
      "/model anthropic/claude-sonnet-4",
      "/model claude-sonnet-4",
      "/model Anthropic/Claude-Sonnet-4",
      "/model sonnet",
    ]) {
      const first = menuOf(typed, sources({ models })).items[0] as MenuItem;
      expect(chooseItem(first, typed)).toEqual({ text: "/model anthropic/claude-sonnet-4", submit: true });
    }
    expect(labels("/model claude-sonnet", { models })).toEqual(["anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4"]);
  });

  it("shows at most MENU_LIMIT options and counts the rest", () => {
    const many: SlashCommand[] = Array.from({ length: MENU_LIMIT + 7 }, (_, i) => ({ name: `cmd${i}`, source: "prompt" }));
    const menu = menuOf("/cmd", sources({ commands: commandCatalog(many) }));
    expect(menu.items).toHaveLength(MENU_LIMIT);
    expect(menu.more).toBe(7);
  });

  it("Enter runs a command without argument, completes one with an argument, and runs one typed out in full", () => {
    const item = (text: string, label: string) => {
      const found = menuOf(text, sources()).items.find((i) => i.label === label);
      if (found === undefined) throw new Error(`no ${label}`);
      return found;
    };
    expect(chooseItem(item("/tr", "/tree"), "/tr")).toEqual({ text: "/tree", submit: true });
    expect(chooseItem(item("/mo", "/model"), "/mo")).toEqual({ text: "/model ", submit: false });
    expect(chooseItem(item("/model", "/model"), "/model")).toEqual({ text: "/model", submit: true });
    expect(chooseItem(item("/compact", "/compact"), "/compact")).toEqual({ text: "/compact", submit: true });
    // /name needs its argument: Enter on it typed in full still waits for the name.
    expect(chooseItem(item("/name", "/name"), "/name")).toEqual({ text: "/name ", submit: false });
    expect(chooseItem(item("/as", "/ask"), "/as")).toEqual({ text: "/ask ", submit: false });
    expect(chooseItem(item("/model gpt", "openai/gpt-6-astra"), "/model gpt")).toEqual({ text: "/model openai/gpt-6-astra", submit: true });
  });
});

describe("arguments", () => {
  const models = [FAUX_MODEL, FAST_MODEL, { ...FAST_MODEL, provider: "openrouter", name: "Astra via OpenRouter" }];

  it("names a model by provider/id, by a unique id, or by a unique part; says when it is ambiguous or unknown", () => {
    expect(matchModel(models, "faux/faux-1")).toEqual({ model: { provider: "faux", id: "faux-1" } });
    expect(matchModel(models, "faux-1")).toEqual({ model: { provider: "faux", id: "faux-1" } });
    expect(matchModel(models, "openrouter/gpt-6-astra")).toEqual({ model: { provider: "openrouter", id: "gpt-6-astra" } });
    expect(matchModel(models, "gpt-6-astra")).toEqual({ error: expect.stringContaining("matches 2 models") });
    expect(matchModel(models, "nothing")).toEqual({ error: "No model matches “nothing”." });
    // Not listed, but explicit: pi accepts or refuses it.
    expect(matchModel([], "anthropic/claude-x")).toEqual({ model: { provider: "anthropic", id: "claude-x" } });
  });

  it("checks a thinking level against the levels when they are known", () => {
    expect(matchThinkingLevel(["off", "low", "high"], "HIGH")).toEqual({ level: "high" });
    expect(matchThinkingLevel(["off", "low", "high"], "max")).toEqual({ error: "Unknown thinking level “max”: choose off, low, high." });
    expect(matchThinkingLevel([], "medium")).toEqual({ level: "medium" });
  });
});
