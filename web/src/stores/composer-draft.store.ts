/**
 * Text offered to a session's composer from elsewhere: the tree's "continue from here" on a user message and a
 * fork at a user message (from the tree or the transcript) put that message back in the editor, as pi does. The composer takes the offer (once)
 * when it shows that session; a newer offer for the same session replaces an untaken one.
 */
import { defineStore } from "pinia";
import { ref } from "vue";

export interface DraftOffer {
  readonly sessionId: string;
  readonly text: string;
  /** Increases with every offer, so the same text offered twice is a new offer. */
  readonly serial: number;
}

export const useComposerDraftStore = defineStore("composerDraft", () => {
  const offers = ref<Record<string, DraftOffer>>({});
  let serial = 0;

  function offer(sessionId: string, text: string): void {
    serial += 1;
    offers.value = { ...offers.value, [sessionId]: { sessionId, text, serial } };
  }

  /** The untaken offer for a session, or null. */
  function pending(sessionId: string): DraftOffer | null {
    return offers.value[sessionId] ?? null;
  }

  /** Takes a session's offer: its text, or null when there is none. */
  function take(sessionId: string): string | null {
    const found = offers.value[sessionId];
    if (found === undefined) return null;
    const rest = { ...offers.value };
    delete rest[sessionId];
    offers.value = rest;
    return found.text;
  }

  return { offers, offer, pending, take };
});
