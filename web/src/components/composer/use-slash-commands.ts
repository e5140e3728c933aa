/**
 * Slash commands in the composer (the pure rules are slash-commands.ts's): the autocomplete menu of a draft that
 * starts with `/` (its state, its keys, choosing an option), running pi's built-in commands that Leyline maps to
 * its own actions (/model, /thinking, /compact, /name, /tree, /fork, /export, /reload, /new), and the unknown
 * `/word` that was not sent (shown while the draft is still the one submitted).
 *
 * Built-ins act through the composer (`act`, one runtime action at a time) or on their own (/name renames through
 * the sessions store, /new starts a session and opens it); a built-in that succeeded clears the input, unless the
 * person typed something else meanwhile. Sending (text, runtime commands, a `/word` pi may know) stays the
 * composer's.
 */
import { computed, inject, ref, watch, type ComputedRef, type Ref } from "vue";
import { routerKey } from "vue-router";
import type { Active, SlashCommand } from "../../../../domain/runtime/runtime-types.ts";
import { compact, reload, setModel, setThinkingLevel } from "../../api/runtime-actions.ts";
import { useNoticesStore } from "../../stores/notices.store.ts";
import { useOpenSessionStore } from "../../stores/open-session.store.ts";
import { useSessionsStore } from "../../stores/sessions.store.ts";
import { useWorkspaceStore } from "../../stores/workspace.store.ts";
import { startSession } from "../../views/start-session.ts";
import { menuKeyOf, moveHighlight } from "./completion-menu.ts";
import { modelKey } from "./composer-logic.ts";
import {
  chooseItem,
  commandCatalog,
  matchModel,
  matchThinkingLevel,
  menuOf,
  unknownCommandText,
  type BuiltinCommand,
} from "./slash-commands.ts";
import type { ModelPickers } from "./use-model-pickers.ts";

export const SLASH_MENU_ID = "composer-slash-menu";

/** The runtime action running now ("" for none). */
export type Acting = "" | "interrupt" | "compact" | "model" | "thinking" | "ultrafast" | "reload" | "name" | "new";
export type ActionKind = "interrupt" | "compact" | "model" | "thinking" | "ultrafast" | "reload";

export interface SlashCommandsHost {
  sessionId: () => string;
  /** The session's folder ("" when not known): where /new starts. */
  cwd: () => string;
  text: Ref<string>;
  focused: Ref<boolean>;
  error: Ref<string>;
  acting: Ref<Acting>;
  working: ComputedRef<boolean>;
  dormant: ComputedRef<boolean>;
  /** The runtime's commands; null until a runtime reports them. */
  runtimeCommands: ComputedRef<readonly SlashCommand[] | null>;
  pickers: ModelPickers;
  /** Runs a runtime action (one at a time); true when it succeeded. */
  act: (kind: ActionKind, run: () => Promise<{ active: Active }>) => Promise<boolean>;
  /** Sets the draft with the caret at its end. */
  setDraft: (next: string) => void;
  focus: () => void;
  send: () => Promise<void>;
  /** Focuses the model or thinking picker (and opens its list where the browser can); false when there is none. */
  openPicker: (kind: "model" | "thinking") => boolean;
  /** Downloads the session's HTML export; false when the backend serves no export. */
  exportSession: () => boolean;
  fail: (problem: unknown) => void;
}

export function useSlashCommands(host: SlashCommandsHost) {
  const { text, error, acting, pickers } = host;
  const workspace = useWorkspaceStore();
  const sessions = useSessionsStore();
  const openSession = useOpenSessionStore();
  const notices = useNoticesStore();
  const router = inject(routerKey, null);

  // ---- the menu ------------------------------------------------------------------------------------------------
  const commands = computed(() => commandCatalog(host.runtimeCommands.value));
  /** The draft Escape closed the menu on (it opens again once the draft changes). */
  const dismissed = ref<string | null>(null);
  const highlight = ref(0);

  const menu = computed(() =>
    menuOf(text.value, {
      commands: commands.value,
      models: pickers.models.value,
      currentModel: pickers.model.value === undefined ? "" : modelKey(pickers.model.value),
      levels: pickers.levels.value,
      currentLevel: pickers.thinking.value,
    }),
  );
  const open = computed(
    () => host.sessionId() !== "" && host.focused.value && menu.value.context.kind !== "none" && dismissed.value !== text.value,
  );
  const menuHighlight = computed(() => Math.min(highlight.value, Math.max(0, menu.value.items.length - 1)));
  const activeOption = computed(() =>
    open.value && menu.value.items.length > 0 ? `${SLASH_MENU_ID}-option-${menuHighlight.value}` : undefined,
  );
  const note = computed(() => {
    const { context, items } = menu.value;
    const notes: string[] = [];
    if (context.kind === "commands") {
      if (items.length === 0) notes.push(`No command matches /${context.query}.`);
      if (host.runtimeCommands.value === null) notes.push("Commands of extensions, prompt templates and skills are listed once pi runs.");
    } else if (context.kind === "argument" && items.length === 0) {
      if (context.command === "model") notes.push(pickers.previewState.value === "loading" ? "Loading the models…" : "No model matches.");
      else notes.push(pickers.levels.value.length === 0 ? "The thinking levels are known once pi runs." : "No thinking level matches.");
    }
    return notes.join(" ");
  });
  // A new draft: the first option again, and a menu closed with Escape opens again.
  watch(text, (draft) => {
    highlight.value = 0;
    if (dismissed.value !== draft) dismissed.value = null;
  });
  // Completing the model argument before pi runs: the folder's model list is fetched (once).
  watch(
    () => open.value && menu.value.context.kind === "argument",
    (listing) => {
      if (listing) void pickers.loadPreview();
    },
  );

  /** Handles a key while the menu is open; true when the key was the menu's. */
  function onKey(event: KeyboardEvent): boolean {
    if (!open.value) return false;
    const key = menuKeyOf(event);
    if (key === "none") return false;
    if (key === "close") {
      event.preventDefault();
      event.stopPropagation();
      dismissed.value = text.value;
      return true;
    }
    const count = menu.value.items.length;
    if (count === 0) return false;
    event.preventDefault();
    if (key === "next" || key === "previous") highlight.value = moveHighlight(menuHighlight.value, count, key === "next" ? 1 : -1);
    else if (key === "complete") host.setDraft(menu.value.items[menuHighlight.value]?.completion ?? text.value);
    else choose(menuHighlight.value);
    return true;
  }

  /** Enter or a click on an option: complete the draft with it, and run it when it is complete. */
  function choose(index: number): void {
    const item = menu.value.items[index];
    if (item === undefined) return;
    const next = chooseItem(item, text.value);
    host.setDraft(next.text);
    if (next.submit) void host.send();
    else host.focus();
  }

  // ---- an unknown command ----------------------------------------------------------------------------------------
  /** An unknown command that was not sent: shown while the draft is still the one submitted. */
  const unknown = ref<{ draft: string; message: string } | null>(null);
  const unknownShown = computed(() => (unknown.value !== null && unknown.value.draft === text.value ? unknown.value : null));

  /** Says that `draft` was not sent: its command `name` is unknown (`hint`: where the browser has it). */
  function markUnknown(draft: string, name: string, hint: string): void {
    unknown.value = { draft, message: unknownCommandText(name, hint) };
  }

  // ---- built-ins -------------------------------------------------------------------------------------------------
  /** Clears the input when it still holds `typed` (what was typed meanwhile stays). */
  function clearIfStill(typed: string): void {
    if (text.value === typed) text.value = "";
  }

  /** Runs a built-in command; the input is cleared when it succeeded. */
  async function runBuiltin(command: BuiltinCommand, args: string): Promise<void> {
    const typed = text.value;
    const sessionId = host.sessionId();
    error.value = "";
    if (command.needsIdle && host.working.value) {
      error.value = `/${command.name} waits until pi is idle: let the turn end, or interrupt it.`;
      return;
    }
    if (acting.value !== "") {
      error.value = "Another action is running: try again when it has finished.";
      return;
    }
    switch (command.name) {
      case "model": {
        if (args === "") {
          if (host.openPicker("model")) clearIfStill(typed);
          else error.value = "No model list here yet: name the model, as in /model provider/model.";
          return;
        }
        if (host.dormant.value) {
          // Before pi runs the list is the folder's: wait for it (or for the request already on its way).
          await pickers.loadPreview();
          if (host.sessionId() !== sessionId) return;
        }
        const match = matchModel(pickers.models.value, args);
        if ("error" in match) {
          error.value = match.error;
          return;
        }
        if (await host.act("model", () => setModel(sessionId, match.model))) clearIfStill(typed);
        return;
      }
      case "thinking": {
        if (args === "") {
          if (host.openPicker("thinking")) clearIfStill(typed);
          else error.value = "No thinking levels here yet: name the level, as in /thinking high.";
          return;
        }
        const match = matchThinkingLevel(pickers.levels.value, args);
        if ("error" in match) {
          error.value = match.error;
          return;
        }
        if (await host.act("thinking", () => setThinkingLevel(sessionId, match.level))) clearIfStill(typed);
        return;
      }
      case "compact":
        if (await host.act("compact", () => compact(sessionId, args === "" ? undefined : args))) clearIfStill(typed);
        return;
      case "reload":
        if (await host.act("reload", () => reload(sessionId))) clearIfStill(typed);
        return;
      case "name":
        if (args === "") error.value = "Give the new name: /name <name>.";
        else await renameTo(args, typed);
        return;
      case "tree":
      case "fork":
        // Forking from an entry lives in the tree panel.
        workspace.show("tree");
        clearIfStill(typed);
        return;
      case "export":
        if (host.exportSession()) clearIfStill(typed);
        else error.value = "This backend does not export sessions.";
        return;
      case "new":
        await newSession(typed);
        return;
    }
  }

  async function renameTo(name: string, typed: string): Promise<void> {
    acting.value = "name";
    try {
      const mark = openSession.detailMark();
      const response = await sessions.rename(host.sessionId(), name);
      openSession.applyDetail(response.detail, mark);
      clearIfStill(typed);
    } catch (problem) {
      host.fail(problem);
    } finally {
      acting.value = "";
    }
  }

  /** A new session in this session's folder, with its model and thinking level, opened in the workbench. */
  async function newSession(typed: string): Promise<void> {
    const cwd = host.cwd();
    if (cwd === "") {
      error.value = "This session's folder is not known: start a new session from the start screen.";
      return;
    }
    acting.value = "new";
    try {
      const model = pickers.model.value;
      const result = await startSession({
        cwd,
        kind: "session",
        model: model === undefined ? null : { provider: model.provider, id: model.id },
        thinkingLevel: pickers.thinking.value || null,
      });
      clearIfStill(typed);
      for (const warning of result.warnings) notices.report(new Error(warning), "Applying the start options");
      await router?.push(`/sessions/${encodeURIComponent(result.id)}`);
    } catch (problem) {
      host.fail(problem);
    } finally {
      acting.value = "";
    }
  }

  /** Another session: nothing of the previous one's menu or unknown command carries over. */
  function reset(): void {
    unknown.value = null;
    dismissed.value = null;
  }

  return {
    open,
    menu,
    highlight: menuHighlight,
    setHighlight: (index: number) => (highlight.value = index),
    note,
    activeOption,
    onKey,
    choose,
    unknownShown,
    markUnknown,
    clearUnknown: () => (unknown.value = null),
    runBuiltin,
    reset,
  };
}

export type SlashCommands = ReturnType<typeof useSlashCommands>;
