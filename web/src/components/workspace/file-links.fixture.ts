/**
 * Test helpers for file links and the file preview: a Pinia with a backend that previews files (or not) and a
 * workspace attached to a session, and the answers of the session file route (api/files.ts shapes).
 */
import { createPinia, setActivePinia, type Pinia } from "pinia";
import type { FileDescriptor, FileSettings, ImageFilePreview, TextFilePreview } from "../../api/files.ts";
import { CAPABILITY_NAMES, type CapabilityName } from "../../backend-info.ts";
import { useBackendStore } from "../../stores/backend.store.ts";
import { useWorkspaceStore } from "../../stores/workspace.store.ts";

export const SESSION = "s1";

/** A fresh active Pinia whose backend has `fileLinks` as given, with the workspace attached to SESSION. */
export function fileLinksPinia(fileLinks = true): Pinia {
  const pinia = createPinia();
  setActivePinia(pinia);
  const capabilities = Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, name === "fileLinks" ? fileLinks : false])) as Record<
    CapabilityName,
    boolean
  >;
  useBackendStore().$patch({ status: "ready", info: { name: "Leyline", version: "0.1.0", apiVersion: 2, capabilities } });
  useWorkspaceStore().attach(SESSION);
  return pinia;
}

export function descriptor(overrides: Partial<FileDescriptor> = {}): FileDescriptor {
  return {
    path: "/work/app/src/app.ts",
    outsideProject: false,
    needsApproval: false,
    editorAvailable: true,
    terminalEditor: false,
    revealLabel: null,
    ...overrides,
  };
}

export function textPreview(content: string, overrides: Partial<TextFilePreview> = {}): TextFilePreview {
  return {
    ...descriptor(),
    kind: "file",
    content,
    language: "typescript",
    size: new TextEncoder().encode(content).length,
    modifiedAt: "2025-03-01T10:20:30.000Z",
    lineCount: content.split("\n").length - (content.endsWith("\n") ? 1 : 0),
    ...overrides,
  };
}

/** A 1×1 transparent PNG. */
export const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

export function imagePreview(overrides: Partial<ImageFilePreview> = {}): ImageFilePreview {
  return {
    ...descriptor({ path: "/work/app/logo.png" }),
    kind: "image",
    data: PNG_1X1,
    mimeType: "image/png",
    size: 68,
    modifiedAt: "2025-03-01T10:20:30.000Z",
    ...overrides,
  };
}

export function fileSettings(overrides: Partial<FileSettings> = {}): FileSettings {
  return {
    editor: "",
    environmentEditor: "vim",
    effectiveEditor: "vim",
    editorMode: "auto",
    terminalEditor: true,
    revealLabel: "Show in Files",
    ...overrides,
  };
}
