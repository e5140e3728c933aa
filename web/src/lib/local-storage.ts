/** localStorage that tolerates its absence (node tests, privacy modes) and quota errors. */

function storage(): Storage | null {
  try {
    return typeof globalThis.localStorage === "undefined" ? null : globalThis.localStorage;
  } catch {
    return null;
  }
}

export function readSetting(key: string): string | null {
  try {
    return storage()?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

export function writeSetting(key: string, value: string | null): void {
  try {
    const s = storage();
    if (s === null) return;
    if (value === null) s.removeItem(key);
    else s.setItem(key, value);
  } catch {
    // Full or denied: the setting lasts for this page only.
  }
}

/** sessionStorage (this tab, across reloads), with the same tolerance; null removes the key. */
export function readTabValue(key: string): string | null {
  try {
    return typeof globalThis.sessionStorage === "undefined" ? null : globalThis.sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeTabValue(key: string, value: string | null): void {
  try {
    if (typeof globalThis.sessionStorage === "undefined") return;
    if (value === null) globalThis.sessionStorage.removeItem(key);
    else globalThis.sessionStorage.setItem(key, value);
  } catch {
    // Full or denied: held prompts last for this page only.
  }
}

/** sessionStorage key of the held prompts a reload hands back (lib/held-prompts.ts `keepHeld`). */
export const HELD_PROMPTS_KEY = "leyline.held-prompts";

export const SETTING_KEYS = {
  theme: "leyline.theme",
  project: "leyline.project",
  sidebar: "leyline.sidebar",
} as const;
