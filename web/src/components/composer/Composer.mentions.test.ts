import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Active } from "../../../../domain/runtime/runtime-types.ts";
import { useComposerDraftStore } from "../../stores/composer-draft.store.ts";
import { activeOf, cleanedAfterEach, fakeBackend, type FakeAnswer, type RecordedRequest } from "./composer.fixture.ts";
import Composer from "./Composer.vue";
import { MENTION_DEBOUNCE_MS } from "./use-file-mentions.ts";

const mounted = cleanedAfterEach();

const FILES = ["src/app.ts", "src/api/http.ts", "docs/My Notes.md", "README.md", "test/app.test.ts"];

/** The server's answer: the files containing the query (case-insensitive), at most `limit`. */
function filesFor(request: RecordedRequest): FakeAnswer | undefined {
  if (!request.path.startsWith("/api/pi/sessions/s1/file-mentions")) return undefined;
  const query = new URL(request.path, "http://leyline.test").searchParams;
  const q = (query.get("q") ?? "").toLowerCase();
  const limit = Number(query.get("limit") ?? "50");
  return { body: { files: FILES.filter((file) => file.toLowerCase().includes(q)).slice(0, limit), truncated: false } };
}

type Handler = (request: RecordedRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>;

async function mountComposer(options: { handler?: Handler; active?: Active; before?: () => void } = {}) {
  mounted.backend = fakeBackend(options.handler ?? filesFor);
  const pinia = createPinia();
  setActivePinia(pinia);
  options.before?.();
  const active = options.active ?? activeOf();
  mounted.wrapper = mount(Composer, {
    props: { sessionId: active.id, active, cwd: "/tmp/project" },
    global: { plugins: [pinia] },
    attachTo: document.body,
  });
  await flushPromises();
  return { wrapper: mounted.wrapper, requests: mounted.backend.requests, signals: mounted.backend.signals };
}

const field = (w: VueWrapper) => w.get("[data-test=composer-input]");
const textarea = (w: VueWrapper) => field(w).element as HTMLTextAreaElement;
const paths = (w: VueWrapper) => w.findAll("[data-test=mention-option]").map((o) => o.attributes("data-path"));
const mentionRequests = (requests: RecordedRequest[]) => requests.filter((r) => r.path.includes("/file-mentions")).map((r) => r.path);

/** Types `text` (the caret at its end, or at `caret`), then lets the debounce pass and the answer come. */
async function type(w: VueWrapper, text: string, caret?: number) {
  await field(w).trigger("focus");
  await field(w).setValue(text);
  if (caret !== undefined) {
    textarea(w).setSelectionRange(caret, caret);
    await field(w).trigger("keyup", { key: "ArrowLeft" });
  }
}

async function settle() {
  vi.advanceTimersByTime(MENTION_DEBOUNCE_MS);
  await flushPromises();
}

async function press(w: VueWrapper, key: string, init: KeyboardEventInit = {}) {
  await field(w).trigger("keydown", { key, ...init });
  await flushPromises();
}

describe("@file mentions", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("lists the project's files matching what follows `@`, asked once typing pauses", async () => {
    const { wrapper: w, requests } = await mountComposer();
    await type(w, "look at @");
    await type(w, "look at @a");
    await type(w, "look at @ap");
    expect(mentionRequests(requests)).toEqual([]);
    await settle();
    expect(mentionRequests(requests)).toEqual(["/api/pi/sessions/s1/file-mentions?q=ap&limit=20"]);
    const listbox = w.get("[data-test=mention-menu] [role=listbox]");
    expect(listbox.attributes("aria-label")).toBe("Files");
    expect(paths(w)).toEqual(["src/app.ts", "src/api/http.ts", "test/app.test.ts"]);
    // The name first, then its folder.
    const first = w.get("[data-test=mention-option][data-path='src/app.ts']");
    expect(first.get(".label").text()).toBe("app.ts");
    expect(first.get(".hint").text()).toBe("src/");
    expect(field(w).attributes("aria-controls")).toBe(listbox.attributes("id"));
    expect(field(w).attributes("aria-activedescendant")).toBe(first.attributes("id"));
    expect(w.find("[data-test=slash-menu]").exists()).toBe(false);
  });

  it("moves with the arrows and writes the chosen file with Enter or Tab, the caret after it", async () => {
    const { wrapper: w, requests } = await mountComposer();
    await type(w, "look at @ap");
    await settle();
    await press(w, "ArrowDown");
    const selected = () => w.findAll("[data-test=mention-option]").findIndex((o) => o.attributes("aria-selected") === "true");
    expect(selected()).toBe(1);
    await press(w, "ArrowUp");
    await press(w, "ArrowUp");
    expect(selected()).toBe(2);
    await press(w, "Enter");
    expect(textarea(w).value).toBe("look at @test/app.test.ts ");
    expect(textarea(w).selectionStart).toBe(textarea(w).value.length);
    expect(w.find("[data-test=mention-menu]").exists()).toBe(false);
    // Nothing was sent: Enter was the menu's.
    expect(requests.filter((r) => r.method === "POST")).toEqual([]);

    await type(w, "@rea");
    await settle();
    await press(w, "Tab");
    expect(textarea(w).value).toBe("@README.md ");
  });

  it("completes a mention in the middle of the text, replacing it whole and keeping the rest", async () => {
    const { wrapper: w } = await mountComposer();
    await type(w, "fix @src/ap.ts and test", "fix @src/ap".length);
    await settle();
    expect(paths(w)).toEqual(["src/app.ts", "src/api/http.ts"]);
    await press(w, "Tab");
    expect(textarea(w).value).toBe("fix @src/app.ts and test");
    expect(textarea(w).selectionStart).toBe("fix @src/app.ts ".length);
  });

  it("quotes a path with spaces as pi does, and takes a pointer without losing the focus", async () => {
    const { wrapper: w } = await mountComposer();
    await type(w, "see @notes");
    await settle();
    const option = w.get("[data-test=mention-option][data-path='docs/My Notes.md']");
    const down = new MouseEvent("mousedown", { bubbles: true, cancelable: true });
    option.element.dispatchEvent(down);
    expect(down.defaultPrevented).toBe(true);
    await option.trigger("click");
    expect(textarea(w).value).toBe('see @"docs/My Notes.md" ');
  });

  it("closes with Escape until the mention changes, and opens for no e-mail address", async () => {
    const { wrapper: w, requests } = await mountComposer();
    await type(w, "@app");
    await settle();
    expect(w.find("[data-test=mention-menu]").exists()).toBe(true);
    await press(w, "Escape");
    expect(w.find("[data-test=mention-menu]").exists()).toBe(false);
    expect(field(w).attributes("aria-activedescendant")).toBeUndefined();
    await type(w, "@app.");
    await settle();
    expect(paths(w)).toEqual(["src/app.ts", "test/app.test.ts"]);

    await type(w, "mail bob@example.com");
    await settle();
    expect(w.find("[data-test=mention-menu]").exists()).toBe(false);
    expect(mentionRequests(requests)).toHaveLength(2);
  });

  it("sends the text as typed: Enter on a mention typed out in full is the input's", async () => {
    const { wrapper: w, requests } = await mountComposer({
      handler: (request) => filesFor(request) ?? { body: { ok: true, queued: false, active: activeOf({ isStreaming: true }, 2) } },
    });
    await type(w, "summarize @README.md");
    await settle();
    expect(paths(w)).toEqual(["README.md"]);
    await press(w, "Enter");
    expect(requests.filter((r) => r.method === "POST").map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/sessions/s1/prompt", { text: "summarize @README.md" }],
    ]);
  });

  it("chooses only from the answer to the mention as it is now: Enter right after typing sends, Tab waits", async () => {
    const { wrapper: w, requests } = await mountComposer({
      handler: (request) => filesFor(request) ?? { body: { ok: true, queued: false, active: activeOf({ isStreaming: true }, 2) } },
    });
    await type(w, "see @");
    await settle();
    expect(paths(w)).toContain("src/app.ts");
    // The whole path typed before the answer to it came: the previous answer (all files) is still listed.
    await type(w, "see @README.md");
    expect(paths(w)).toContain("src/app.ts");
    await press(w, "Tab");
    expect(textarea(w).value).toBe("see @README.md");
    await press(w, "Enter");
    expect(requests.filter((r) => r.method === "POST").map((r) => [r.path, r.body])).toEqual([
      ["/api/pi/sessions/s1/prompt", { text: "see @README.md" }],
    ]);

    // Once the answer to the query now typed is in, Tab chooses from it.
    await type(w, "see @READ");
    await settle();
    await press(w, "Tab");
    expect(textarea(w).value).toBe("see @README.md ");
  });

  it("aborts the request of an older query and drops its answer", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const {
      wrapper: w,
      requests,
      signals,
    } = await mountComposer({
      handler: async (request) => {
        if (request.path.includes("q=a&")) {
          await held;
          return { body: { files: ["stale/a.ts"], truncated: false } };
        }
        return filesFor(request);
      },
    });
    await type(w, "@a");
    await settle();
    expect(w.get("[data-test=mention-note]").text()).toBe("Looking for files…");
    await type(w, "@rea");
    expect(signals[0]?.aborted).toBe(true);
    await settle();
    expect(paths(w)).toEqual(["README.md"]);
    expect(signals[1]?.aborted).toBe(false);
    release();
    await flushPromises();
    expect(paths(w)).toEqual(["README.md"]);
    expect(mentionRequests(requests)).toHaveLength(2);
  });

  it("says when nothing matches, when the folder was searched in part, and when the files cannot be listed", async () => {
    let answer: FakeAnswer = { body: { files: [], truncated: false } };
    const { wrapper: w } = await mountComposer({ handler: (request) => (request.path.includes("/file-mentions") ? answer : undefined) });
    await type(w, "@zzz");
    await settle();
    expect(w.get("[data-test=mention-note]").text()).toBe("No file matches “zzz”.");
    answer = { body: { files: ["a.ts"], truncated: true } };
    await type(w, "@a");
    await settle();
    expect(w.get("[data-test=mention-note]").text()).toContain("only part of its files were searched");
    answer = { status: 404, body: { error: "Session not found" } };
    await type(w, "@b");
    await settle();
    expect(w.get("[data-test=mention-note]").text()).toBe("The files cannot be listed: Session not found");
  });

  it("leaves `/` at the start to the slash menu", async () => {
    const { wrapper: w, requests } = await mountComposer();
    await type(w, "/model @x");
    await settle();
    expect(w.find("[data-test=slash-menu]").exists()).toBe(true);
    expect(w.find("[data-test=mention-menu]").exists()).toBe(false);
    expect(mentionRequests(requests)).toEqual([]);
  });
});

describe("text offered by the session tree", () => {
  it("is put in the empty input of its session, focused, the caret at the end", async () => {
    const { wrapper: w } = await mountComposer({ before: () => useComposerDraftStore().offer("s1", "Use OAuth instead") });
    await flushPromises();
    expect(textarea(w).value).toBe("Use OAuth instead");
    expect(document.activeElement).toBe(textarea(w));
    expect(textarea(w).selectionStart).toBe("Use OAuth instead".length);
    expect(useComposerDraftStore().pending("s1")).toBeNull();
  });

  it("arriving for the session shown, goes after what is typed, separated by a blank line", async () => {
    const { wrapper: w } = await mountComposer();
    await field(w).setValue("half a thought");
    textarea(w).blur();
    useComposerDraftStore().offer("s1", "Use passwords");
    await flushPromises();
    expect(textarea(w).value).toBe("half a thought\n\nUse passwords");
    expect(document.activeElement).toBe(textarea(w));
    expect(textarea(w).selectionStart).toBe(textarea(w).value.length);
  });

  it("replaces the previous offer left untouched, as pi replaces its editor's text, but not an edited one", async () => {
    const { wrapper: w } = await mountComposer({ before: () => useComposerDraftStore().offer("s1", "Use OAuth instead") });
    await flushPromises();
    expect(textarea(w).value).toBe("Use OAuth instead");
    useComposerDraftStore().offer("s1", "Use passwords");
    await flushPromises();
    expect(textarea(w).value).toBe("Use passwords");
    await field(w).setValue("Use passwords, hashed");
    useComposerDraftStore().offer("s1", "A third idea: magic links");
    await flushPromises();
    expect(textarea(w).value).toBe("Use passwords, hashed\n\nA third idea: magic links");
  });

  it("for another session waits until that session is shown", async () => {
    const { wrapper: w } = await mountComposer();
    await field(w).setValue("kept for s1");
    useComposerDraftStore().offer("s2", "A third idea: magic links");
    await flushPromises();
    expect(textarea(w).value).toBe("kept for s1");
    await w.setProps({ sessionId: "s2", active: activeOf({}, 1, "s2") });
    await flushPromises();
    expect(textarea(w).value).toBe("A third idea: magic links");
    expect(useComposerDraftStore().pending("s2")).toBeNull();
    await w.setProps({ sessionId: "s1", active: activeOf() });
    await flushPromises();
    expect(textarea(w).value).toBe("kept for s1");
  });
});
