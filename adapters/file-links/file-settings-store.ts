/**
 * The Files settings on disk (`<dataDir>/file-settings.json`) and the editor setup every file action reads
 * (spec "GET/PUT /api/pi/files/settings").
 *
 * - Reading writes nothing: a missing file is the defaults; an unreadable or corrupt one is the defaults plus the
 *   problem in `error`, and stays as it is (never overwritten silently).
 * - Saving is explicit: the update is validated first (a refused command changes nothing: FileSettingsRejection,
 *   answered 400 with the current settings), then the file is replaced atomically (temp file + rename); a corrupt
 *   file being replaced is copied to `<dataDir>/leyline-trash` first. Saves of one data dir run one at a time.
 * - The setup judges the effective command (domain/file-links/file-settings.ts), finds its program on PATH (the
 *   absolute path launches use), and finds how to reveal a file; FileSettings.error says why the effective
 *   command cannot run (after the file's own problem): an invalid command, or a program that is not there. No
 *   editor at all is not an error of the settings (the actions say it).
 */
import fs from "node:fs";
import path from "node:path";
import type { FileSettings } from "../../domain/contract/http-files.ts";
import { EDITOR_COMMAND_MAX_LENGTH, EDITOR_TOO_LONG, type EditorMode, parseEditorCommand } from "../../domain/file-links/editor-command.ts";
import {
  editorCommandState,
  environmentEditorOf,
  NO_EDITOR,
  parseStoredFileSettings,
  serializeFileSettings,
  type StoredFileSettings,
  DEFAULT_FILE_SETTINGS,
} from "../../domain/file-links/file-settings.ts";
import { ServiceError } from "../../domain/service-error.ts";
import { keepTrashCopy, replaceFileAtomically } from "../session-files/trash-copy.ts";
import { findExecutable, missingExecutableMessage } from "./executables.ts";
import { searchPathOf } from "./file-link-services.ts";
import { findRevealCommand, type RevealCommand } from "./launchers.ts";

export const FILE_SETTINGS_FILE = "file-settings.json";
/** A settings file larger than this is not read (it cannot be ours). */
const STORED_MAX_BYTES = 64 * 1024;

export interface FileSettingsStoreServices {
  readonly dataDir: string;
  readonly env: NodeJS.ProcessEnv;
}

/** A refused PUT: answered 400 with the current settings and this message. */
export class FileSettingsRejection extends ServiceError {
  constructor(message: string) {
    super("invalid_request", message);
    this.name = "FileSettingsRejection";
  }
}

export function fileSettingsPath(dataDir: string): string {
  return path.join(dataDir, FILE_SETTINGS_FILE);
}

interface StoredRead {
  readonly settings: StoredFileSettings;
  /** The file's bytes when it exists. */
  readonly bytes: Buffer | null;
  /** Why the file could not be used, or null. */
  readonly problem: string | null;
}

async function readStored(file: string): Promise<StoredRead> {
  let bytes: Buffer;
  try {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) return { settings: DEFAULT_FILE_SETTINGS, bytes: null, problem: "it is not a regular file" };
    if (stat.size > STORED_MAX_BYTES) return { settings: DEFAULT_FILE_SETTINGS, bytes: null, problem: "it is larger than 64 KiB" };
    bytes = await fs.promises.readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { settings: DEFAULT_FILE_SETTINGS, bytes: null, problem: null };
    return { settings: DEFAULT_FILE_SETTINGS, bytes: null, problem: `it cannot be read (${code ?? "error"})` };
  }
  const parsed = parseStoredFileSettings(bytes.toString("utf8"));
  return { settings: parsed.settings, bytes, problem: parsed.problem ?? null };
}

function storeProblemMessage(file: string, problem: string): string {
  return `The Files settings file ${file} is not usable (${problem}); the defaults apply until the settings are saved`;
}

/** Everything a file action needs to know about the editor and reveal. */
export interface EditorSetup {
  readonly settings: FileSettings;
  /** The effective command's argv when it is valid. */
  readonly argv: readonly string[] | null;
  /** The absolute path of its program when it exists. */
  readonly executable: string | null;
  /** Whether the effective command runs in a terminal (editorMode, or detection in "auto"). */
  readonly terminal: boolean;
  /** Why no editor can be launched (none configured, invalid, program missing), or null. */
  readonly editorProblem: string | null;
  readonly reveal: RevealCommand | null;
}

async function setupOf(services: FileSettingsStoreServices, stored: StoredRead, file: string): Promise<EditorSetup> {
  const environmentEditor = environmentEditorOf({ EDITOR: services.env["EDITOR"], VISUAL: services.env["VISUAL"] });
  const state = editorCommandState(stored.settings, environmentEditor);
  const program = state.argv?.[0];
  const executable = program !== undefined ? await findExecutable(program, searchPathOf(services.env)) : null;
  const missing = program !== undefined && executable === null ? missingExecutableMessage(program) : null;
  const editorProblem = state.problem ?? missing;
  const reveal = await findRevealCommand(services.env);
  const error =
    (stored.problem !== null ? storeProblemMessage(file, stored.problem) : null) ??
    (state.problem !== NO_EDITOR ? state.problem : null) ??
    missing;
  const settings: FileSettings = {
    editor: stored.settings.editor,
    environmentEditor,
    effectiveEditor: state.effectiveEditor,
    editorMode: stored.settings.editorMode,
    terminalEditor: state.terminal,
    revealLabel: reveal?.label ?? null,
    ...(error !== null ? { error } : {}),
  };
  return { settings, argv: state.argv, executable, terminal: state.terminal, editorProblem, reveal };
}

/** The editor setup as the settings file and the environment say now. */
export async function editorSetup(services: FileSettingsStoreServices): Promise<EditorSetup> {
  const file = fileSettingsPath(services.dataDir);
  return setupOf(services, await readStored(file), file);
}

/** GET /api/pi/files/settings. */
export async function fileSettingsOf(services: FileSettingsStoreServices): Promise<FileSettings> {
  return (await editorSetup(services)).settings;
}

const saving = new Map<string, Promise<unknown>>();

/** Runs `task` after the saves of the same file already queued. */
function serialized<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = saving.get(key) ?? Promise.resolve();
  const next = previous.then(task, task);
  const settled = next.catch(() => undefined);
  saving.set(key, settled);
  void settled.then(() => {
    if (saving.get(key) === settled) saving.delete(key);
  });
  return next;
}

export interface FileSettingsChange {
  readonly editor?: string;
  readonly editorMode?: EditorMode;
}

/**
 * PUT /api/pi/files/settings: validates, stores, answers the new settings (whose `error` may say the program is
 * missing). Throws FileSettingsRejection for a refused command (nothing is written then).
 */
export function saveFileSettings(services: FileSettingsStoreServices, change: FileSettingsChange): Promise<FileSettings> {
  const file = fileSettingsPath(services.dataDir);
  return serialized(file, async () => {
    let editor: string | undefined;
    if (change.editor !== undefined) {
      if (change.editor.length > EDITOR_COMMAND_MAX_LENGTH) throw new FileSettingsRejection(EDITOR_TOO_LONG);
      editor = change.editor.trim();
      const parsed = parseEditorCommand(editor);
      if (!parsed.ok) throw new FileSettingsRejection(parsed.error);
    }
    const current = await readStored(file);
    const next: StoredFileSettings = {
      editor: editor ?? current.settings.editor,
      editorMode: change.editorMode ?? current.settings.editorMode,
    };
    await fs.promises.mkdir(services.dataDir, { recursive: true });
    if (current.problem !== null && current.bytes !== null) {
      keepTrashCopy(path.join(services.dataDir, "leyline-trash"), file, "unusable", current.bytes, Date.now());
    }
    replaceFileAtomically(file, serializeFileSettings(next));
    return setupOf(services, { settings: next, bytes: null, problem: null }, file).then((setup) => setup.settings);
  });
}
