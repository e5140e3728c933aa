/**
 * The app settings of the native backend (spec "App settings"), loaded once at app start (App.vue) and edited in
 * Settings › Appearance. Only the thinking default today: whether thinking blocks in the transcript start
 * collapsed or expanded. Nothing stored reads as "collapsed", as does a failed read (the spec's default).
 *
 * Rules kept:
 * - The server's answer replaces the value; an answer older than a later request of this store is dropped, so
 *   a slow read never undoes a newer save.
 * - A save shows which value is on its way (`saving`) and, when it fails, the value stays what the server had
 *   and `saveError` says why in words.
 */
import { defineStore } from "pinia";
import { ref } from "vue";
import { effectiveThinkingDefault, getThinkingDefault, putThinkingDefault, type ThinkingDefault } from "../api/app-settings.ts";
import { errorMessage } from "../api/http.ts";

export type AppSettingsStatus = "idle" | "loading" | "ready" | "error";

export const useAppSettingsStore = defineStore("app-settings", () => {
  /** What the transcript uses for thinking blocks the person did not toggle. */
  const thinkingDefault = ref<ThinkingDefault>("collapsed");
  const status = ref<AppSettingsStatus>("idle");
  const loadError = ref("");
  /** The value a save is sending; null when no save runs. */
  const saving = ref<ThinkingDefault | null>(null);
  const saveError = ref("");
  /** The newest request whose answer may still change the value. */
  let latest = 0;
  /** The newest save (its end clears `saving`). */
  let latestSave = 0;

  async function load(): Promise<void> {
    const mine = ++latest;
    status.value = "loading";
    loadError.value = "";
    try {
      const setting = await getThinkingDefault();
      if (mine !== latest) return;
      thinkingDefault.value = effectiveThinkingDefault(setting);
      status.value = "ready";
    } catch (failure) {
      if (mine !== latest) return;
      status.value = "error";
      loadError.value = errorMessage(failure);
    }
  }

  /** Stores a new default; true when the server took it. */
  async function setThinkingDefault(value: ThinkingDefault): Promise<boolean> {
    const mine = ++latest;
    const save = ++latestSave;
    saving.value = value;
    saveError.value = "";
    try {
      const setting = await putThinkingDefault(value);
      if (mine === latest) {
        thinkingDefault.value = effectiveThinkingDefault(setting);
        status.value = "ready";
        loadError.value = "";
      }
      return true;
    } catch (failure) {
      if (save === latestSave) saveError.value = errorMessage(failure);
      // A load this save superseded was dropped: read the stored value again so the default is known.
      if (mine === latest && status.value !== "ready") void load();
      return false;
    } finally {
      if (save === latestSave) saving.value = null;
    }
  }

  return { thinkingDefault, status, loadError, saving, saveError, load, setThinkingDefault };
});
