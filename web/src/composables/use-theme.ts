import { ref, type Ref } from "vue";
import { readSetting, SETTING_KEYS, writeSetting } from "../lib/local-storage.ts";

export type Theme = "dark" | "light";

/** The stored theme; dark unless "light" was chosen (dark-first). */
export function storedTheme(): Theme {
  return readSetting(SETTING_KEYS.theme) === "light" ? "light" : "dark";
}

/** Sets `data-theme` on <html> (the tokens in style.css switch on it). */
export function applyTheme(theme: Theme, root: { dataset: DOMStringMap } | null = globalThis.document?.documentElement ?? null): void {
  if (root !== null) root.dataset["theme"] = theme;
}

const theme: Ref<Theme> = ref(storedTheme());

/** The app's theme: one shared value, persisted in localStorage ("leyline.theme"). */
export function useTheme(): { theme: Ref<Theme>; setTheme(next: Theme): void; toggle(): void } {
  function setTheme(next: Theme): void {
    theme.value = next;
    writeSetting(SETTING_KEYS.theme, next);
    applyTheme(next);
  }
  return { theme, setTheme, toggle: () => setTheme(theme.value === "dark" ? "light" : "dark") };
}
