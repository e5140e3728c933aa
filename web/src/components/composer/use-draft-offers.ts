/**
 * Text offered to the composer from elsewhere (composer-draft.store.ts: the tree's "continue from here" and fork
 * from a user message put that message back in the editor, as pi does). An offer is taken, once, when the
 * composer shows its session, or when it arrives for the session shown: the text goes into the input (withOffer:
 * it replaces an empty draft or one still holding the session's previous offer, as pi replaces its editor's text;
 * it goes after a draft the person wrote, separated by a blank line, so nothing typed is lost), the input gets the
 * focus and the caret goes to the end.
 *
 * Taken after the composer has switched to the session's own draft (a post-flush watcher), so the switch does not
 * overwrite it.
 */
import { watch, type Ref } from "vue";
import { useComposerDraftStore } from "../../stores/composer-draft.store.ts";
import { withOffer } from "./composer-logic.ts";
import type { InputCaret } from "./use-input-caret.ts";

export function useDraftOffers(host: { sessionId: () => string; text: Ref<string>; caret: InputCaret }): void {
  const drafts = useComposerDraftStore();
  /** Per session, the last offer taken (a draft still equal to it is replaced by the next one). */
  const lastOffer: Record<string, string> = {};
  watch(
    () => {
      const sessionId = host.sessionId();
      return sessionId === "" ? null : (drafts.pending(sessionId)?.serial ?? null);
    },
    (serial) => {
      if (serial === null) return;
      const sessionId = host.sessionId();
      const offered = drafts.take(sessionId);
      if (offered === null) return;
      host.caret.place(withOffer(host.text.value, offered, lastOffer[sessionId] ?? null), undefined, { focus: true });
      lastOffer[sessionId] = offered;
    },
    { immediate: true, flush: "post" },
  );
}
