/**
 * Whether the transcript shows file links, and what a click on one does: the backend previews files
 * (capabilities.fileLinks) and a session's workspace panel is there to show the preview (workspace.store.ts
 * attached to a session). A click asks the workspace to preview the link (FilePreview does the rest).
 *
 * Components that use it may be mounted without Pinia (unit tests of a Markdown block): then links are off.
 */
import { computed, type ComputedRef } from "vue";
import { useBackendStore } from "../stores/backend.store.ts";
import { useWorkspaceStore } from "../stores/workspace.store.ts";

export interface FileLinks {
  readonly enabled: ComputedRef<boolean>;
  /** Previews `href` (a path or file: URL, with a line suffix); `basePath`: the file it appeared in. */
  open(href: string, basePath?: string): void;
}

/** The stores, or null without Pinia (useStore throws then; asking Pinia first would log an injection warning). */
function stores(): { backend: ReturnType<typeof useBackendStore>; workspace: ReturnType<typeof useWorkspaceStore> } | null {
  try {
    return { backend: useBackendStore(), workspace: useWorkspaceStore() };
  } catch {
    return null;
  }
}

export function useFileLinks(): FileLinks {
  const found = stores();
  const backend = found?.backend ?? null;
  const workspace = found?.workspace ?? null;
  const enabled = computed(() => backend?.info?.capabilities.fileLinks === true && workspace !== null && workspace.sessionId !== null);
  return {
    enabled,
    open(href, basePath) {
      if (enabled.value) workspace?.openFile(href, basePath);
    },
  };
}
