import { defineStore } from "pinia";
import { ref } from "vue";
import { errorMessage } from "../api/http.ts";

export type NoticeKind = "error" | "info";

/** A button on a notice (e.g. Undo after a reset): runs once, then the notice goes away. */
export interface NoticeAction {
  label: string;
  run(): Promise<void> | void;
}

export interface Notice {
  id: number;
  kind: NoticeKind;
  /** What went wrong, in words (the server's error text when there is one). */
  message: string;
  /** What the client was doing ("Renaming the session"). */
  context: string;
  action?: NoticeAction;
  /** The action is running (its button is disabled meanwhile). */
  running?: boolean;
}

const MAX_NOTICES = 4;
const INFO_MS = 6000;
/** A notice with an action stays longer: the person needs time to decide (Undo). */
const ACTION_MS = 20_000;

/**
 * Errors and short notices for the toast host (errors stay until dismissed; notices fade after 6 s, notices
 * with an action after 20 s). An action that fails is reported as an error with the action's label.
 */
export const useNoticesStore = defineStore("notices", () => {
  const notices = ref<Notice[]>([]);
  let nextId = 1;

  function push(kind: NoticeKind, message: string, context: string, action?: NoticeAction): Notice {
    const existing = notices.value.find(
      (n) => n.kind === kind && n.message === message && n.context === context && action === undefined && n.action === undefined,
    );
    if (existing) return existing;
    const notice: Notice = { id: nextId++, kind, message, context, ...(action !== undefined ? { action } : {}) };
    notices.value = [...notices.value, notice].slice(-MAX_NOTICES);
    if (kind === "info") globalThis.setTimeout(() => dismiss(notice.id), action === undefined ? INFO_MS : ACTION_MS);
    return notice;
  }

  /** Shows an error (ApiError text, or any error's message) with what the client was doing. */
  function report(error: unknown, context = ""): Notice {
    return push("error", errorMessage(error), context);
  }

  function info(message: string, context = "", action?: NoticeAction): Notice {
    return push("info", message, context, action);
  }

  function dismiss(id: number): void {
    notices.value = notices.value.filter((n) => n.id !== id);
  }

  /** Runs a notice's action once; the notice goes away when it succeeded, an error notice says why it failed. */
  async function runAction(id: number): Promise<void> {
    const notice = notices.value.find((n) => n.id === id);
    if (notice?.action === undefined || notice.running === true) return;
    const { action } = notice;
    notices.value = notices.value.map((n) => (n.id === id ? { ...n, running: true } : n));
    try {
      await action.run();
      dismiss(id);
    } catch (error) {
      notices.value = notices.value.map((n) => (n.id === id ? { ...n, running: false } : n));
      report(error, action.label);
    }
  }

  function clear(): void {
    notices.value = [];
  }

  return { notices, report, info, dismiss, runAction, clear };
});
