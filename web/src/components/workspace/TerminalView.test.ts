/**
 * TerminalView with a real xterm.js (it runs in happy-dom with its DOM renderer; nothing is measured, so the fit
 * addon leaves the default 80×24) and a recorded WebSocket for which the test plays the server.
 */
import type { Terminal } from "@xterm/xterm";
import { mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { nextTick } from "vue";
import TerminalView from "./TerminalView.vue";
import { FakeWebSocket, resetSockets } from "./terminal.fixture.ts";
import { ANSI_PALETTES } from "./terminal-theme.ts";
import { useTheme } from "../../composables/use-theme.ts";
import { useNoticesStore } from "../../stores/notices.store.ts";
import type { TerminalTab } from "../../stores/workspace.store.ts";

const clipboard = { writeText: vi.fn(async (_text: string) => undefined), readText: vi.fn(async () => "") };
const mounted: VueWrapper[] = [];

beforeEach(() => {
  setActivePinia(createPinia());
  resetSockets();
  vi.stubGlobal("WebSocket", FakeWebSocket);
  Object.defineProperty(navigator, "clipboard", { value: clipboard, configurable: true });
  clipboard.writeText.mockClear();
  clipboard.readText.mockReset().mockResolvedValue("");
});

afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount();
  vi.unstubAllGlobals();
  document.body.innerHTML = "";
  useTheme().setTheme("dark");
});

function mountView(terminal: TerminalTab = { id: 1, title: "Shell 1" }, active = true) {
  const wrapper = mount(TerminalView, { props: { sessionId: "s1", terminal, active }, attachTo: document.body });
  mounted.push(wrapper);
  const term = (wrapper.vm as unknown as { terminal(): Terminal }).terminal();
  return { wrapper, term, socket: () => FakeWebSocket.opened.at(-1)! };
}

/** Waits until xterm parsed what was written so far. */
const flushed = (term: Terminal) => new Promise<void>((resolve) => term.write("", resolve));

function screenText(term: Terminal): string {
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? "");
  return lines.join("\n").trimEnd();
}

function key(term: Terminal, init: KeyboardEventInit & { keyCode?: number }): void {
  const textarea = term.textarea!;
  textarea.dispatchEvent(new KeyboardEvent("keydown", { bubbles: true, cancelable: true, ...init }));
}

describe("TerminalView: the connection", () => {
  it("connects for the session, says Connecting…, and sends nothing (not even typing) before ready", async () => {
    const { wrapper, term, socket } = mountView();
    expect(FakeWebSocket.opened).toHaveLength(1);
    expect(socket().url).toMatch(/^ws:\/\/[^/]+\/api\/pi\/terminal\?sessionId=s1$/);
    expect(wrapper.get("[data-test=terminal-status]").text()).toBe("Connecting…");
    term.input("ls\r");
    expect(socket().sent).toEqual([]);

    socket().ready();
    await nextTick();
    expect(socket().messages()).toEqual([
      { type: "resize", cols: 80, rows: 24 },
      { type: "input", data: "ls\r" },
    ]);
    expect(wrapper.find("[data-test=terminal-status]").exists()).toBe(false);
    expect(wrapper.emitted("state")?.at(-1)).toEqual([{ phase: "ready", title: "bash · project" }]);
  });

  it("writes the output to the screen and sends what is typed", async () => {
    const { term, socket } = mountView();
    socket().ready();
    socket().receive({ type: "data", data: "hello\r\nworld" });
    await flushed(term);
    expect(screenText(term)).toBe("hello\nworld");
    term.input("x");
    expect(socket().inputs()).toEqual(["x"]);
  });

  it("says the exit code and offers Restart, which starts a new shell and marks it on the screen", async () => {
    const { wrapper, term, socket } = mountView();
    const first = socket();
    first.ready();
    first.receive({ type: "exit", exitCode: 3 });
    await nextTick();
    expect(first.closed).toBe(true);
    expect(wrapper.get("[data-test=terminal-status]").text()).toBe("Process exited with code 3. Restart starts a new shell.");
    expect(wrapper.emitted("state")?.at(-1)).toEqual([{ phase: "exited", title: "bash · project" }]);

    await wrapper.get("[data-test=terminal-restart]").trigger("click");
    expect(FakeWebSocket.opened).toHaveLength(2);
    expect(wrapper.get("[data-test=terminal-status]").text()).toBe("Starting a new shell…");
    socket().ready();
    await flushed(term);
    await nextTick();
    expect(screenText(term)).toContain("--- a new shell ---");
    expect(wrapper.find("[data-test=terminal-restart]").exists()).toBe(false);
  });

  it("shows server errors in words, as an alert, with Restart", async () => {
    const { wrapper, socket } = mountView();
    socket().receive({ type: "error", message: "Session not found" });
    await nextTick();
    const status = wrapper.get("[data-test=terminal-status]");
    expect(status.text()).toBe("Could not start the terminal: Session not found. Restart starts a new shell.");
    expect(status.attributes("role")).toBe("alert");
    expect(wrapper.find("[data-test=terminal-restart]").exists()).toBe(true);
  });

  it("a dropped connection says the shell ended", async () => {
    const { wrapper, socket } = mountView();
    socket().ready();
    socket().drop();
    await nextTick();
    expect(wrapper.get("[data-test=terminal-status]").text()).toMatch(/connection to the terminal was lost; its shell has ended/);
  });

  it("an editor terminal asks for the file, shows its name and speaks of the editor", async () => {
    const editor = { path: "/work/project/src/app.ts", line: 7, allowOutsideProject: true };
    const { wrapper, socket } = mountView({ id: 2, title: "app.ts", editor });
    expect(socket().url).toMatch(/sessionId=s1&editorPath=%2Fwork%2Fproject%2Fsrc%2Fapp.ts&editorLine=7&allowOutsideProject=true$/);
    expect(wrapper.get("[data-test=terminal-editor-file]").text()).toBe("app.ts:7");
    expect(wrapper.get("[data-test=terminal-editor-file]").attributes("title")).toBe(editor.path);
    socket().receive({ type: "error", message: "The file changed since it was approved" });
    await nextTick();
    expect(wrapper.get("[data-test=terminal-status]").text()).toBe(
      "Could not open the editor: The file changed since it was approved. Restart opens the editor again.",
    );
  });

  it("closes the socket and disposes xterm when unmounted", () => {
    const { wrapper, socket } = mountView();
    socket().ready();
    wrapper.unmount();
    mounted.splice(0);
    expect(socket().closed).toBe(true);
    expect(document.querySelector(".xterm")).toBeNull();
  });
});

describe("TerminalView: copy and paste", () => {
  async function readyWith(text: string) {
    const view = mountView();
    view.socket().ready();
    view.socket().receive({ type: "data", data: text });
    await flushed(view.term);
    return view;
  }

  it("Ctrl+Shift+C copies the selection and sends nothing; Ctrl+C without a selection is an interrupt", async () => {
    const { term, socket } = await readyWith("hello world");
    term.select(0, 0, 5);
    key(term, { key: "C", ctrlKey: true, shiftKey: true, keyCode: 67 });
    await Promise.resolve();
    expect(clipboard.writeText).toHaveBeenCalledWith("hello");
    expect(socket().inputs()).toEqual([]);

    term.clearSelection();
    key(term, { key: "c", ctrlKey: true, keyCode: 67 });
    expect(socket().inputs()).toEqual(["\u0003"]);
  });

  it("Ctrl+C with a selection copies it instead of interrupting", async () => {
    const { term, socket } = await readyWith("hello world");
    term.select(6, 0, 5);
    key(term, { key: "c", ctrlKey: true, keyCode: 67 });
    await Promise.resolve();
    expect(clipboard.writeText).toHaveBeenCalledWith("world");
    expect(socket().inputs()).toEqual([]);
  });

  it("Ctrl+Shift+V and Shift+Insert reach the program only as the browser's paste, never as keys", async () => {
    const { term, socket } = await readyWith("");
    key(term, { key: "V", ctrlKey: true, shiftKey: true, keyCode: 86 });
    key(term, { key: "Insert", shiftKey: true, keyCode: 45 });
    expect(socket().inputs()).toEqual([]);
    // The paste event the browser then fires is xterm's to handle: it sends the text as input.
    term.paste("pasted");
    expect(socket().inputs()).toEqual(["pasted"]);
  });

  it("the context menu copies the selection, pastes the clipboard, selects all and clears", async () => {
    const { wrapper, term, socket } = await readyWith("zero\r\none two");
    const screen = wrapper.get("[data-test=terminal-screen]");
    await screen.trigger("contextmenu", { clientX: 20, clientY: 30 });
    expect(wrapper.get("[data-test=terminal-menu]").attributes("role")).toBe("menu");
    expect(wrapper.get("[data-test=terminal-menu-copy]").attributes("disabled")).toBeDefined();
    expect(document.activeElement).toBe(wrapper.get("[data-test=terminal-menu-paste]").element);

    await wrapper.get("[data-test=terminal-menu-select-all]").trigger("click");
    expect(wrapper.find("[data-test=terminal-menu]").exists()).toBe(false);
    expect(term.getSelection()).toContain("one two");

    term.select(4, 1, 3);
    await screen.trigger("contextmenu");
    await wrapper.get("[data-test=terminal-menu-copy]").trigger("click");
    await vi.waitFor(() => expect(clipboard.writeText).toHaveBeenCalledWith("two"));

    clipboard.readText.mockResolvedValue("echo pasted");
    await screen.trigger("contextmenu");
    await wrapper.get("[data-test=terminal-menu-paste]").trigger("click");
    await vi.waitFor(() => expect(socket().inputs()).toEqual(["echo pasted"]));

    await screen.trigger("contextmenu");
    await wrapper.get("[data-test=terminal-menu-clear]").trigger("click");
    await flushed(term);
    // xterm's clear keeps the cursor's line (the prompt) as the first line.
    expect(screenText(term)).toBe("one two");
  });

  it("Escape closes the menu; Shift+right-click keeps the browser's menu; a refused clipboard is reported", async () => {
    const { wrapper } = await readyWith("x");
    const screen = wrapper.get("[data-test=terminal-screen]");
    await screen.trigger("contextmenu");
    await wrapper.get("[data-test=terminal-menu]").trigger("keydown", { key: "Escape" });
    expect(wrapper.find("[data-test=terminal-menu]").exists()).toBe(false);
    await screen.trigger("contextmenu", { shiftKey: true });
    expect(wrapper.find("[data-test=terminal-menu]").exists()).toBe(false);

    clipboard.readText.mockRejectedValue(new Error("Read permission denied."));
    await screen.trigger("contextmenu");
    await wrapper.get("[data-test=terminal-menu-paste]").trigger("click");
    await vi.waitFor(() =>
      expect(useNoticesStore().notices.map((n) => n.message)).toEqual(["Read permission denied. Paste with Ctrl+Shift+V instead."]),
    );
  });
});

describe("TerminalView: look", () => {
  it("takes its colours from the app's tokens and follows the theme switch", async () => {
    const tokens = document.createElement("style");
    // happy-dom does not inherit custom properties: the tokens are set on the view itself, per theme.
    tokens.textContent = `[data-test="terminal-view"] { --code-bg: #101010; --text: #eeeeee; --mono: Test Mono, monospace; }
      :root[data-theme="light"] [data-test="terminal-view"] { --code-bg: #fafafa; --text: #111111; }`;
    document.head.append(tokens);
    try {
      const { term } = mountView();
      expect(term.options.theme).toMatchObject({ background: "#101010", foreground: "#eeeeee", red: ANSI_PALETTES.dark.red });
      expect(term.options.fontFamily).toBe("Test Mono, monospace");

      useTheme().setTheme("light");
      await nextTick();
      await nextTick();
      expect(term.options.theme).toMatchObject({ background: "#fafafa", foreground: "#111111", white: ANSI_PALETTES.light.white });
    } finally {
      tokens.remove();
    }
  });

  it("focuses the terminal when it becomes visible", async () => {
    const { wrapper, term } = mountView({ id: 1, title: "Shell 1" }, false);
    await nextTick();
    expect(document.activeElement).not.toBe(term.textarea);
    await wrapper.setProps({ active: true });
    await nextTick();
    expect(document.activeElement).toBe(term.textarea);
  });
});
