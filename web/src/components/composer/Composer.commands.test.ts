import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it, vi } from "vitest";
import { createMemoryHistory, createRouter, type Router } from "vue-router";
import type { Active, SlashCommand } from "../../../../domain/runtime/runtime-types.ts";
import { detailSession } from "../../lib/live-messages.fixture.ts";
import { useBackendStore } from "../../stores/backend.store.ts";
import { useOpenSessionStore } from "../../stores/open-session.store.ts";
import { useWorkspaceStore } from "../../stores/workspace.store.ts";
import { activeOf, cleanedAfterEach, fakeBackend, FAST_MODEL, type FakeAnswer, type RecordedRequest } from "./composer.fixture.ts";
import Composer from "./Composer.vue";

const mounted = cleanedAfterEach();

const COMMANDS: SlashCommand[] = [
  { name: "ask", description: "Ask a question about the code", source: "extension" },
  { name: "review", description: "Review the diff", source: "prompt" },
  { name: "skill:pdf", description: "Read PDF files", source: "skill" },
];

type Handler = (request: RecordedRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>;

async function mountComposer(active: Active | null, handler?: Handler, options: { router?: Router } = {}) {
  mounted.backend = fakeBackend(handler);
  const pinia = createPinia();
  setActivePinia(pinia);
  const plugins = options.router === undefined ? [pinia] : [pinia, options.router];
  mounted.wrapper = mount(Composer, {
    props: {
      sessionId: "s1",
      active,
      cwd: "/tmp/project",
      facts: active === null ? { model: { provider: "faux", id: "faux-1" }, thinkingLevel: "low", fileVersion: 3 } : undefined,
    },
    global: { plugins },
    attachTo: document.body,
  });
  await flushPromises();
  return { wrapper: mounted.wrapper, requests: mounted.backend.requests };
}

const withCommands = (overrides: Parameters<typeof activeOf>[0] = {}, revision = 1) =>
  activeOf({ slashCommands: COMMANDS, ...overrides }, revision);
const field = (w: VueWrapper) => w.get("[data-test=composer-input]");
const value = (w: VueWrapper) => (field(w).element as HTMLTextAreaElement).value;
const options = (w: VueWrapper) => w.findAll("[data-test=slash-option]").map((o) => o.get(".label").text());

async function type(w: VueWrapper, text: string) {
  await field(w).trigger("focus");
  await field(w).setValue(text);
}

async function press(w: VueWrapper, key: string, init: KeyboardEventInit = {}) {
  await field(w).trigger("keydown", { key, ...init });
  await flushPromises();
}

describe("the slash menu", () => {
  it("lists the built-ins and the runtime's commands with description and source, filtered as one types", async () => {
    const { wrapper: w } = await mountComposer(withCommands());
    await type(w, "/");
    const listbox = w.get("[data-test=slash-menu] [role=listbox]");
    expect(options(w)).toEqual([
      "/model",
      "/thinking",
      "/compact",
      "/name",
      "/tree",
      "/fork",
      "/export",
      "/reload",
      "/new",
      "/ask",
      "/review",
      "/skill:pdf",
    ]);
    const ask = w.get("[data-test=slash-option][data-key='command:ask']");
    expect(ask.attributes("role")).toBe("option");
    expect(ask.text()).toContain("Ask a question about the code");
    expect(ask.get("[data-test=slash-source]").text()).toBe("extension");
    expect(w.get("[data-key='command:model']").text()).toContain("[provider/model]");
    // The input points at the highlighted option.
    expect(field(w).attributes("aria-controls")).toBe(listbox.attributes("id"));
    expect(field(w).attributes("aria-activedescendant")).toBe(w.findAll("[role=option]")[0]?.attributes("id"));

    await type(w, "/re");
    expect(options(w)).toEqual(["/reload", "/review", "/tree"]);
    await type(w, "/nothing-like-it");
    expect(options(w)).toEqual([]);
    expect(w.get("[data-test=slash-note]").text()).toBe("No command matches /nothing-like-it.");
  });

  it("moves with the arrows, completes with Tab and closes with Escape", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands());
    await type(w, "/re");
    await press(w, "ArrowDown");
    const selected = () => w.findAll("[role=option]").findIndex((o) => o.attributes("aria-selected") === "true");
    expect(selected()).toBe(1);
    expect(field(w).attributes("aria-activedescendant")).toBe(w.findAll("[role=option]")[1]?.attributes("id"));
    await press(w, "ArrowUp");
    await press(w, "ArrowUp");
    expect(selected()).toBe(2);
    await press(w, "Tab");
    expect(value(w)).toBe("/tree");
    await press(w, "Escape");
    expect(w.find("[data-test=slash-menu]").exists()).toBe(false);
    expect(field(w).attributes("aria-activedescendant")).toBeUndefined();
    // Typing again opens it again.
    await type(w, "/mo");
    await press(w, "Tab");
    expect(value(w)).toBe("/model ");
    // The argument: the runtime's models.
    expect(options(w)).toEqual(["faux/faux-1", "openai/gpt-6-astra"]);
    expect(requests).toEqual([]);
  });

  it("says, before pi runs, that the runtime's commands come once it does", async () => {
    const { wrapper: w } = await mountComposer(null);
    await type(w, "/");
    expect(options(w)).toHaveLength(9);
    expect(w.get("[data-test=slash-note]").text()).toContain("listed once pi runs");
  });

  it("chooses an option with the pointer without losing the input's focus", async () => {
    const { wrapper: w } = await mountComposer(withCommands());
    await type(w, "/sk");
    const option = w.get("[data-key='command:skill:pdf']");
    const down = new MouseEvent("mousedown", { bubbles: true, cancelable: true });
    option.element.dispatchEvent(down);
    expect(down.defaultPrevented).toBe(true);
    await option.trigger("click");
    expect(value(w)).toBe("/skill:pdf ");
  });
});

describe("built-in commands", () => {
  it("Enter on a partly typed command without argument completes and runs it: /tree opens the tree panel", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands());
    useWorkspaceStore().attach("s1");
    await type(w, "/tr");
    await press(w, "Enter");
    expect(useWorkspaceStore().tab).toBe("tree");
    expect(value(w)).toBe("");
    useWorkspaceStore().close();
    await type(w, "/fork");
    await press(w, "Enter");
    expect(useWorkspaceStore().tab).toBe("tree");
    expect(requests).toEqual([]);
  });

  it("/model and /thinking with an argument select it; without one they open the picker", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands(), (request) => {
      if (request.path.endsWith("/model")) return { body: { ok: true, active: withCommands({ model: FAST_MODEL }, 2) } };
      return { body: { ok: true, active: withCommands({ thinkingLevel: "high" }, 3) } };
    });
    await type(w, "/model astra");
    await press(w, "Enter");
    await type(w, "/thinking HIGH");
    await press(w, "Escape");
    await press(w, "Enter");
    expect(requests.map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/sessions/s1/model", { provider: "openai", id: "gpt-6-astra" }],
      ["/api/pi/sessions/s1/thinking", { level: "high" }],
    ]);
    expect(value(w)).toBe("");
    await type(w, "/model");
    await press(w, "Enter");
    expect(document.activeElement).toBe(w.get("[data-test=model-picker]").element);
    expect(value(w)).toBe("");
  });

  it("says what is wrong with an argument and keeps the draft", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands());
    await type(w, "/thinking max");
    await press(w, "Escape");
    await press(w, "Enter");
    expect(w.get("[data-test=composer-error]").text()).toBe("Unknown thinking level “max”: choose off, low, high.");
    expect(value(w)).toBe("/thinking max");
    await type(w, "/name");
    await press(w, "Escape");
    await press(w, "Enter");
    expect(w.get("[data-test=composer-error]").text()).toBe("Give the new name: /name <name>.");
    expect(requests).toEqual([]);
  });

  it("before pi runs, /model <arg> waits for the folder's model list on its way", async () => {
    let release: () => void = () => undefined;
    const listed = new Promise<void>((resolve) => (release = resolve));
    const handler: Handler = async (request) => {
      if (request.path.startsWith("/api/pi/state")) {
        await listed;
        return { body: { active: { ...activeOf(), id: "", path: "" } } };
      }
      if (request.path === "/api/pi/active-session") return { body: { active: activeOf({}, 1) } };
      if (request.path.endsWith("/model")) return { body: { ok: true, active: activeOf({ model: FAST_MODEL }, 2) } };
      return undefined;
    };
    const { wrapper: w, requests } = await mountComposer(null, handler);
    await type(w, "/model astra");
    expect(w.get("[data-test=slash-note]").text()).toBe("Loading the models…");
    await press(w, "Enter");
    expect(w.find("[data-test=composer-error]").exists()).toBe(false);
    release();
    await vi.waitFor(() => expect(requests.map((r) => r.path)).toContain("/api/pi/sessions/s1/model"));
    expect(requests.find((r) => r.path.endsWith("/model"))?.body).toEqual({ provider: "openai", id: "gpt-6-astra" });
    expect(requests.filter((r) => r.path.startsWith("/api/pi/state"))).toHaveLength(1);
  });

  it("before pi runs, /model <arg> typed just before switching sessions does nothing to either", async () => {
    let release: () => void = () => undefined;
    const listed = new Promise<void>((resolve) => (release = resolve));
    const { wrapper: w, requests } = await mountComposer(null, async (request) => {
      if (request.path.startsWith("/api/pi/state")) {
        await listed;
        return { body: { active: { ...activeOf(), id: "", path: "" } } };
      }
      return { body: { ok: true, active: activeOf({}, 1) } };
    });
    await type(w, "/model openai/gpt-6-astra");
    await press(w, "Enter");
    await w.setProps({ sessionId: "s2" });
    release();
    await flushPromises();
    expect(requests.map((r) => r.path).filter((path) => !path.startsWith("/api/pi/state"))).toEqual([]);
    expect(w.find("[data-test=composer-error]").exists()).toBe(false);
    // The previous session's answer was dropped: this session's list is asked for.
    await type(w, "/model ");
    await flushPromises();
    expect(requests.filter((r) => r.path.startsWith("/api/pi/state"))).toHaveLength(2);
  });

  it("refuses /model and /compact while pi works, in words", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands({ isStreaming: true }));
    await type(w, "/compact now");
    await press(w, "Enter");
    expect(w.get("[data-test=composer-error]").text()).toBe("/compact waits until pi is idle: let the turn end, or interrupt it.");
    expect(requests).toEqual([]);
  });

  it("/compact with instructions, /reload and /name call their routes", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands(), (request) => {
      if (request.method === "PATCH")
        return {
          body: { ok: true, detail: { session: detailSession("s1", { name: "Renamed" }), entries: [] }, session: detailSession("s1") },
        };
      return { body: { ok: true, active: withCommands({}, 5), detail: { session: detailSession("s1"), entries: [] } } };
    });
    useOpenSessionStore().$patch({ id: "s1" });
    await type(w, "/compact keep the test plan");
    await press(w, "Enter");
    await type(w, "/reload");
    await press(w, "Enter");
    await type(w, "/name   Release notes  ");
    await press(w, "Enter");
    expect(requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ["POST", "/api/pi/sessions/s1/compact", { customInstructions: "keep the test plan" }],
      ["POST", "/api/pi/sessions/s1/reload", {}],
      ["PATCH", "/api/pi/sessions/s1", { name: "Release notes" }],
    ]);
    expect(useOpenSessionStore().detail?.session.name).toBe("Renamed");
    expect(value(w)).toBe("");
  });

  it("/export downloads the session's HTML export", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands());
    const link = w.get("[data-test=composer-export-link]");
    expect(link.attributes("href")).toBe("/api/pi/sessions/s1/export");
    expect(link.attributes("download")).toBeDefined();
    const clicked = vi.fn((event: Event) => event.preventDefault());
    link.element.addEventListener("click", clicked);
    await type(w, "/export");
    await press(w, "Enter");
    expect(clicked).toHaveBeenCalledTimes(1);
    expect(value(w)).toBe("");
    expect(requests).toEqual([]);
  });

  it("/export says so when the backend serves no export", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands());
    useBackendStore().$patch({ info: { name: "Leyline", version: "1", apiVersion: 2, capabilities: { exports: false } } as never });
    await flushPromises();
    expect(w.find("[data-test=composer-export-link]").exists()).toBe(false);
    await type(w, "/export");
    await press(w, "Enter");
    expect(w.get("[data-test=composer-error]").text()).toBe("This backend does not export sessions.");
    expect(value(w)).toBe("/export");
    expect(requests).toEqual([]);
  });

  it("/new starts a session in the same folder with the same model and opens it", async () => {
    const router = createRouter({ history: createMemoryHistory(), routes: [{ path: "/sessions/:id", component: { render: () => null } }] });
    await router.push("/sessions/s1");
    const created = activeOf({ model: FAST_MODEL, thinkingLevel: "low" }, 1, "s2");
    const { wrapper: w, requests } = await mountComposer(
      withCommands({ model: FAST_MODEL }),
      (request) => {
        if (request.path === "/api/pi/sessions")
          return { body: { active: created, detail: { session: detailSession("s2", { cwd: "/tmp/project" }), entries: [] } } };
        return undefined;
      },
      { router },
    );
    await type(w, "/new");
    await press(w, "Enter");
    await vi.waitFor(() => expect(router.currentRoute.value.fullPath).toBe("/sessions/s2"));
    // The same model and level as the new runtime's: nothing more to select.
    expect(requests.map((r) => [r.path, r.body])).toEqual([["/api/pi/sessions", { cwd: "/tmp/project", kind: "session" }]]);
    expect(value(w)).toBe("");
  });
});

describe("runtime and unknown commands", () => {
  it("sends the runtime's commands to pi as a prompt", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands(), () => ({
      body: { ok: true, queued: false, active: withCommands({}, 2) },
    }));
    await type(w, "/ask why is the build slow?");
    await press(w, "Enter");
    await type(w, "/skill:pdf");
    await press(w, "Enter");
    expect(requests.map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/sessions/s1/prompt", { text: "/ask why is the build slow?" }],
      ["/api/pi/sessions/s1/prompt", { text: "/skill:pdf" }],
    ]);
  });

  it("does not send an unknown /word: it stays, says so, and goes as text on request; paths go as text", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands(), () => ({
      body: { ok: true, queued: false, active: withCommands({}, 2) },
    }));
    await type(w, "/deploy to staging");
    await press(w, "Enter");
    expect(requests).toEqual([]);
    expect(w.get("[data-test=composer-unknown]").text()).toContain("Unknown command /deploy");
    expect(value(w)).toBe("/deploy to staging");
    await w.get("[data-test=send-as-text]").trigger("click");
    await flushPromises();
    expect(requests.map((r) => r.body)).toEqual([{ text: "/deploy to staging" }]);
    expect(w.find("[data-test=composer-unknown]").exists()).toBe(false);

    await type(w, "/copy");
    await press(w, "Enter");
    expect(w.get("[data-test=composer-unknown] span").text()).toBe(
      "/copy is a command of pi's terminal: use the copy button on a message.",
    );
    // Editing the draft takes the message away.
    await type(w, "/etc/hosts is broken");
    expect(w.find("[data-test=composer-unknown]").exists()).toBe(false);
    await press(w, "Enter");
    expect(requests.map((r) => r.body)).toEqual([{ text: "/deploy to staging" }, { text: "/etc/hosts is broken" }]);
  });

  it("before pi runs, starts it for a /word and sends it only when the runtime knows the command", async () => {
    const { wrapper: w, requests } = await mountComposer(null, (request) => {
      if (request.path === "/api/pi/active-session") return { body: { active: withCommands() } };
      if (request.path.endsWith("/prompt")) return { body: { ok: true, queued: false, active: withCommands({ isStreaming: true }, 2) } };
      return undefined;
    });
    await type(w, "/ask what changed?");
    await press(w, "Enter");
    await vi.waitFor(() => expect(requests).toHaveLength(2));
    expect(requests.map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/active-session", { id: "s1" }],
      ["/api/pi/sessions/s1/prompt", { text: "/ask what changed?" }],
    ]);
    await flushPromises();
    expect(value(w)).toBe("");
  });

  it("before pi runs, keeps a /word the started runtime does not know", async () => {
    const { wrapper: w, requests } = await mountComposer(null, (request) => {
      if (request.path === "/api/pi/active-session") return { body: { active: withCommands() } };
      return undefined;
    });
    await type(w, "/deploy now");
    await press(w, "Enter");
    await vi.waitFor(() => expect(w.find("[data-test=composer-unknown]").exists()).toBe(true));
    expect(w.get("[data-test=composer-unknown]").text()).toContain("Unknown command /deploy");
    expect(value(w)).toBe("/deploy now");
    expect(requests.map((r) => r.path)).toEqual(["/api/pi/active-session"]);
  });
});

describe("the attach button", () => {
  const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  function choose(w: VueWrapper, files: File[]) {
    const transfer = new DataTransfer();
    for (const file of files) transfer.items.add(file);
    const input = w.get("[data-test=composer-file-input]").element as HTMLInputElement;
    Object.defineProperty(input, "files", { value: transfer.files, configurable: true });
    input.dispatchEvent(new Event("change"));
  }

  async function settle() {
    for (let i = 0; i < 5; i++) await flushPromises();
  }

  it("opens a real file input that accepts images and text files", async () => {
    const { wrapper: w } = await mountComposer(withCommands());
    const input = w.get("[data-test=composer-file-input]");
    expect(input.attributes("type")).toBe("file");
    expect(input.attributes("multiple")).toBeDefined();
    expect(input.attributes("accept")).toContain("image/png");
    expect(input.attributes("accept")).toContain("text/*");
    const opened = vi.fn((event: Event) => event.preventDefault());
    input.element.addEventListener("click", opened);
    const button = w.get("[data-test=attach]");
    expect(button.attributes("aria-label")).toBe("Attach images or text files");
    expect(button.find("svg[data-icon=paperclip]").exists()).toBe(true);
    await button.trigger("click");
    expect(opened).toHaveBeenCalledTimes(1);
  });

  it("attaches images, appends text files as fenced blocks and refuses binary files, like paste and drop", async () => {
    const { wrapper: w, requests } = await mountComposer(withCommands(), () => ({
      body: { ok: true, queued: false, active: withCommands({}, 2) },
    }));
    await type(w, "Please look at these.");
    choose(w, [
      new File([PNG_BYTES], "shot.png", { type: "image/png" }),
      new File(["export const a = 1;\n"], "a.ts", { type: "" }),
      new File([new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00])], "spec.pdf", { type: "application/pdf" }),
    ]);
    await settle();
    expect(w.findAll("[data-test=composer-image]")).toHaveLength(1);
    expect(value(w)).toBe("Please look at these.\n\na.ts:\n```ts\nexport const a = 1;\n```");
    expect(w.get("[data-test=composer-error]").text()).toBe(
      "Not attached: spec.pdf: not a text file (only images and UTF-8 text files can be attached).",
    );
    await w.get("[data-test=send]").trigger("click");
    await flushPromises();
    expect(requests[0]?.body).toEqual({
      text: "Please look at these.\n\na.ts:\n```ts\nexport const a = 1;\n```",
      images: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }],
    });
  });

  it("takes a pasted text file when the clipboard holds no text", async () => {
    const { wrapper: w } = await mountComposer(withCommands());
    const transfer = new DataTransfer();
    transfer.items.add(new File(["a,b\n1,2\n"], "data.csv", { type: "text/csv" }));
    const event = new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true });
    field(w).element.dispatchEvent(event);
    await settle();
    expect(event.defaultPrevented).toBe(true);
    expect(value(w)).toBe("data.csv:\n```csv\na,b\n1,2\n```");
  });
});
