/**
 * The workspace panel of the open session: which tool shows beside the transcript (its changes, a terminal, a
 * file preview, the session tree), the file a link asked to preview, and the session's terminals (several per session; a file link
 * whose editor is a terminal editor opens one more, running the editor).
 *
 * State only: the tools own their data (stores/review.store.ts the Git status, each terminal its socket). The
 * panel belongs to the session view: attaching another session closes its tools (their sockets close, which
 * ends their PTYs on the server).
 */
import { defineStore } from "pinia";
import { ref } from "vue";

export type WorkspaceTab = "review" | "terminal" | "file" | "tree";

/** A file link to preview: as written in the transcript, with the file it appeared in (relative links). */
export interface FileTarget {
  readonly href: string;
  readonly basePath?: string;
  /** Bumped on every request, so clicking the same link again reloads the preview. */
  readonly request: number;
}

/** An editor to run in a terminal for a file (FileDescriptor.terminalEditor). */
export interface EditorTarget {
  /** The canonical path the file action returned. */
  readonly path: string;
  readonly line?: number;
  /** The file is outside the project and the person approved it. */
  readonly allowOutsideProject: boolean;
}

export interface TerminalTab {
  readonly id: number;
  readonly title: string;
  readonly editor?: EditorTarget;
}

function baseName(path: string): string {
  return path.split("/").filter(Boolean).at(-1) ?? path;
}

export const useWorkspaceStore = defineStore("workspace", () => {
  const sessionId = ref<string | null>(null);
  /** The tool shown; null: the panel is closed. */
  const tab = ref<WorkspaceTab | null>(null);
  const file = ref<FileTarget | null>(null);
  const terminals = ref<TerminalTab[]>([]);
  const activeTerminal = ref<number | null>(null);
  let requests = 0;
  let terminalIds = 0;
  let shells = 0;

  /** The session the panel serves; another one starts with the panel closed and no terminals. */
  function attach(id: string): void {
    if (sessionId.value === id) return;
    sessionId.value = id;
    tab.value = null;
    file.value = null;
    terminals.value = [];
    activeTerminal.value = null;
    shells = 0;
  }

  function show(next: WorkspaceTab): void {
    if (next === "terminal" && terminals.value.length === 0) {
      openTerminal();
      return;
    }
    tab.value = next;
  }

  function toggle(next: WorkspaceTab): void {
    if (tab.value === next) tab.value = null;
    else show(next);
  }

  function close(): void {
    tab.value = null;
  }

  function openFile(href: string, basePath?: string): void {
    requests += 1;
    file.value = { href, ...(basePath ? { basePath } : {}), request: requests };
    tab.value = "file";
  }

  /** A new terminal (a shell, or `editor` running for a file), shown. */
  function openTerminal(editor?: EditorTarget): void {
    terminalIds += 1;
    const title = editor ? baseName(editor.path) : `Shell ${(shells += 1)}`;
    terminals.value = [...terminals.value, { id: terminalIds, title, ...(editor ? { editor } : {}) }];
    activeTerminal.value = terminalIds;
    tab.value = "terminal";
  }

  function selectTerminal(id: number): void {
    if (terminals.value.some((terminal) => terminal.id === id)) activeTerminal.value = id;
  }

  /** Removes a terminal (its socket closes, the server kills its PTY); the neighbour takes its place. */
  function closeTerminal(id: number): void {
    const index = terminals.value.findIndex((terminal) => terminal.id === id);
    if (index === -1) return;
    const rest = terminals.value.filter((terminal) => terminal.id !== id);
    terminals.value = rest;
    if (activeTerminal.value === id) activeTerminal.value = (rest[index] ?? rest[index - 1])?.id ?? null;
    if (rest.length === 0 && tab.value === "terminal") tab.value = null;
  }

  return {
    sessionId,
    tab,
    file,
    terminals,
    activeTerminal,
    attach,
    show,
    toggle,
    close,
    openFile,
    openTerminal,
    selectTerminal,
    closeTerminal,
  };
});
