/**
 * The Files settings as stored and as answered (spec "GET /api/pi/files/settings"): the stored command and mode,
 * the environment's editor (EDITOR, then VISUAL), the effective command (the nonempty stored one, else the
 * environment's), whether it runs in a terminal, and the reveal label of the platform.
 *
 * The stored file is `{ "version": 1, "editor": string, "editorMode": "auto" | "desktop" | "terminal" }`; unknown
 * fields are ignored, anything else unreadable is reported (and defaults are used) rather than guessed at.
 *
 * Pure: the adapter reads the file, the environment and PATH.
 */
import { EDITOR_MODES, type EditorMode, parseEditorCommand, runsInTerminal } from "./editor-command.ts";

export interface StoredFileSettings {
  readonly editor: string;
  readonly editorMode: EditorMode;
}

export const DEFAULT_FILE_SETTINGS: StoredFileSettings = { editor: "", editorMode: "auto" };

export const NO_EDITOR = "No editor is configured: set one in Files settings or the EDITOR variable";
export const NO_TERMINAL_EDITOR = "No terminal editor is configured";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The stored settings in a file's text, or why they cannot be read (then the defaults). */
export function parseStoredFileSettings(text: string): { readonly settings: StoredFileSettings; readonly problem?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { settings: DEFAULT_FILE_SETTINGS, problem: "it is not valid JSON" };
  }
  if (!isRecord(parsed)) return { settings: DEFAULT_FILE_SETTINGS, problem: "it is not a JSON object" };
  const editor = parsed["editor"] ?? "";
  const editorMode = parsed["editorMode"] ?? "auto";
  if (typeof editor !== "string") return { settings: DEFAULT_FILE_SETTINGS, problem: "its editor is not a string" };
  if (typeof editorMode !== "string" || !(EDITOR_MODES as readonly string[]).includes(editorMode)) {
    return { settings: DEFAULT_FILE_SETTINGS, problem: "its editorMode is not auto, desktop or terminal" };
  }
  return { settings: { editor, editorMode: editorMode as EditorMode } };
}

export function serializeFileSettings(settings: StoredFileSettings): string {
  return `${JSON.stringify({ version: 1, editor: settings.editor, editorMode: settings.editorMode }, null, 2)}\n`;
}

/** The environment's editor: EDITOR when nonempty, else VISUAL, trimmed. */
export function environmentEditorOf(env: { readonly EDITOR?: string | undefined; readonly VISUAL?: string | undefined }): string {
  const editor = env.EDITOR?.trim() ?? "";
  return editor !== "" ? editor : (env.VISUAL?.trim() ?? "");
}

/** The nonempty stored command, else the environment's. */
export function effectiveEditorOf(editor: string, environmentEditor: string): string {
  const stored = editor.trim();
  return stored !== "" ? stored : environmentEditor.trim();
}

/**
 * The effective command judged: its argv when it is valid, whether it runs in a terminal, and the reason no
 * editor can be launched from it (none configured, or invalid).
 */
export interface EditorCommandState {
  readonly effectiveEditor: string;
  readonly argv: readonly string[] | null;
  readonly terminal: boolean;
  /** NO_EDITOR, or the command's syntax problem; null when the argv is usable. */
  readonly problem: string | null;
}

export function editorCommandState(stored: StoredFileSettings, environmentEditor: string): EditorCommandState {
  const effectiveEditor = effectiveEditorOf(stored.editor, environmentEditor);
  if (effectiveEditor === "") return { effectiveEditor, argv: null, terminal: false, problem: NO_EDITOR };
  const parsed = parseEditorCommand(effectiveEditor);
  if (!parsed.ok) return { effectiveEditor, argv: null, terminal: false, problem: parsed.error };
  if (parsed.argv.length === 0) return { effectiveEditor, argv: null, terminal: false, problem: NO_EDITOR };
  return { effectiveEditor, argv: parsed.argv, terminal: runsInTerminal(parsed.argv, stored.editorMode), problem: null };
}

/**
 * The label of the reveal action on a platform, or null when the server cannot show a file's folder there: on
 * Linux (and other Unix desktops) an opener (xdg-open or gio) and a desktop session (DISPLAY or WAYLAND_DISPLAY)
 * are needed.
 */
export function revealLabelFor(platform: string, linux: { readonly opener: boolean; readonly desktopSession: boolean }): string | null {
  if (platform === "darwin") return "Reveal in Finder";
  if (platform === "win32") return "Show in Explorer";
  return linux.opener && linux.desktopSession ? "Show in folder" : null;
}
