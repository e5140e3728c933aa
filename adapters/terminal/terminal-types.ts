/**
 * The shapes the terminal shares with the editor-terminal setup (adapters/file-links/editor-terminal.ts builds the
 * plan; the terminal route receives that function as an option and spawns what the plan says).
 */

/** An editor terminal as the query asks for it (domain/contract/terminal-socket.ts parses the query). */
export interface EditorTerminalRequest {
  readonly sessionId: string;
  /** The absolute canonical path of the file to edit. */
  readonly editorPath: string;
  /** The line to open at (a positive integer). */
  readonly editorLine?: number;
  /** The file lies outside the project and the user approved it. */
  readonly allowOutsideProject: boolean;
}

/** What to run for an editor terminal, or why it cannot run (the error message the socket sends). */
export type EditorTerminalPlan =
  | {
      readonly ok: true;
      /** The executable (an absolute path, or a name looked up on PATH). */
      readonly file: string;
      readonly args: readonly string[];
      readonly cwd: string;
      /** The editor executable as `ready` names it. */
      readonly shell: string;
      /** The file, as `ready` names it. */
      readonly editorPath: string;
    }
  | { readonly ok: false; readonly error: string };

/** Prepares an editor terminal (the real one is adapters/file-links/editor-terminal.ts's prepareEditorTerminal). */
export type EditorTerminalSetup = (request: EditorTerminalRequest) => Promise<EditorTerminalPlan>;

/** A program to start on a PTY, and what `ready` says about it. */
export interface TerminalLaunch {
  /** The executable, absolute. */
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** `ready.shell`: the shell, or the editor executable. */
  readonly shell: string;
  /** `ready.editorPath` of an editor terminal. */
  readonly editorPath?: string;
  /** The program's environment (TERM and COLORTERM set). */
  readonly env: Readonly<Record<string, string>>;
}
