/**
 * The GET /api/pi/fs DTO (spec/api-reference.md): one folder's subfolders, and the pure rules of the folder
 * browser (which paths need the client's cwd, the order of entries). The file-system side is
 * adapters/file-system/directory-listing.ts.
 */

export interface DirectoryEntry {
  name: string;
  fullPath: string;
  path: string;
  hidden: boolean;
}

export interface DirectoryListing {
  parentPath: string;
  path: string;
  parent: string;
  home: string;
  entries: DirectoryEntry[];
  directories: DirectoryEntry[];
  root: string;
}

/** Whether a browse path resolves from the client's cwd: `.`, `..`, `./…`, `../…`. */
export function isCwdRelative(value: string): boolean {
  return value === "." || value === ".." || value.startsWith("./") || value.startsWith("../");
}

/** Entries by name: case-insensitive, then by code unit. */
export function compareDirectoryEntries(a: DirectoryEntry, b: DirectoryEntry): number {
  const al = a.name.toLowerCase();
  const bl = b.name.toLowerCase();
  if (al !== bl) return al < bl ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
