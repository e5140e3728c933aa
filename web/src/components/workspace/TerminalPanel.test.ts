/**
 * TerminalPanel over the real workspace store and real TerminalViews (xterm.js in happy-dom), with a recorded
 * WebSocket per terminal: tabs, switching, new and close, and that hidden terminals keep their connection.
 */
import { mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { nextTick } from "vue";
import TerminalPanel from "./TerminalPanel.vue";
import { FakeWebSocket, resetSockets } from "./terminal.fixture.ts";
import { useWorkspaceStore } from "../../stores/workspace.store.ts";

const mounted: VueWrapper[] = [];

beforeEach(() => {
  setActivePinia(createPinia());
  resetSockets();
  vi.stubGlobal("WebSocket", FakeWebSocket);
});

afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount();
  vi.unstubAllGlobals();
  document.body.innerHTML = "";
});

function mountPanel() {
  const workspace = useWorkspaceStore();
  workspace.attach("s1");
  workspace.openTerminal();
  const wrapper = mount(TerminalPanel, { props: { sessionId: "s1" }, attachTo: document.body });
  mounted.push(wrapper);
  return { wrapper, workspace };
}

const tabs = (wrapper: VueWrapper) => wrapper.findAll("[data-test=terminal-tab]");
const views = (wrapper: VueWrapper) => wrapper.findAll("[data-test=terminal-view]");
const visible = (wrapper: VueWrapper) => views(wrapper).map((view) => (view.element as HTMLElement).style.display !== "none");

describe("TerminalPanel", () => {
  it("shows one tab and one connected terminal per terminal of the session", () => {
    const { wrapper } = mountPanel();
    expect(wrapper.find("[data-test=terminal-panel]").exists()).toBe(true);
    expect(tabs(wrapper).map((tab) => tab.text())).toEqual(["Shell 1"]);
    expect(tabs(wrapper)[0]!.attributes("aria-selected")).toBe("true");
    expect(FakeWebSocket.opened.map((socket) => socket.url)).toEqual([expect.stringMatching(/\/api\/pi\/terminal\?sessionId=s1$/)]);
  });

  it("New terminal opens another one and shows it; the first stays mounted and connected, hidden", async () => {
    const { wrapper, workspace } = mountPanel();
    await wrapper.get("[data-test=terminal-new]").trigger("click");
    expect(workspace.terminals).toHaveLength(2);
    expect(tabs(wrapper).map((tab) => tab.text())).toEqual(["Shell 1", "Shell 2"]);
    expect(tabs(wrapper).map((tab) => tab.attributes("aria-selected"))).toEqual(["false", "true"]);
    expect(visible(wrapper)).toEqual([false, true]);
    expect(FakeWebSocket.opened).toHaveLength(2);
    expect(FakeWebSocket.opened.map((socket) => socket.closed)).toEqual([false, false]);

    await tabs(wrapper)[0]!.trigger("click");
    expect(visible(wrapper)).toEqual([true, false]);
    expect(FakeWebSocket.opened).toHaveLength(2);
  });

  it("arrow keys move between tabs", async () => {
    const { wrapper, workspace } = mountPanel();
    workspace.openTerminal();
    // The new terminal mounts, then takes the focus.
    await nextTick();
    await nextTick();
    expect(document.activeElement?.classList.contains("xterm-helper-textarea")).toBe(true);
    await tabs(wrapper)[1]!.trigger("keydown", { key: "ArrowRight" });
    expect(workspace.activeTerminal).toBe(workspace.terminals[0]!.id);
    await nextTick();
    expect(document.activeElement).toBe(tabs(wrapper)[0]!.element);
    await tabs(wrapper)[0]!.trigger("keydown", { key: "End" });
    expect(workspace.activeTerminal).toBe(workspace.terminals[1]!.id);
  });

  it("closing a tab closes its terminal's socket (the server ends its shell) and removes it", async () => {
    const { wrapper, workspace } = mountPanel();
    workspace.openTerminal();
    await nextTick();
    const [first, second] = FakeWebSocket.opened;
    first!.ready();
    await wrapper.findAll("[data-test=terminal-close]")[0]!.trigger("click");
    expect(first!.closed).toBe(true);
    expect(second!.closed).toBe(false);
    expect(tabs(wrapper).map((tab) => tab.text())).toEqual(["Shell 2"]);
    expect(views(wrapper)).toHaveLength(1);
  });

  it("marks a terminal whose process ended in its tab", async () => {
    const { wrapper } = mountPanel();
    FakeWebSocket.opened[0]!.ready();
    await nextTick();
    expect(tabs(wrapper)[0]!.attributes("title")).toBe("bash · project");
    FakeWebSocket.opened[0]!.receive({ type: "exit", exitCode: 0 });
    await nextTick();
    expect(tabs(wrapper)[0]!.text()).toBe("Shell 1 (ended)");
    expect(tabs(wrapper)[0]!.attributes("title")).toBe("bash · project (ended)");
  });

  it("an editor terminal opened from a file link runs the editor; closing it while it runs asks first", async () => {
    const { wrapper, workspace } = mountPanel();
    workspace.openTerminal({ path: "/work/p/src/app.ts", line: 4, allowOutsideProject: false });
    await nextTick();
    const editor = FakeWebSocket.opened[1]!;
    expect(editor.url).toMatch(/editorPath=%2Fwork%2Fp%2Fsrc%2Fapp.ts&editorLine=4$/);
    expect(tabs(wrapper)[1]!.text()).toBe("app.ts");
    editor.ready({ shell: "/usr/bin/vim", editorPath: "/work/p/src/app.ts" });
    await nextTick();

    await wrapper.findAll("[data-test=terminal-close]")[1]!.trigger("click");
    const dialog = document.querySelector("[role=alertdialog]");
    expect(dialog?.textContent).toContain("unsaved changes are lost");
    expect(editor.closed).toBe(false);
    (document.querySelector("[data-test=confirm-cancel]") as HTMLElement).click();
    await nextTick();
    expect(workspace.terminals).toHaveLength(2);

    await wrapper.findAll("[data-test=terminal-close]")[1]!.trigger("click");
    (document.querySelector("[data-test=confirm-ok]") as HTMLElement).click();
    await nextTick();
    expect(editor.closed).toBe(true);
    expect(workspace.terminals.map((terminal) => terminal.title)).toEqual(["Shell 1"]);
  });

  it("an editor whose process ended closes without asking", async () => {
    const { wrapper, workspace } = mountPanel();
    workspace.openTerminal({ path: "/work/p/a.md", allowOutsideProject: true });
    await nextTick();
    FakeWebSocket.opened[1]!.receive({ type: "error", message: "No terminal editor is configured" });
    await nextTick();
    await wrapper.findAll("[data-test=terminal-close]")[1]!.trigger("click");
    expect(document.querySelector("[role=alertdialog]")).toBeNull();
    expect(workspace.terminals).toHaveLength(1);
  });
});
