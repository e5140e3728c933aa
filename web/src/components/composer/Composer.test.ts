import { usePiSettingsStore } from "../../stores/pi-settings.store.ts";
import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Active } from "../../../../domain/runtime/runtime-types.ts";
import { HELD_RELOAD_FAILURE } from "../../lib/held-prompts.ts";
import { HELD_PROMPTS_KEY } from "../../lib/local-storage.ts";
import { useRuntimesStore } from "../../stores/runtimes.store.ts";
import { activeOf, fakeBackend, FAST_MODEL, FAUX_MODEL, queueOf, type FakeAnswer, type RecordedRequest } from "./composer.fixture.ts";
import Composer from "./Composer.vue";

let backend: ReturnType<typeof fakeBackend> | undefined;
let wrapper: VueWrapper | undefined;
afterEach(() => {
  wrapper?.unmount();
  wrapper = undefined;
  backend?.restore();
  backend = undefined;
});

function mountComposer(active: Active, handler?: (request: RecordedRequest) => FakeAnswer | undefined) {
  backend = fakeBackend(handler);
  const pinia = createPinia();
  setActivePinia(pinia);
  wrapper = mount(Composer, { props: { sessionId: active.id, active }, global: { plugins: [pinia] }, attachTo: document.body });
  return { wrapper, requests: backend.requests };
}

type Facts = { model: { provider: string; id: string } | null; thinkingLevel: string | null; fileVersion: number | null };

/** A composer of a session viewed from its file: no runtime yet (`active` null), the session's own facts. */
function mountDormant(facts: Facts, handler: (request: RecordedRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>) {
  backend = fakeBackend(handler);
  const pinia = createPinia();
  setActivePinia(pinia);
  wrapper = mount(Composer, {
    props: { sessionId: "s1", active: null, facts, cwd: "/tmp/project" },
    global: { plugins: [pinia] },
    attachTo: document.body,
  });
  return { wrapper, requests: backend.requests };
}

/** An answer held back until `release()` (a runtime that takes a while to start). */
function deferred(): { promise: Promise<void>; release: () => void } {
  let release = () => {};
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

async function typeAndPress(w: VueWrapper, text: string, init: KeyboardEventInit) {
  const input = w.get("[data-test=composer-input]");
  await input.setValue(text);
  await input.trigger("keydown", init);
  await flushPromises();
}

const paths = (requests: RecordedRequest[]) => requests.map((r) => r.path);

describe("Composer input", () => {
  it("sends on Enter and clears the input", async () => {
    const { wrapper: w, requests } = mountComposer(activeOf(), () => ({
      body: { ok: true, queued: false, active: activeOf({ isStreaming: true }, 2) },
    }));
    await typeAndPress(w, "Explain the fold", { key: "Enter" });
    expect(requests).toEqual([{ method: "POST", path: "/api/pi/sessions/s1/prompt", body: { text: "Explain the fold" } }]);
    expect((w.get("[data-test=composer-input]").element as HTMLTextAreaElement).value).toBe("");
    expect(w.emitted("snapshot")).toHaveLength(1);
    // The answer's snapshot (revision 2, streaming) is shown even before the prop catches up.
    expect(w.get("[data-test=run-state]").attributes("data-state")).toBe("working");
  });

  it("does not send on Shift+Enter or on Enter while an IME is composing", async () => {
    const { wrapper: w, requests } = mountComposer(activeOf());
    await typeAndPress(w, "line one", { key: "Enter", shiftKey: true });
    await typeAndPress(w, "にほんご", { key: "Enter", isComposing: true });
    await typeAndPress(w, "にほんご", { key: "Enter", keyCode: 229 });
    expect(requests).toEqual([]);
  });

  it("does not send an empty prompt", async () => {
    const { wrapper: w, requests } = mountComposer(activeOf());
    await typeAndPress(w, "   ", { key: "Enter" });
    expect(requests).toEqual([]);
    expect(w.get("[data-test=send]").attributes("disabled")).toBeDefined();
  });

  it("queues by default while the runtime works, and steers when chosen", async () => {
    const working = activeOf({ isStreaming: true });
    const { wrapper: w, requests } = mountComposer(working, () => ({ body: { ok: true, queued: true, active: working } }));
    expect(w.get("[data-test=send]").text()).toBe("Queue");
    await typeAndPress(w, "next task", { key: "Enter" });
    await w.get("[data-test=send-mode] [data-mode=steer]").trigger("click");
    expect(w.get("[data-test=send]").text()).toBe("Steer");
    await typeAndPress(w, "focus on tests", { key: "Enter" });
    expect(requests.map((r) => r.body)).toEqual([
      { text: "next task", streamingBehavior: "followUp" },
      { text: "focus on tests", streamingBehavior: "steer" },
    ]);
  });

  it("does not steer while the queue is held", async () => {
    const held = activeOf({ isStreaming: true, promptQueue: queueOf(3, [["q1", "later"]], true) });
    const { wrapper: w, requests } = mountComposer(held, () => ({ body: { ok: true, queued: true, active: held } }));
    expect(w.get("[data-test=send-mode] [data-mode=steer]").attributes("disabled")).toBeDefined();
    await typeAndPress(w, "go", { key: "Enter" });
    expect(requests[0]?.body).toEqual({ text: "go", streamingBehavior: "followUp" });
  });

  it("runs !command in the shell and !!command outside the model's context", async () => {
    const { wrapper: w, requests } = mountComposer(activeOf(), () => ({
      body: { ok: true, active: activeOf({}, 2), detail: { session: {}, entries: [] } },
    }));
    await typeAndPress(w, "!ls -la", { key: "Enter" });
    await typeAndPress(w, "!! git status", { key: "Enter" });
    expect(requests.map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/sessions/s1/bash", { command: "ls -la" }],
      ["/api/pi/sessions/s1/bash", { command: "git status", excludeFromContext: true }],
    ]);
  });

  it("shows an API error in words", async () => {
    const { wrapper: w } = mountComposer(activeOf(), () => ({ status: 500, body: { error: "No model selected" } }));
    await typeAndPress(w, "hello", { key: "Enter" });
    expect(w.get("[data-test=composer-error]").text()).toBe("No model selected");
    expect((w.get("[data-test=composer-input]").element as HTMLTextAreaElement).value).toBe("hello");
  });
});

describe("Composer before the runtime", () => {
  const facts: Facts = { model: { provider: "faux", id: "faux-1" }, thinkingLevel: "low", fileVersion: 3 };
  const inputValue = (w: VueWrapper) => (w.get("[data-test=composer-input]").element as HTMLTextAreaElement).value;

  it("shows the session's own model and thinking level, sends nothing on its own, and starts pi on Enter", async () => {
    const started = deferred();
    const { wrapper: w, requests } = mountDormant(facts, async (request) => {
      if (request.path === "/api/pi/active-session") {
        await started.promise;
        return { body: { active: activeOf({}, 1) } };
      }
      if (request.path.endsWith("/prompt"))
        return {
          body: {
            ok: true,
            queued: request.body !== null && (request.body as { text: string }).text !== "first",
            active: activeOf({ isStreaming: true }, 2),
          },
        };
      return undefined;
    });
    await flushPromises();
    expect(requests).toEqual([]);
    expect((w.get("[data-test=model-picker]").element as HTMLSelectElement).value).toBe("faux/faux-1");
    expect((w.get("[data-test=thinking-picker]").element as HTMLSelectElement).value).toBe("low");
    expect((w.get("[data-test=send]").element as HTMLButtonElement).disabled).toBe(true);
    expect(w.get("[data-test=composer-input]").attributes("placeholder")).toContain("starts pi");

    // Enter while nothing runs: pi starts; what is typed and sent meanwhile waits, in order, and shows as such.
    await typeAndPress(w, "first", { key: "Enter" });
    expect(inputValue(w)).toBe("");
    expect(w.get("[data-test=run-state]").text()).toBe("Starting pi…");
    await typeAndPress(w, "second", { key: "Enter" });
    await typeAndPress(w, "!ls", { key: "Enter" });
    expect(w.findAll("[data-test=held-prompt]").map((li) => li.text())).toEqual([
      "waiting for pi first",
      "waiting for pi second",
      "waiting for pi $ ls",
    ]);
    expect(paths(requests)).toEqual(["/api/pi/active-session"]);
    expect(requests[0]?.body).toEqual({ id: "s1" });

    started.release();
    await vi.waitFor(() => expect(paths(requests)).toHaveLength(4));
    expect(requests.slice(1).map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/sessions/s1/prompt", { text: "first" }],
      ["/api/pi/sessions/s1/prompt", { text: "second" }],
      ["/api/pi/sessions/s1/bash", { command: "ls" }],
    ]);
    await flushPromises();
    expect(w.findAll("[data-test=held-prompt]")).toHaveLength(0);
    expect(useRuntimesStore().activeOf("s1")?.snapshotRevision).toBe(2);
  });

  it("gives everything held back into the input, with the reason, when pi cannot start", async () => {
    const started = deferred();
    const { wrapper: w, requests } = mountDormant(facts, async (request) => {
      if (request.path === "/api/pi/active-session") {
        await started.promise;
        return { status: 500, body: { error: "The session's folder cannot be opened" } };
      }
      return undefined;
    });
    await typeAndPress(w, "one", { key: "Enter" });
    await typeAndPress(w, "two", { key: "Enter" });
    await w.get("[data-test=composer-input]").setValue("still typing");
    started.release();
    await vi.waitFor(() => expect(w.find("[data-test=composer-error]").exists()).toBe(true));
    expect(w.get("[data-test=composer-error]").text()).toBe("The session's folder cannot be opened");
    expect(inputValue(w)).toBe("one\n\ntwo\n\nstill typing");
    expect(w.findAll("[data-test=held-prompt]")).toHaveLength(0);
    expect(paths(requests)).toEqual(["/api/pi/active-session"]);
  });

  it("keeps held prompts across a reload: they come back into the input with a warning, and nothing is resent", async () => {
    const never = deferred();
    const first = mountDormant(facts, async (request) => {
      if (request.path === "/api/pi/active-session") await never.promise;
      return undefined;
    });
    await typeAndPress(first.wrapper, "kept one", { key: "Enter" });
    await typeAndPress(first.wrapper, "kept two", { key: "Enter" });
    expect(JSON.parse(sessionStorage.getItem(HELD_PROMPTS_KEY) ?? "null")).toEqual({ s1: ["kept one", "kept two"] });
    // The reload: a new page (new stores, a new composer) while pi was still starting.
    // (The first page's start never answers: it is gone, and must not reach any backend.)
    first.wrapper.unmount();
    const { wrapper: w, requests } = mountDormant(facts, () => undefined);
    await flushPromises();
    expect(inputValue(w)).toBe("kept one\n\nkept two");
    expect(w.get("[data-test=composer-error]").text()).toBe(HELD_RELOAD_FAILURE);
    expect(requests).toEqual([]);
    // Taken back: nothing is kept any more.
    expect(sessionStorage.getItem(HELD_PROMPTS_KEY)).toBeNull();
  });

  it("asks for the folder's models again after Settings changed them", async () => {
    let models = [FAUX_MODEL];
    const { wrapper: w, requests } = mountDormant(facts, (request) => {
      if (request.path.startsWith("/api/pi/state"))
        return { body: { active: { ...activeOf({ availableModels: models }), id: "", path: "" } } };
      return undefined;
    });
    await w.get("[data-test=model-picker]").trigger("focus");
    await flushPromises();
    expect(w.findAll("[data-test=model-picker] option").map((o) => o.attributes("value"))).toEqual(["faux/faux-1"]);
    models = [FAUX_MODEL, FAST_MODEL];
    const settings = usePiSettingsStore();
    settings.modelsChangeCount++;
    await flushPromises();
    await w.get("[data-test=model-picker]").trigger("focus");
    await flushPromises();
    expect(paths(requests)).toEqual(["/api/pi/state?cwd=%2Ftmp%2Fproject", "/api/pi/state?cwd=%2Ftmp%2Fproject"]);
    expect(w.findAll("[data-test=model-picker] option").map((o) => o.attributes("value"))).toEqual(["faux/faux-1", "openai/gpt-6-astra"]);
  });

  it("loads the folder's models when the picker is opened and changes the model as an action that starts pi", async () => {
    const { wrapper: w, requests } = mountDormant(facts, (request) => {
      if (request.path.startsWith("/api/pi/state"))
        return { body: { active: { ...activeOf({ availableModels: [FAUX_MODEL, FAST_MODEL] }), id: "", path: "" } } };
      if (request.path === "/api/pi/active-session") return { body: { active: activeOf({}, 1) } };
      if (request.path.endsWith("/model")) return { body: { ok: true, active: activeOf({ model: FAST_MODEL }, 2) } };
      return undefined;
    });
    await w.get("[data-test=model-picker]").trigger("focus");
    await flushPromises();
    expect(paths(requests)).toEqual(["/api/pi/state?cwd=%2Ftmp%2Fproject"]);
    expect(w.findAll("[data-test=model-picker] option").map((o) => o.attributes("value"))).toEqual(["faux/faux-1", "openai/gpt-6-astra"]);
    // The session's model's levels come with the list.
    expect(w.findAll("[data-test=thinking-picker] option").map((o) => o.attributes("value"))).toEqual(["off", "low", "high"]);
    await w.get("[data-test=model-picker]").setValue("openai/gpt-6-astra");
    await vi.waitFor(() => expect(paths(requests)).toHaveLength(3));
    expect(requests.slice(1).map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/active-session", { id: "s1" }],
      ["/api/pi/sessions/s1/model", { provider: "openai", id: "gpt-6-astra" }],
    ]);
  });

  it("says that acting upgrades an old file, keeping the original", () => {
    const { wrapper: w } = mountDormant({ ...facts, fileVersion: 1 }, () => undefined);
    expect(w.get("[data-test=upgrade-hint]").text()).toContain("version-1");
    expect(w.get("[data-test=upgrade-hint]").text()).toContain("leyline-trash");
  });

  it("says beside the model when pi fell back to another one", () => {
    const notices = [
      {
        kind: "model-fallback" as const,
        message: "Model openai/gpt-6-astra is not available: pi uses faux/faux-1.",
        requested: { provider: "openai", id: "gpt-6-astra" },
        used: { provider: "faux", id: "faux-1" },
      },
    ];
    const { wrapper: w } = mountComposer(activeOf({ notices }));
    const shown = w.get("[data-test=model-fallback]");
    expect(shown.text()).toBe("faux-1 instead of gpt-6-astra (not available here)");
    expect(shown.attributes("title")).toBe("Model openai/gpt-6-astra is not available: pi uses faux/faux-1.");
  });
});

describe("Composer images", () => {
  const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  function pasteFiles(w: VueWrapper, files: File[]) {
    const transfer = new DataTransfer();
    for (const file of files) transfer.items.add(file);
    const event = new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true });
    w.get("[data-test=composer-input]").element.dispatchEvent(event);
  }

  async function settle() {
    for (let i = 0; i < 5; i++) await flushPromises();
  }

  it("attaches pasted images as thumbnails, sends them as base64 and lets them be removed", async () => {
    const { wrapper: w, requests } = mountComposer(activeOf(), () => ({ body: { ok: true, queued: false, active: activeOf({}, 2) } }));
    pasteFiles(w, [new File([PNG_BYTES], "shot.png", { type: "image/png" }), new File([PNG_BYTES], "b.webp", { type: "image/webp" })]);
    await settle();
    expect(w.findAll("[data-test=composer-image]")).toHaveLength(2);
    expect(w.get("[data-test=composer-image] img").attributes("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
    await w.findAll("[data-test=composer-image-remove]")[1]?.trigger("click");
    expect(w.findAll("[data-test=composer-image]")).toHaveLength(1);
    // Images alone may be sent (empty text).
    await w.get("[data-test=send]").trigger("click");
    await flushPromises();
    expect(requests[0]?.body).toEqual({ text: "", images: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }] });
    expect(w.findAll("[data-test=composer-image]")).toHaveLength(0);
  });

  it("refuses other image formats in words, and takes a dropped SVG as text", async () => {
    const { wrapper: w } = mountComposer(activeOf());
    const transfer = new DataTransfer();
    transfer.items.add(new File([new Uint8Array([0x42, 0x4d, 0x00, 0x00])], "logo.bmp", { type: "image/bmp" }));
    transfer.items.add(new File(["<svg/>"], "logo.svg", { type: "image/svg+xml" }));
    const drop = new DragEvent("drop", { bubbles: true, cancelable: true });
    // happy-dom's DragEvent ignores `dataTransfer` in its init dictionary.
    Object.defineProperty(drop, "dataTransfer", { value: transfer });
    w.get("[data-test=composer]").element.dispatchEvent(drop);
    await settle();
    expect(w.findAll("[data-test=composer-image]")).toHaveLength(0);
    expect(w.get("[data-test=composer-error]").text()).toBe("Not attached: logo.bmp: only PNG, JPEG, GIF and WebP images can be attached.");
    expect((w.get("[data-test=composer-input]").element as HTMLTextAreaElement).value).toBe("logo.svg:\n```xml\n<svg/>\n```");
  });
});

describe("Composer queue", () => {
  const items: Array<[string, string]> = [
    ["q1", "first"],
    ["q2", "second"],
    ["q3", "third"],
  ];

  it("sends each queue action with the queue revision", async () => {
    const active = activeOf({ isStreaming: true, promptQueue: queueOf(7, items) });
    const { wrapper: w, requests } = mountComposer(active, () => ({ body: { ok: true, active } }));
    const item = (id: string) => w.get(`[data-test=queue-item][data-item-id=${id}]`);
    const click = async (selector: string) => {
      await w.get(selector).trigger("click");
      await flushPromises();
    };
    await click("[data-item-id=q2] [data-test=queue-up]");
    await click("[data-item-id=q1] [data-test=queue-down]");
    await click("[data-item-id=q3] [data-test=queue-remove]");
    await click("[data-item-id=q2] [data-test=queue-steer]");
    await click("[data-test=queue-hold]");
    expect(requests.map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/sessions/s1/queue", { action: "move", id: "q2", direction: "up", revision: 7 }],
      ["/api/pi/sessions/s1/queue", { action: "move", id: "q1", direction: "down", revision: 7 }],
      ["/api/pi/sessions/s1/queue", { action: "remove", id: "q3", revision: 7 }],
      ["/api/pi/sessions/s1/queue", { action: "steer", id: "q2", revision: 7 }],
      ["/api/pi/sessions/s1/queue", { action: "hold", revision: 7 }],
    ]);
    expect(item("q1").get("[data-test=queue-up]").attributes("disabled")).toBeDefined();
    expect(item("q3").get("[data-test=queue-down]").attributes("disabled")).toBeDefined();
  });

  it("holds before editing and saves the edit with the revision the hold returned", async () => {
    const before = activeOf({ isStreaming: true, promptQueue: queueOf(7, items) }, 10);
    const afterHold = activeOf({ isStreaming: true, promptQueue: queueOf(8, items, true) }, 11);
    const afterEdit = activeOf(
      {
        isStreaming: true,
        promptQueue: queueOf(
          9,
          [
            ["q1", "first"],
            ["q2", "second, better"],
            ["q3", "third"],
          ],
          true,
        ),
      },
      12,
    );
    const { wrapper: w, requests } = mountComposer(before, (request) => {
      const body = request.body as { action: string };
      return { body: { ok: true, active: body.action === "hold" ? afterHold : afterEdit } };
    });
    await w.get("[data-test=queue-item][data-item-id=q2] [data-test=queue-edit]").trigger("click");
    await flushPromises();
    expect(w.get("[data-test=queue]").attributes("data-held")).toBe("true");
    const editor = w.get("[data-test=queue-edit-input]");
    expect((editor.element as HTMLTextAreaElement).value).toBe("second");
    await editor.setValue("second, better");
    await w.get("[data-test=queue-edit-save]").trigger("click");
    await flushPromises();
    expect(requests.map((r) => r.body)).toEqual([
      { action: "hold", revision: 7 },
      { action: "edit", id: "q2", text: "second, better", revision: 8 },
    ]);
    expect(w.get("[data-test=queue-item][data-item-id=q2]").text()).toContain("second, better");
    // Held: steering is off until Resume.
    expect(w.get("[data-test=queue-item][data-item-id=q1] [data-test=queue-steer]").attributes("disabled")).toBeDefined();
    await w.get("[data-test=queue-resume]").trigger("click");
    await flushPromises();
    expect(requests[2]?.body).toEqual({ action: "resume", revision: 9 });
  });

  it("on a stale revision refetches the snapshot and says what happened", async () => {
    const stale = activeOf({ isStreaming: true, promptQueue: queueOf(7, items) }, 10);
    const fresh = activeOf(
      {
        isStreaming: true,
        promptQueue: queueOf(9, [
          ["q3", "third"],
          ["q1", "first"],
        ]),
      },
      14,
    );
    const { wrapper: w, requests } = mountComposer(stale, (request) =>
      request.path.endsWith("/queue") ? { status: 409, body: { error: "Stale queue revision" } } : { body: { ok: true, active: fresh } },
    );
    await w.get("[data-test=queue-item][data-item-id=q2] [data-test=queue-remove]").trigger("click");
    await flushPromises();
    expect(paths(requests)).toEqual(["/api/pi/sessions/s1/queue", "/api/pi/sessions/s1/mode"]);
    expect(w.get("[data-test=queue-notice]").text()).toContain("Stale queue revision");
    expect(w.findAll("[data-test=queue-item]").map((i) => i.attributes("data-item-id"))).toEqual(["q3", "q1"]);
    expect(w.emitted("snapshot")?.at(-1)?.[0]).toMatchObject({ snapshotRevision: 14 });
  });

  it("ignores an answer older than the snapshot it has", async () => {
    const newer = activeOf({ promptQueue: queueOf(5, [["q1", "kept"]]) }, 20);
    const older = activeOf({ promptQueue: queueOf(4, []) }, 19);
    const { wrapper: w } = mountComposer(newer, () => ({ body: { ok: true, active: older } }));
    await w.get("[data-test=queue-hold]").trigger("click");
    await flushPromises();
    expect(w.findAll("[data-test=queue-item]")).toHaveLength(1);
  });
});

describe("Composer controls", () => {
  it("changes model and thinking level, and toggles Ultrafast only for an eligible model", async () => {
    const { wrapper: w, requests } = mountComposer(activeOf(), (request) => {
      if (request.path.endsWith("/model")) return { body: { ok: true, active: activeOf({ model: FAST_MODEL }, 3) } };
      if (request.path.endsWith("/ultrafast")) {
        return {
          body: {
            ok: true,
            active: activeOf(
              {
                model: FAST_MODEL,
                extensionUi: { statuses: { "leyline-ultrafast": "on" }, widgets: {}, notifications: [], confirmations: [] },
              },
              4,
            ),
          },
        };
      }
      return { body: { ok: true, active: activeOf({}, 2) } };
    });
    expect(w.find("[data-test=ultrafast-toggle]").exists()).toBe(false);
    await w.get("[data-test=thinking-picker]").setValue("high");
    await flushPromises();
    await w.get("[data-test=model-picker]").setValue("openai/gpt-6-astra");
    await flushPromises();
    const toggle = w.get("[data-test=ultrafast-toggle]");
    expect(toggle.attributes("aria-pressed")).toBe("false");
    await toggle.trigger("click");
    await flushPromises();
    expect(w.get("[data-test=ultrafast-toggle]").attributes("aria-pressed")).toBe("true");
    expect(requests.map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/sessions/s1/thinking", { level: "high" }],
      ["/api/pi/sessions/s1/model", { provider: "openai", id: "gpt-6-astra" }],
      ["/api/pi/sessions/s1/ultrafast", { enabled: true }],
    ]);
  });

  it("interrupts a working runtime and compacts an idle one", async () => {
    const { wrapper: w, requests } = mountComposer(activeOf({ isStreaming: true }), () => ({
      body: { ok: true, active: activeOf({}, 2), detail: { session: {}, entries: [] } },
    }));
    expect(w.get("[data-test=compact]").attributes("disabled")).toBeDefined();
    await w.get("[data-test=interrupt]").trigger("click");
    await flushPromises();
    expect(w.get("[data-test=run-state]").attributes("data-state")).toBe("finished");
    expect(w.get("[data-test=interrupt]").attributes("disabled")).toBeDefined();
    await w.get("[data-test=compact]").trigger("click");
    await flushPromises();
    expect(paths(requests)).toEqual(["/api/pi/sessions/s1/interrupt", "/api/pi/sessions/s1/compact"]);
  });

  it("shows the context meter, statuses and widgets", () => {
    const { wrapper: w } = mountComposer(
      activeOf({
        contextUsage: { tokens: 185_000, contextWindow: 200_000, percent: 92.5 },
        extensionUi: {
          statuses: { "git-branch": "main", "leyline-ultrafast": "off" },
          widgets: { todo: { lines: ["[ ] write tests", "[x] write code"], placement: "aboveEditor" } },
          notifications: [],
          confirmations: [],
        },
      }),
    );
    const meter = w.get("[data-test=context-meter]");
    expect(meter.attributes("data-level")).toBe("high");
    expect(meter.attributes("aria-label")).toBe("Context: 185k of 200k tokens (93%)");
    expect(w.findAll("[data-test=extension-status]").map((s) => s.text())).toEqual(["main"]);
    expect(w.get("[data-test=extension-widget]").text()).toBe("[ ] write tests\n[x] write code");
  });

  it("asks extension confirmations in a dialog with a countdown and sends the answer", async () => {
    const expiresAt = Date.now() + 30_000;
    const active = activeOf({
      pendingConfirmationCount: 1,
      extensionUi: {
        statuses: {},
        widgets: {},
        notifications: [],
        confirmations: [
          { id: "c1", title: "Run rm -rf build?", message: "The bash tool wants to delete build/.", createdAt: 0, expiresAt },
        ],
      },
    });
    const { wrapper: w, requests } = mountComposer(active);
    expect(w.get("[data-test=run-state]").attributes("data-state")).toBe("waiting");
    const dialog = w.get("[data-test=extension-confirmation]");
    expect(dialog.text()).toContain("Run rm -rf build?");
    expect(dialog.get("[data-test=confirm-countdown]").text()).toMatch(/Expires in (29|30)s/);
    await dialog.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(requests).toEqual([{ method: "POST", path: "/api/pi/sessions/s1/extension-confirmations/c1", body: { confirmed: true } }]);
    expect(w.find("[data-test=extension-confirmation]").exists()).toBe(false);
  });
});

describe("Composer confirmations", () => {
  it("closes a confirmation that is no longer pending and says so", async () => {
    const active = activeOf({
      pendingConfirmationCount: 1,
      extensionUi: {
        statuses: {},
        widgets: {},
        notifications: [],
        confirmations: [{ id: "c2", title: "Allow?", message: "m", createdAt: 0, expiresAt: null }],
      },
    });
    const { wrapper: w, requests } = mountComposer(active, () => ({ status: 409, body: { error: "Confirmation is no longer pending" } }));
    expect(w.find("[data-test=confirm-countdown]").exists()).toBe(false);
    await w.get("[data-test=confirm-cancel]").trigger("click");
    await flushPromises();
    expect(requests[0]?.body).toEqual({ confirmed: false });
    expect(w.find("[data-test=extension-confirmation]").exists()).toBe(false);
    expect(w.get("[data-test=composer-error]").text()).toBe("Confirmation is no longer pending");
  });
});

describe("Composer sessions", () => {
  it("keeps a draft per session", async () => {
    const { wrapper: w } = mountComposer(activeOf());
    await w.get("[data-test=composer-input]").setValue("draft for s1");
    await w.setProps({ sessionId: "s2", active: activeOf({}, 1, "s2") });
    expect((w.get("[data-test=composer-input]").element as HTMLTextAreaElement).value).toBe("");
    await w.setProps({ sessionId: "s1", active: activeOf() });
    expect((w.get("[data-test=composer-input]").element as HTMLTextAreaElement).value).toBe("draft for s1");
  });
});

describe("Composer sends across a session switch", () => {
  function mountHeld(path: string) {
    const answer = deferred();
    backend = fakeBackend(async (request) => {
      if (!request.path.endsWith(path)) return undefined;
      await answer.promise;
      return { body: { ok: true, queued: false, active: activeOf({ isStreaming: true }, 2) } };
    });
    const pinia = createPinia();
    setActivePinia(pinia);
    const active = activeOf();
    wrapper = mount(Composer, { props: { sessionId: active.id, active }, global: { plugins: [pinia] }, attachTo: document.body });
    return { wrapper, answer };
  }
  const inputOf = (w: VueWrapper) => w.get("[data-test=composer-input]").element as HTMLTextAreaElement;

  for (const [what, typed, path] of [
    ["a prompt", "to s1", "/prompt"],
    ["a shell command", "!ls", "/bash"],
  ] as const) {
    it(`leaves the input of the session shown alone when ${what} sent before the switch is answered`, async () => {
      const { wrapper: w, answer } = mountHeld(path);
      await typeAndPress(w, typed, { key: "Enter" });
      await w.setProps({ sessionId: "s2", active: activeOf({}, 1, "s2") });
      await w.get("[data-test=composer-input]").setValue("typing in s2");
      answer.release();
      await flushPromises();
      expect(inputOf(w).value).toBe("typing in s2");
      expect(w.emitted("sent")).toBeUndefined();
      // Back on s1: what was sent is not offered again.
      await w.setProps({ sessionId: "s1", active: activeOf() });
      expect(inputOf(w).value).toBe("");
    });
  }
});
