/**
 * Web storage that tolerates its absence (node tests, privacy modes) and quota errors: localStorage for
 * settings (`readSetting`/`writeSetting`), sessionStorage for what one tab keeps across a reload
 * (`readTabValue`/`writeTabValue`). Writing null removes the key; a failed write lasts for this page only.
 */

import { apiBase } from "../api/http.ts";

type Area = "localStorage" | "sessionStorage";

function storage(area: Area): Storage | null {
  try {
    return typeof globalThis[area] === "undefined" ? null : globalThis[area];
  } catch {
    return null;
  }
}

function read(area: Area, key: string): string | null {
  try {
    return storage(area)?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

function write(area: Area, key: string, value: string | null): void {
  try {
    const s = storage(area);
    if (s === null) return;
    if (value === null) s.removeItem(key);
    else s.setItem(key, value);
  } catch {
    // Full or denied.
  }
}

/**
 * A setting key of the selected backend: what names that backend's own things (its project folders, its session
 * files) is kept apart per backend, so a window moved to another Leyline does not pick up this one's values.
 * The native backend keeps the plain key (what it stored before connections existed).
 */
export function backendSettingKey(key: string): string {
  const base = apiBase();
  return base === "" ? key : `${key}@${base}`;
}

export const readSetting = (key: string): string | null => read("localStorage", key);
export const writeSetting = (key: string, value: string | null): void => write("localStorage", key, value);
export const readTabValue = (key: string): string | null => read("sessionStorage", key);
export const writeTabValue = (key: string, value: string | null): void => write("sessionStorage", key, value);

/** sessionStorage key of the held prompts a reload hands back (lib/held-prompts.ts `keepHeld`). */
export const HELD_PROMPTS_KEY = "leyline.held-prompts";

export const SETTING_KEYS = {
  theme: "leyline.theme",
  project: "leyline.project",
  sidebar: "leyline.sidebar",
  /** The file-upgraded notices already shown (open-session.store.ts). */
  shownUpgrades: "leyline.shownUpgrades",
} as const;
