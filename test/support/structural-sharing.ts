/**
 * How much of a state an update re-created: the objects of `after` that are not the same object (===) as the
 * value at the same path in `before`, and their own keys in total (what Immer had to copy and freeze). A
 * shared subtree is not entered, so the walk itself costs O(unshared).
 */
export interface Unshared {
  /** Objects (and arrays) of `after` not shared with `before`. */
  objects: number;
  /** Own keys of those objects: the width copied. */
  keys: number;
}

export function unsharedObjects(before: unknown, after: unknown): Unshared {
  const result: Unshared = { objects: 0, keys: 0 };
  const walk = (b: unknown, a: unknown): void => {
    if (a === b || typeof a !== "object" || a === null) return;
    const keys = Object.keys(a);
    result.objects += 1;
    result.keys += keys.length;
    const previous = typeof b === "object" && b !== null ? (b as Record<string, unknown>) : undefined;
    for (const key of keys) {
      walk(previous !== undefined && Object.hasOwn(previous, key) ? previous[key] : undefined, (a as Record<string, unknown>)[key]);
    }
  };
  walk(before, after);
  return result;
}
