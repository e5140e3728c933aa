/**
 * Slash commands of the composer, pure: the catalog (pi's built-in commands that Leyline maps to its own actions,
 * then the runtime's extension, prompt-template and skill commands from `active.state.slashCommands`), what the
 * autocomplete menu lists for a draft, what Enter and Tab make of a chosen item, and what a submitted draft is.
 * (The menu's keys and highlight are completion-menu.ts's, shared with the `@file` mentions.)
 *
 * Rules kept here:
 * - Only a draft whose very first character is `/` is a command; its name is the first token, up to white space.
 * - A first token that holds a second `/` (`/etc/hosts is broken`), or that does not start with a letter or a
 *   digit (`/*`, `/-v`), is a path or prose: the draft is sent as text.
 * - Built-ins win over a runtime command of the same name (as in pi's editor); the runtime's commands are sent
 *   to pi as a prompt (pi runs them); any other `/word` is unknown and is not sent unless the person says so.
 * - Until a runtime reports its commands (`runtime` null), a `/word` that is not a built-in is "pending": it is
 *   resolved once pi runs.
 * - Filtering is case-insensitive: a name equal to the query first (so Enter on `/exp` typed out runs `exp`, not
 *   `/export`; `/model a/b` picks `a/b`, not `a/b-2`), then names starting with it, then names containing it, each
 *   group in catalog order.
 * No Vue, no DOM.
 */
import type { Model, SlashCommand, SlashCommandSource } from "../../../../domain/runtime/runtime-types.ts";
import type { CompletionItem } from "./completion-menu.ts";
import { modelKey } from "./composer-logic.ts";

export type BuiltinName = "model" | "thinking" | "compact" | "name" | "tree" | "fork" | "export" | "reload" | "new";

export interface BuiltinCommand {
  name: BuiltinName;
  description: string;
  /** How the argument is written in the menu ("" without one). */
  argumentHint: string;
  argument: "none" | "optional" | "required";
  /** The runtime must be idle (pi refuses it during a turn). */
  needsIdle: boolean;
}

/** pi's built-in commands that make sense in the browser, mapped to Leyline's actions (the composer runs them). */
export const BUILTIN_COMMANDS: readonly BuiltinCommand[] = [
  {
    name: "model",
    description: "Select a model (without one: open the model picker)",
    argumentHint: "[provider/model]",
    argument: "optional",
    needsIdle: true,
  },
  { name: "thinking", description: "Set the thinking level", argumentHint: "[level]", argument: "optional", needsIdle: false },
  {
    name: "compact",
    description: "Compact the context, optionally with instructions",
    argumentHint: "[instructions]",
    argument: "optional",
    needsIdle: true,
  },
  { name: "name", description: "Rename the session", argumentHint: "<name>", argument: "required", needsIdle: false },
  { name: "tree", description: "Open the session tree", argumentHint: "", argument: "none", needsIdle: false },
  { name: "fork", description: "Fork from an earlier entry (in the session tree)", argumentHint: "", argument: "none", needsIdle: false },
  { name: "export", description: "Download the session as HTML", argumentHint: "", argument: "none", needsIdle: false },
  {
    name: "reload",
    description: "Reload extensions, skills, prompts and context files",
    argumentHint: "",
    argument: "none",
    needsIdle: true,
  },
  { name: "new", description: "Start a new session in this folder", argumentHint: "", argument: "none", needsIdle: false },
];

/**
 * pi terminal commands Leyline has no command for: submitting one says where the browser has it instead (never
 * sent to the model).
 */
export const TERMINAL_ONLY_HINTS: Readonly<Record<string, string>> = {
  settings: "open Settings in the top bar",
  login: "add providers in Settings",
  logout: "manage providers in Settings",
  "scoped-models": "manage models in Settings",
  mcp: "manage MCP servers in Settings",
  resume: "pick the session in the sidebar",
  session: "the header shows the session's folder and usage",
  clone: "use /fork, or Fork on an entry",
  copy: "use the copy button on a message",
  share: "use /export to download the session",
  import: "Leyline lists the sessions of pi's session folder",
  hotkeys: "Leyline has no terminal keybindings",
  changelog: "Leyline has no changelog view",
  quit: "close the tab",
};

export type CommandSource = "builtin" | SlashCommandSource;

/** One command the menu can list. */
export interface CommandItem {
  name: string;
  description: string;
  source: CommandSource;
  argumentHint: string;
  /** Runtime commands may take text after them; built-ins say so exactly. */
  argument: "none" | "optional" | "required";
}

/** Built-ins first, then the runtime's commands (a built-in name, or a repeated name, is listed once: the first). */
export function commandCatalog(runtime: readonly SlashCommand[] | null): CommandItem[] {
  const items: CommandItem[] = BUILTIN_COMMANDS.map((command) => ({
    name: command.name,
    description: command.description,
    source: "builtin",
    argumentHint: command.argumentHint,
    argument: command.argument,
  }));
  const seen = new Set(items.map((item) => item.name));
  for (const command of runtime ?? []) {
    if (command.name === "" || seen.has(command.name)) continue;
    seen.add(command.name);
    items.push({
      name: command.name,
      description: command.description ?? "",
      source: command.source,
      argumentHint: "",
      argument: "optional",
    });
  }
  return items;
}

/**
 * Items whose name matches `query` (case-insensitive): a name equal to it first, then names starting with it, then
 * names containing it; each group keeps the input order.
 */
export function filterByName<T>(items: readonly T[], query: string, nameOf: (item: T) => string): T[] {
  const q = query.toLowerCase();
  const exact: T[] = [];
  const prefix: T[] = [];
  const inner: T[] = [];
  for (const item of items) {
    const name = nameOf(item).toLowerCase();
    if (name === q) exact.push(item);
    else if (name.startsWith(q)) prefix.push(item);
    else if (name.includes(q)) inner.push(item);
  }
  return [...exact, ...prefix, ...inner];
}

export function filterCommands(items: readonly CommandItem[], query: string): CommandItem[] {
  return filterByName(items, query, (item) => item.name);
}

/**
 * The models matching `query` (case-insensitive): the ones it names exactly (their "provider/id", id or display
 * name) first, then by "provider/id" (prefix, then substring), then by display name.
 */
export function filterModels(models: readonly Model[], query: string): Model[] {
  const q = query.toLowerCase();
  const exact = models.filter((model) => [modelKey(model), model.id, model.name].some((name) => name.toLowerCase() === q));
  const byKey = filterByName(models, query, modelKey).filter((model) => !exact.includes(model));
  const byName = models.filter((model) => !exact.includes(model) && !byKey.includes(model) && model.name.toLowerCase().includes(q));
  return [...exact, ...byKey, ...byName];
}

// ---- parsing a draft -----------------------------------------------------------------------------------------

export interface Invocation {
  name: string;
  /** Everything after the name, trimmed (may span lines). */
  args: string;
}

/** The command a draft invokes: its first token after a leading `/`; null when the draft does not start with `/`. */
export function invocationOf(text: string): Invocation | null {
  const match = /^\/(\S*)([\s\S]*)$/.exec(text);
  if (match === null) return null;
  return { name: match[1] ?? "", args: (match[2] ?? "").trim() };
}

/** A first token that names no command by its shape: empty, a path (a second `/`) or not starting with a letter or digit. */
export function isCommandShaped(name: string): boolean {
  return /^[\p{L}\p{N}]/u.test(name) && !name.includes("/");
}

export function builtinNamed(name: string): BuiltinCommand | undefined {
  return BUILTIN_COMMANDS.find((command) => command.name === name);
}

/** What a submitted draft is. */
export type Submission =
  /** Not a command: sent as the prompt it is. */
  | { kind: "text" }
  | { kind: "builtin"; command: BuiltinCommand; args: string }
  /** A command of the runtime: the draft is sent as a prompt and pi runs it. */
  | { kind: "runtime"; name: string }
  /** No runtime yet: whether pi knows the command is known once it runs. */
  | { kind: "pending"; name: string }
  /** Not sent: `hint` says where the browser has it ("" when nothing does). */
  | { kind: "unknown"; name: string; hint: string };

export function submissionOf(text: string, runtime: readonly SlashCommand[] | null): Submission {
  const invocation = invocationOf(text);
  if (invocation === null) return { kind: "text" };
  const { name, args } = invocation;
  const builtin = builtinNamed(name);
  if (builtin !== undefined) return { kind: "builtin", command: builtin, args };
  if (runtime?.some((command) => command.name === name)) return { kind: "runtime", name };
  if (!isCommandShaped(name)) return { kind: "text" };
  const hint = TERMINAL_ONLY_HINTS[name];
  if (hint !== undefined) return { kind: "unknown", name, hint };
  return runtime === null ? { kind: "pending", name } : { kind: "unknown", name, hint: "" };
}

/** Whether the runtime's commands name `name` (a "pending" command is resolved with it once pi runs). */
export function runtimeKnows(runtime: readonly SlashCommand[], name: string): boolean {
  return runtime.some((command) => command.name === name);
}

export function unknownCommandText(name: string, hint: string): string {
  if (hint !== "") return `/${name} is a command of pi's terminal: ${hint}.`;
  return `Unknown command /${name}`;
}

// ---- model and thinking arguments ------------------------------------------------------------------------------

/**
 * The model `query` names: its exact "provider/id", else the one model with that id, else the one model whose key
 * or name contains it. An error in words otherwise.
 */
export function matchModel(models: readonly Model[], query: string): { model: { provider: string; id: string } } | { error: string } {
  const q = query.trim();
  const exact = models.find((model) => modelKey(model) === q);
  if (exact !== undefined) return { model: { provider: exact.provider, id: exact.id } };
  const byId = models.filter((model) => model.id === q);
  if (byId.length === 1 && byId[0] !== undefined) return { model: { provider: byId[0].provider, id: byId[0].id } };
  const candidates = byId.length > 1 ? byId : filterModels(models, q);
  if (candidates.length === 1 && candidates[0] !== undefined) return { model: { provider: candidates[0].provider, id: candidates[0].id } };
  if (candidates.length === 0) {
    // Not in the list (or no list yet): an explicit provider/id is left to pi to accept or refuse.
    const slash = q.indexOf("/");
    if (slash > 0 && slash < q.length - 1) return { model: { provider: q.slice(0, slash), id: q.slice(slash + 1) } };
    return { error: `No model matches “${q}”.` };
  }
  const names = candidates.slice(0, 5).map(modelKey).join(", ");
  return { error: `“${q}” matches ${candidates.length} models (${names}${candidates.length > 5 ? ", …" : ""}): say which.` };
}

/** A thinking level among `levels` (case-insensitive); an error in words when the list is known and lacks it. */
export function matchThinkingLevel(levels: readonly string[], query: string): { level: string } | { error: string } {
  const q = query.trim().toLowerCase();
  if (levels.length === 0) return { level: q };
  const level = levels.find((l) => l.toLowerCase() === q);
  return level !== undefined ? { level } : { error: `Unknown thinking level “${query.trim()}”: choose ${levels.join(", ")}.` };
}

// ---- the menu --------------------------------------------------------------------------------------------------

/** What the menu lists for a draft. */
export type MenuContext =
  /** Typing a command's name. */
  | { kind: "commands"; query: string }
  /** Typing the argument of /model or /thinking. */
  | { kind: "argument"; command: "model" | "thinking"; query: string }
  | { kind: "none" };

export function menuContextOf(text: string): MenuContext {
  const name = /^\/([^\s/]*)$/.exec(text);
  if (name !== null) return { kind: "commands", query: name[1] ?? "" };
  const argument = /^\/(model|thinking)[ \t]+(\S*)$/.exec(text);
  if (argument !== null) return { kind: "argument", command: argument[1] as "model" | "thinking", query: argument[2] ?? "" };
  return { kind: "none" };
}

/** One option of the menu (shown by CompletionMenu.vue: key, label, hint, description, badge). */
export interface MenuItem extends CompletionItem {
  /** "/model", or an argument ("openai/gpt-6"). */
  label: string;
  /** The argument's form, or the model's name. */
  hint: string;
  /** "" for built-ins; else the source (extension, prompt, skill) or "current". */
  badge: string;
  /** The draft after Tab. */
  completion: string;
  /** Enter on this option runs it at once (a command without an argument, or an argument). */
  runs: boolean;
  /** Enter on the name typed out in full runs it (its argument is optional). */
  runsWhenTyped: boolean;
}

/** Options shown at most (the rest: keep typing). */
export const MENU_LIMIT = 50;

export interface MenuSources {
  commands: readonly CommandItem[];
  models: readonly Model[];
  currentModel: string;
  levels: readonly string[];
  currentLevel: string;
}

export interface Menu {
  context: MenuContext;
  items: MenuItem[];
  /** Matches left out by MENU_LIMIT. */
  more: number;
}

function commandItem(item: CommandItem): MenuItem {
  return {
    key: `command:${item.name}`,
    label: `/${item.name}`,
    hint: item.argumentHint,
    description: item.description,
    badge: item.source === "builtin" ? "" : item.source,
    completion: item.argument === "none" ? `/${item.name}` : `/${item.name} `,
    runs: item.argument === "none",
    runsWhenTyped: item.argument !== "required",
  };
}

export function menuOf(text: string, sources: MenuSources): Menu {
  const context = menuContextOf(text);
  let all: MenuItem[] = [];
  if (context.kind === "commands") all = filterCommands(sources.commands, context.query).map(commandItem);
  else if (context.kind === "argument" && context.command === "model") {
    all = filterModels(sources.models, context.query).map((model) => {
      const key = modelKey(model);
      return {
        key: `model:${key}`,
        label: key,
        hint: model.name === model.id ? "" : model.name,
        description: "",
        badge: key === sources.currentModel ? "current" : "",
        completion: `/model ${key}`,
        runs: true,
        runsWhenTyped: true,
      };
    });
  } else if (context.kind === "argument") {
    all = filterByName(sources.levels, context.query, (level) => level).map((level) => ({
      key: `level:${level}`,
      label: level,
      hint: "",
      description: "",
      badge: level === sources.currentLevel ? "current" : "",
      completion: `/thinking ${level}`,
      runs: true,
      runsWhenTyped: true,
    }));
  }
  return { context, items: all.slice(0, MENU_LIMIT), more: Math.max(0, all.length - MENU_LIMIT) };
}

/** What choosing an option with Enter does: the new draft, and whether it is submitted now. */
export function chooseItem(item: MenuItem, text: string): { text: string; submit: boolean } {
  if (item.runs) return { text: item.completion, submit: true };
  // A command typed out in full (its optional argument left out) runs as it is.
  if (item.runsWhenTyped && text === item.completion.trimEnd()) return { text, submit: true };
  return { text: item.completion, submit: false };
}
