/**
 * Files given to the composer: the attach button (a real file input, phone friendly), paste and drop all go
 * through composer-files.ts: images become attachments, UTF-8 text files are appended to the draft as fenced
 * blocks, anything else is refused in words. Files read for a session the composer has left meanwhile are dropped.
 * When the clipboard also holds text (copying from a page gives both), the text is pasted and only images attach.
 */
import { ref, type Ref } from "vue";
import { ATTACH_ACCEPT, readComposerFile, refusalText, withFileBlocks } from "./composer-files.ts";
import { filesOf, type Attachment } from "./composer-images.ts";
import { isPromptImageType } from "./composer-logic.ts";

export interface ComposerFilesHost {
  sessionId: () => string;
  text: Ref<string>;
  attachments: Ref<Attachment[]>;
  error: Ref<string>;
  fail: (problem: unknown) => void;
}

export function useComposerFiles(host: ComposerFilesHost) {
  const { text, attachments, error } = host;

  /** Images attach; text files are appended to the draft as fenced blocks; the rest is refused in words. */
  async function attach(files: File[]): Promise<void> {
    const refused: Array<{ name: string; reason: string }> = [];
    const blocks: string[] = [];
    const images: Attachment[] = [];
    const sessionId = host.sessionId();
    for (const file of files) {
      try {
        const reading = await readComposerFile(file);
        if (reading.kind === "image") images.push(reading.attachment);
        else if (reading.kind === "text") blocks.push(reading.block);
        else refused.push(reading);
      } catch (problem) {
        host.fail(problem);
      }
    }
    // Another session meanwhile: its composer does not get these files.
    if (host.sessionId() !== sessionId) return;
    if (images.length > 0) attachments.value = [...attachments.value, ...images];
    if (blocks.length > 0) text.value = withFileBlocks(text.value, blocks);
    if (refused.length > 0) error.value = `Not attached: ${refusalText(refused)}`;
  }

  function onPaste(event: ClipboardEvent): void {
    const hasText = Array.from(event.clipboardData?.types ?? []).includes("text/plain");
    const all = filesOf(event.clipboardData);
    const files = hasText ? all.filter((file) => isPromptImageType(file.type)) : all;
    if (files.length === 0) return;
    if (!hasText) event.preventDefault();
    void attach(files);
  }

  const fileInput = ref<HTMLInputElement | null>(null);
  function chooseFiles(): void {
    fileInput.value?.click();
  }
  function onFilesChosen(): void {
    const element = fileInput.value;
    if (element === null) return;
    const files = Array.from(element.files ?? []);
    // The same file may be chosen again later.
    element.value = "";
    if (files.length > 0) void attach(files);
  }

  const dragging = ref(false);
  function onDragover(event: DragEvent): void {
    if (!Array.from(event.dataTransfer?.types ?? []).includes("Files")) return;
    event.preventDefault();
    dragging.value = true;
  }
  function onDragleave(): void {
    dragging.value = false;
  }
  function onDrop(event: DragEvent): void {
    dragging.value = false;
    const files = filesOf(event.dataTransfer);
    if (files.length === 0) return;
    event.preventDefault();
    void attach(files);
  }

  function removeAttachment(id: string): void {
    attachments.value = attachments.value.filter((a) => a.id !== id);
  }

  return {
    accept: ATTACH_ACCEPT,
    fileInput,
    chooseFiles,
    onFilesChosen,
    onPaste,
    dragging,
    onDragover,
    onDragleave,
    onDrop,
    removeAttachment,
  };
}
