/** The GET /api/pi/fs DTO (spec/api-reference.md): one folder's subfolders. Types only. */

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
