import { useRouter } from "vue-router";
import type { SessionSummary } from "../../../../domain/session-summary.ts";
import { sessionTitle } from "../../lib/session-search.ts";
import { useDialogsStore } from "../../stores/dialogs.store.ts";
import { useNoticesStore } from "../../stores/notices.store.ts";
import { useOpenSessionStore } from "../../stores/open-session.store.ts";
import { usePinsStore } from "../../stores/pins.store.ts";
import { useSessionsStore } from "../../stores/sessions.store.ts";

/**
 * Rename, delete and pin as the sidebar offers them: confirmation, errors in words, navigation after delete. Pin and
 * unpin show at once; the pins store takes a refused change back with a notice.
 */
export function useSessionActions() {
  const sessions = useSessionsStore();
  const openSession = useOpenSessionStore();
  const dialogs = useDialogsStore();
  const notices = useNoticesStore();
  const router = useRouter();
  const pins = usePinsStore();

  async function rename(session: SessionSummary, name: string): Promise<boolean> {
    const trimmed = name.replace(/\s+/g, " ").trim();
    if (trimmed === "" || trimmed === (session.name ?? "")) return false;
    try {
      const mark = openSession.detailMark();
      const response = await sessions.rename(session.id, trimmed);
      if (openSession.id === session.id) openSession.applyDetail(response.detail, mark);
      return true;
    } catch (error) {
      notices.report(error, "Renaming the session");
      return false;
    }
  }

  async function remove(session: SessionSummary): Promise<boolean> {
    const ok = await dialogs.confirm({
      title: "Delete this session?",
      message: `“${sessionTitle(session)}” moves to the leyline-trash folder next to pi's sessions folder, where it can be restored by hand.`,
      confirmLabel: "Delete",
      danger: true,
    });
    if (!ok) return false;
    try {
      await sessions.remove(session.id);
      if (openSession.id === session.id) await router.push("/");
      return true;
    } catch (error) {
      notices.report(error, "Deleting the session");
      return false;
    }
  }

  /** Pins the session, or unpins it when it is pinned; false when the server refused (a notice says why). */
  function togglePin(id: string): Promise<boolean> {
    return pins.toggle(id);
  }

  return { rename, remove, togglePin };
}
