import { onScopeDispose, ref, type Ref } from "vue";

/** Whether a media query matches, kept current (false where matchMedia does not exist). */
export function useMediaQuery(query: string): Ref<boolean> {
  const matches = ref(false);
  const media = typeof globalThis.matchMedia === "function" ? globalThis.matchMedia(query) : null;
  if (media === null) return matches;
  matches.value = media.matches;
  const update = (event: { matches: boolean }) => {
    matches.value = event.matches;
  };
  media.addEventListener?.("change", update);
  onScopeDispose(() => media.removeEventListener?.("change", update));
  return matches;
}
