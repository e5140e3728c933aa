import { defineStore } from "pinia";
import { ref } from "vue";
import { errorMessage } from "../api/http.ts";

export type NoticeKind = "error" | "info";

export interface Notice {
  id: number;
  kind: NoticeKind;
  /** What went wrong, in words (the server's error text when there is one). */
  message: string;
  /** What the client was doing ("Renaming the session"). */
  context: string;
}

const MAX_NOTICES = 4;
const INFO_MS = 6000;

/** Errors and short notices for the toast host (errors stay until dismissed; notices fade after 6 s). */
export const useNoticesStore = defineStore("notices", () => {
  const notices = ref<Notice[]>([]);
  let nextId = 1;

  function push(kind: NoticeKind, message: string, context: string): Notice {
    const existing = notices.value.find((n) => n.kind === kind && n.message === message && n.context === context);
    if (existing) return existing;
    const notice: Notice = { id: nextId++, kind, message, context };
    notices.value = [...notices.value, notice].slice(-MAX_NOTICES);
    if (kind === "info") globalThis.setTimeout(() => dismiss(notice.id), INFO_MS);
    return notice;
  }

  /** Shows an error (ApiError text, or any error's message) with what the client was doing. */
  function report(error: unknown, context = ""): Notice {
    return push("error", errorMessage(error), context);
  }

  function info(message: string, context = ""): Notice {
    return push("info", message, context);
  }

  function dismiss(id: number): void {
    notices.value = notices.value.filter((n) => n.id !== id);
  }

  function clear(): void {
    notices.value = [];
  }

  return { notices, report, info, dismiss, clear };
});
