/**
 * `@file` mention completion in the composer. While the input has the focus and the caret is in a mention
 * (composer-mentions.ts: `@` at the start or after white space), the project files matching what follows the `@`
 * are asked for (GET /api/pi/sessions/:id/file-mentions, MENTION_DEBOUNCE_MS after the last keystroke, at most
 * MENTION_SHOWN) and listed in the completion menu. A newer query, another session or the menu closing aborts the
 * request on its way, so an older answer never replaces a newer one; the previous answer stays listed until the
 * next one comes.
 *
 * Keys (completion-menu.ts): ArrowUp/Down move, Tab or Enter write the highlighted file in place of the mention
 * (`@path `, quoted pi-style when needed) with the caret after it, Escape closes the menu until the mention or the
 * draft changes. Enter on a mention already typed out as the highlighted file is left to the input (it sends).
 * Only an answer to the mention as it is now can be chosen from: while the answer listed is for an earlier query
 * (typing went on since), Enter is left to the input (it sends the text as typed) and Tab waits for the answer.
 * The slash-command menu goes first: while it is open (`blocked`), this one stays closed.
 *
 * What a mention does: it puts the file's path into the prompt as typed, and pi's model reads the file if it
 * needs to (with its read tool), as with a mention typed in pi's own editor. It does not attach the file's
 * contents, check that the file still exists when sending, or reach outside the session's folder.
 */
import { computed, onScopeDispose, ref, shallowRef, watch, type Ref } from "vue";
import { FILE_MENTION_QUERY_MAX, findFileMentions, type FileMentionsAnswer } from "../../api/file-mentions.ts";
import { errorMessage, isAbort } from "../../api/http.ts";
import { menuKeyOf, moveHighlight, type CompletionItem } from "./completion-menu.ts";
import { insertMention, mentionAt, needsQuotes, splitPath } from "./composer-mentions.ts";
import type { InputCaret } from "./use-input-caret.ts";

export const MENTION_DEBOUNCE_MS = 120;
/** Files listed at most. */
export const MENTION_SHOWN = 20;
export const MENTION_MENU_ID = "composer-mention-menu";

export interface FileMentionsHost {
  sessionId: () => string;
  text: Ref<string>;
  caret: InputCaret;
  focused: Ref<boolean>;
  /** Another menu is open (the slash commands'). */
  blocked: () => boolean;
}

export interface FileMentionsOptions {
  debounceMs?: number;
  search?: typeof findFileMentions;
}

interface Answer {
  sessionId: string;
  query: string;
  files: string[];
  truncated: boolean;
}

export function useFileMentions(host: FileMentionsHost, options: FileMentionsOptions = {}) {
  const debounceMs = options.debounceMs ?? MENTION_DEBOUNCE_MS;
  const search = options.search ?? findFileMentions;
  const { text, caret } = host;

  const token = computed(() => mentionAt(text.value, caret.caret.value));
  /** The mention and the draft it is in: Escape closes the menu for this pair. */
  const tokenKey = computed(() => (token.value === null ? null : `${token.value.start}\u0000${text.value}`));
  const dismissed = ref<string | null>(null);
  watch(tokenKey, (key) => {
    if (dismissed.value !== key) dismissed.value = null;
  });

  const open = computed(
    () =>
      host.sessionId() !== "" &&
      host.focused.value &&
      token.value !== null &&
      token.value.query.length <= FILE_MENTION_QUERY_MAX &&
      !host.blocked() &&
      dismissed.value !== tokenKey.value,
  );

  const answer = shallowRef<Answer | null>(null);
  const status = ref<"idle" | "loading" | "ready" | "error">("idle");
  const problem = ref("");
  const highlight = ref(0);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let controller: AbortController | undefined;

  function cancel(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    controller?.abort();
    controller = undefined;
  }

  async function ask(sessionId: string, query: string): Promise<void> {
    timer = undefined;
    const current = new AbortController();
    controller = current;
    let found: FileMentionsAnswer;
    try {
      found = await search(sessionId, query, { limit: MENTION_SHOWN, signal: current.signal });
    } catch (error) {
      if (controller !== current || isAbort(error)) return;
      controller = undefined;
      answer.value = null;
      status.value = "error";
      problem.value = errorMessage(error);
      return;
    }
    if (controller !== current) return;
    controller = undefined;
    answer.value = { sessionId, query, files: found.files.slice(0, MENTION_SHOWN), truncated: found.truncated };
    status.value = "ready";
    highlight.value = 0;
  }

  // Each query of an open menu is asked once, after a pause in typing; whatever was on its way is dropped.
  watch(
    () => (open.value && token.value !== null ? { sessionId: host.sessionId(), query: token.value.query } : null),
    (wanted, previous) => {
      if (wanted !== null && previous !== null && previous !== undefined) {
        if (wanted.sessionId === previous.sessionId && wanted.query === previous.query) return;
      }
      cancel();
      if (wanted === null) {
        answer.value = null;
        status.value = "idle";
        return;
      }
      status.value = "loading";
      timer = setTimeout(() => void ask(wanted.sessionId, wanted.query), debounceMs);
    },
    { immediate: true },
  );
  onScopeDispose(cancel);

  const items = computed<CompletionItem[]>(() => {
    const shown = answer.value;
    if (shown === null || shown.sessionId !== host.sessionId()) return [];
    return shown.files.map((path) => {
      const { name, folder } = splitPath(path);
      return { key: `file:${path}`, label: name, hint: folder, description: "", badge: "", path };
    });
  });
  const shownHighlight = computed(() => Math.min(highlight.value, Math.max(0, items.value.length - 1)));
  const activeOption = computed(() =>
    open.value && items.value.length > 0 ? `${MENTION_MENU_ID}-option-${shownHighlight.value}` : undefined,
  );
  const note = computed(() => {
    if (status.value === "error") return `The files cannot be listed: ${problem.value}`;
    const query = token.value?.query ?? "";
    if (items.value.length === 0) {
      if (status.value !== "ready") return "Looking for files…";
      return query.trim() === "" ? "No files in this session's folder." : `No file matches “${query}”.`;
    }
    return answer.value?.truncated === true ? "A large folder: only part of its files were searched." : "";
  });

  /** The answer listed is for the mention as it is now (not for an earlier query still shown meanwhile). */
  const current = computed(() => {
    const shown = answer.value;
    return shown !== null && token.value !== null && shown.sessionId === host.sessionId() && shown.query === token.value.query;
  });

  /** The mention is already the file at `index`, typed out with the caret at its end. */
  function typedOut(index: number): boolean {
    const mention = token.value;
    const path = items.value[index]?.path;
    return (
      mention !== null &&
      path !== undefined &&
      !mention.quoted &&
      !needsQuotes(path) &&
      mention.query === path &&
      caret.caret.value === mention.end
    );
  }

  /** Writes the file at `index` in place of the mention. */
  function choose(index: number): void {
    const mention = token.value;
    const path = items.value[index]?.path;
    if (mention === null || path === undefined) return;
    const next = insertMention(text.value, mention, path);
    caret.place(next.text, next.caret, { focus: true });
    // Still in the mention (before a bracket's closer): the menu stays closed until the draft changes.
    const still = mentionAt(next.text, next.caret);
    if (still !== null) dismissed.value = `${still.start}\u0000${next.text}`;
  }

  /** Handles a key while the menu is open; true when the key was the menu's. */
  function onKey(event: KeyboardEvent): boolean {
    if (!open.value) return false;
    const key = menuKeyOf(event);
    if (key === "none") return false;
    if (key === "close") {
      event.preventDefault();
      event.stopPropagation();
      dismissed.value = tokenKey.value;
      return true;
    }
    const count = items.value.length;
    if (count === 0) return false;
    if (key === "next" || key === "previous") {
      event.preventDefault();
      highlight.value = moveHighlight(shownHighlight.value, count, key === "next" ? 1 : -1);
      return true;
    }
    if (!current.value) {
      // A stale answer: Enter sends the text as typed, Tab waits for the answer to this query.
      if (key === "choose") return false;
      event.preventDefault();
      return true;
    }
    if (key === "choose" && typedOut(shownHighlight.value)) return false;
    event.preventDefault();
    choose(shownHighlight.value);
    return true;
  }

  return {
    open,
    items,
    highlight: shownHighlight,
    setHighlight: (index: number) => (highlight.value = index),
    note,
    activeOption,
    onKey,
    choose,
  };
}

export type FileMentions = ReturnType<typeof useFileMentions>;
