/**
 * pi's settings files as the Pi Settings editor reads and writes them (models.json, mcp.json in the agent dir):
 * whole-file revisions, and one careful write path (spec "Targets and revisions").
 *
 * Reading (`readSettingsFile`) writes nothing. The revision is a hash of the file's bytes, so any change, by
 * another tab, another Leyline or a text editor, is a new revision; a missing file has the revision of empty
 * content. A file Leyline must not write (a broken symbolic link, over 2 MiB, unreadable) is reported as
 * `blocked` with the reason; its inventory stays readable where the bytes are.
 *
 * Writing (`writeSettingsFile`) takes the revision the editor read and a pure edit of the text:
 * 1. the first revision check (stale → 409 "This configuration changed outside this editor...");
 * 2. the edit runs on those bytes (its own failures pass through untouched);
 * 3. the file lock (proper-lockfile's `<file>.lock` folder, the lock pi uses for auth.json), and under it the
 *    second revision check ("This configuration changed while saving...");
 * 4. a byte-identical copy of the old file in `<agentDir>/leyline-trash` (every rewrite keeps a copy);
 * 5. atomic replacement (temp file beside the file, same mode, rename). A symbolic link is kept: the file it
 *    points to is the one replaced.
 */
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import lockfile from "proper-lockfile";
import { ServiceError } from "../../domain/service-error.ts";
import { keepTrashCopy, replaceFileAtomically } from "../session-files/trash-copy.ts";

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Files over this size are never rewritten (spec: "existing files over 2 MiB block writes"). */
export const SETTINGS_FILE_MAX_BYTES = 2 * 1024 * 1024;

export const REVISION_MISSING = "Refresh settings before saving.";
export const REVISION_STALE = "This configuration changed outside this editor. Refresh it before saving.";
export const REVISION_CHANGED_WHILE_SAVING = "This configuration changed while saving. Refresh it before saving again.";

export interface SettingsFileState {
  /** The path the editor names (may be a symbolic link). */
  readonly file: string;
  /** The file whose bytes are read and replaced (the link's target, or `file`). */
  readonly target: string;
  /** The text ("" when the file does not exist). */
  readonly text: string;
  readonly exists: boolean;
  readonly revision: string;
  /** Why writes are refused, or null. */
  readonly blocked: string | null;
}

export function revisionOf(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, 32);
}

/** The file the bytes live in: a symbolic link's target (resolved through every link), else the file itself. */
function targetOf(file: string): { target: string; broken: boolean } {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return { target: file, broken: false };
  }
  if (!stat.isSymbolicLink()) return { target: file, broken: false };
  try {
    return { target: fs.realpathSync(file), broken: false };
  } catch {
    return { target: file, broken: true };
  }
}

/** Reads a settings file without writing anything (see the module comment). */
export function readSettingsFile(file: string): SettingsFileState {
  const name = path.basename(file);
  const { target, broken } = targetOf(file);
  if (broken) {
    return {
      file,
      target,
      text: "",
      exists: false,
      revision: revisionOf(""),
      blocked: `${name} is a broken symbolic link; fix or remove it first.`,
    };
  }
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { file, target, text: "", exists: false, revision: revisionOf(""), blocked: null };
    return { file, target, text: "", exists: true, revision: revisionOf(""), blocked: `${name} cannot be read (${code ?? "error"}).` };
  }
  let text: string;
  let blocked = bytes.length > SETTINGS_FILE_MAX_BYTES ? `${name} is larger than 2 MiB; Leyline does not rewrite it.` : null;
  try {
    text = STRICT_UTF8.decode(bytes);
  } catch {
    // Editing decoded text would replace the invalid bytes everywhere, outside the edited span too.
    text = bytes.toString("utf8");
    blocked ??= `${name} is not valid UTF-8; Leyline does not rewrite it.`;
  }
  return { file, target, text, exists: true, revision: revisionOf(bytes), blocked };
}

/** The revision check every write starts with: missing → 409, stale → 409. */
export function checkRevision(state: SettingsFileState, revision: string | null | undefined): void {
  if (revision === undefined || revision === null || revision === "") throw new ServiceError("conflict", REVISION_MISSING);
  if (state.blocked !== null) throw new ServiceError("conflict", state.blocked);
  if (revision !== state.revision) throw new ServiceError("conflict", REVISION_STALE);
}

export interface SettingsWrite {
  /** The revision the editor read (missing: 409 "Refresh settings before saving."). */
  readonly revision: string | null | undefined;
  /** The new text for the current text (pure; throws a ServiceError to refuse). Returning the same text writes nothing. */
  readonly edit: (text: string) => string;
  /** Where the copy of the old file goes. */
  readonly trashDir: string;
  readonly now: number;
}

const LOCK_OPTIONS = { realpath: false, stale: 10_000, retries: { retries: 20, minTimeout: 25, maxTimeout: 250 } } as const;

/** Writes a settings file through the steps of the module comment; returns the new state. */
export async function writeSettingsFile(file: string, write: SettingsWrite): Promise<SettingsFileState> {
  const before = readSettingsFile(file);
  checkRevision(before, write.revision);
  const next = write.edit(before.text);
  if (next === before.text) return before;
  fs.mkdirSync(path.dirname(before.target), { recursive: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(before.target, LOCK_OPTIONS);
  } catch (error) {
    throw new ServiceError("conflict", `${path.basename(file)} is locked by another writer; try again.`, { cause: error });
  }
  try {
    const current = readSettingsFile(file);
    if (current.revision !== before.revision || current.exists !== before.exists) {
      throw new ServiceError("conflict", REVISION_CHANGED_WHILE_SAVING);
    }
    if (current.exists) {
      const mode = fs.statSync(current.target).mode & 0o777;
      keepTrashCopy(write.trashDir, current.target, "settings", fs.readFileSync(current.target), write.now, mode);
    }
    // A new settings file may hold keys and header values: private to its owner, as pi's auth.json.
    replaceFileAtomically(current.target, next, {
      newFileMode: 0o600,
      beforeRename: () => {
        if (readSettingsFile(file).revision !== before.revision) throw new ServiceError("conflict", REVISION_CHANGED_WHILE_SAVING);
      },
    });
  } finally {
    await release().catch(() => undefined);
  }
  return readSettingsFile(file);
}
