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

export const SETTING_KEYS = {
  theme: "leyline.theme",
  project: "leyline.project",
  sidebar: "leyline.sidebar",
} as const;
