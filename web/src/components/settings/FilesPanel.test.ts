import { flushPromises, mount } from "@vue/test-utils";
import { describe, expect, it } from "vitest";
import type { FileSettings } from "../../api/files.ts";
import { cleanedAfterEach, fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import { fileLinksPinia, fileSettings } from "../workspace/file-links.fixture.ts";
import { useBackendStore } from "../../stores/backend.store.ts";
import FilesPanel from "./FilesPanel.vue";
import { mcpInventory } from "./pi-settings.fixture.ts";
import SettingsModal from "./SettingsModal.vue";

const SETTINGS = "/api/pi/files/settings";

const mounted = cleanedAfterEach();

/** A Files settings backend: the stored settings, a PUT that refuses commands with `;` (400) as the spec says. */
function filesBackend(initial: FileSettings) {
  let stored = initial;
  return (request: RecordedRequest): FakeAnswer | undefined => {
    if (request.path !== SETTINGS) return undefined;
    if (request.method === "GET") return { body: stored };
    const body = request.body as { editor?: string; editorMode?: FileSettings["editorMode"] };
    if (body.editor?.includes(";")) return { status: 400, body: { ...stored, error: "The editor command contains a shell operator (;)" } };
    const editor = body.editor?.trim() ?? stored.editor;
    const effectiveEditor = editor || stored.environmentEditor;
    const editorMode = body.editorMode ?? stored.editorMode;
    stored = {
      ...stored,
      editor,
      effectiveEditor,
      editorMode,
      terminalEditor: editorMode === "terminal" || (editorMode === "auto" && /^(vim|nano|hx)\b/.test(effectiveEditor)),
    };
    if (effectiveEditor === "nonexistent-editor") stored = { ...stored, error: "nonexistent-editor was not found on the PATH" };
    else delete stored.error;
    return { body: stored };
  };
}

async function mountPanel(initial = fileSettings()) {
  const pinia = fileLinksPinia();
  mounted.backend = fakeBackend(filesBackend(initial));
  mounted.wrapper = mount(FilesPanel, { global: { plugins: [pinia] }, attachTo: document.body });
  await flushPromises();
  return { w: mounted.wrapper, requests: mounted.backend.requests };
}

const puts = (requests: RecordedRequest[]) => requests.filter((r) => r.method === "PUT").map((r) => r.body);

describe("Files settings", () => {
  it("shows the stored command, the EDITOR fallback, the mode, the effective editor and reveal", async () => {
    const { w } = await mountPanel();
    const input = w.get<HTMLInputElement>("[data-test=files-editor]");
    expect(input.element.value).toBe("");
    expect(input.attributes("placeholder")).toBe("vim");
    expect(w.get<HTMLInputElement>("[data-test=files-mode-auto]").element.checked).toBe(true);
    expect(w.get("[data-test=files-effective-editor]").text()).toBe("vim");
    expect(w.get("[data-test=files-terminal]").text()).toContain("runs in a terminal");
    expect(w.get("[data-test=files-reveal]").text()).toContain("Show in Files");
    expect(w.get("[data-test=files-save]").attributes("disabled")).toBeDefined();
    expect(w.find("[data-test=files-error]").exists()).toBe(false);
  });

  it("saves the command and mode and shows the server's answer", async () => {
    const { w, requests } = await mountPanel();
    await w.get("[data-test=files-editor]").setValue("code --wait");
    await w.get("[data-test=files-mode-desktop]").setValue(true);
    await w.get("form").trigger("submit");
    await flushPromises();
    expect(puts(requests)).toEqual([{ editor: "code --wait", editorMode: "desktop" }]);
    expect(w.get("[data-test=files-effective-editor]").text()).toBe("code --wait");
    expect(w.get("[data-test=files-terminal]").text()).toContain("opens as a desktop app");
    expect(w.get("[data-test=files-saved]").text()).toBe("Saved");
    expect(w.get("[data-test=files-save]").attributes("disabled")).toBeDefined();
  });

  it("shows a refused command's reason inline and keeps what was typed", async () => {
    const { w, requests } = await mountPanel();
    const input = w.get<HTMLInputElement>("[data-test=files-editor]");
    await input.setValue("vim; rm -rf ~");
    await w.get("[data-test=files-save]").trigger("click");
    await flushPromises();
    expect(puts(requests)).toHaveLength(1);
    expect(w.get("[data-test=files-error]").text()).toBe("The editor command contains a shell operator (;)");
    expect(input.element.value).toBe("vim; rm -rf ~");
    expect(input.attributes("aria-invalid")).toBe("true");
    expect(w.get("[data-test=files-effective-editor]").text()).toBe("vim");
    expect(w.find("[data-test=files-saved]").exists()).toBe(false);
    expect(w.get("[data-test=files-save]").attributes("disabled")).toBeUndefined();
  });

  it("shows the error of a saved command that cannot run", async () => {
    const { w } = await mountPanel();
    await w.get("[data-test=files-editor]").setValue("nonexistent-editor");
    await w.get("form").trigger("submit");
    await flushPromises();
    expect(w.get("[data-test=files-error]").text()).toBe("nonexistent-editor was not found on the PATH");
    expect(w.find("[data-test=files-saved]").exists()).toBe(false);
  });

  it("says when there is no editor and no reveal", async () => {
    const { w } = await mountPanel(fileSettings({ environmentEditor: "", effectiveEditor: "", terminalEditor: false, revealLabel: null }));
    expect(w.get("[data-test=files-effective-editor]").text()).toContain("not offered");
    expect(w.find("[data-test=files-terminal]").exists()).toBe(false);
    expect(w.get("[data-test=files-reveal]").text()).toContain("not available");
  });
});

describe("Settings modal Files section", () => {
  async function mountModal(fileLinks: boolean) {
    const pinia = fileLinksPinia(fileLinks);
    // The pi sections are offered (the modal's first tabs) only on a backend with Pi Settings.
    const info = useBackendStore(pinia).info;
    if (info !== null) info.capabilities.piSettings = true;
    const files = filesBackend(fileSettings());
    mounted.backend = fakeBackend((request) => {
      if (request.path.startsWith("/api/pi/settings/providers")) return { body: { revision: "r1", providers: [] } };
      if (request.path.startsWith("/api/pi/settings/mcp")) return { body: mcpInventory("m1") };
      return files(request);
    });
    mounted.wrapper = mount(SettingsModal, { global: { plugins: [pinia] }, attachTo: document.body });
    await flushPromises();
    return { w: mounted.wrapper, requests: mounted.backend.requests };
  }

  it("is a tab only when the backend has file links", async () => {
    const off = await mountModal(false);
    expect(off.w.find("[data-test=settings-section-files]").exists()).toBe(false);
    expect(off.requests.some((r) => r.path === SETTINGS)).toBe(false);
    off.w.unmount();
    mounted.backend?.restore();

    const { w } = await mountModal(true);
    const tab = w.get("[data-test=settings-section-files]");
    expect(tab.text()).toBe("Files");
    await tab.trigger("click");
    expect(w.get("[data-test=settings-files]").isVisible()).toBe(true);
    expect(w.find("[data-test=files-settings]").exists()).toBe(true);
    // Arrow keys move through the tabs and wrap around: Files sits after pi's two sections.
    await tab.trigger("keydown", { key: "ArrowDown" });
    expect(w.get("[data-test=settings-section-appearance]").attributes("aria-selected")).toBe("true");
    await w.get("[data-test=settings-section-appearance]").trigger("keydown", { key: "End" });
    await w.get("[data-test=settings-section-connections]").trigger("keydown", { key: "ArrowDown" });
    expect(w.get("[data-test=settings-section-models]").attributes("aria-selected")).toBe("true");
    await w.get("[data-test=settings-section-models]").trigger("keydown", { key: "ArrowUp" });
    await w.get("[data-test=settings-section-connections]").trigger("keydown", { key: "Home" });
    await w.get("[data-test=settings-section-models]").trigger("keydown", { key: "ArrowDown" });
    await w.get("[data-test=settings-section-mcp]").trigger("keydown", { key: "ArrowDown" });
    expect(tab.attributes("aria-selected")).toBe("true");
  });
});
