/**
 * The composer's vision notice (VisionNotice.vue, use-vision-notice.ts) inside the real composer, against a fake
 * backend: shown only while images are attached to a session whose model has no image input; the resolved vision
 * model and its source, or the refusal warning; one resolve request per (session, model, images attached); a
 * failure in the server's words that leaves sending alone.
 */
import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it, vi } from "vitest";
import type { Active, Model } from "../../../../domain/runtime/runtime-types.ts";
import { activeOf, cleanedAfterEach, fakeBackend, FAUX_MODEL, type FakeAnswer, type RecordedRequest } from "./composer.fixture.ts";
import Composer from "./Composer.vue";

const TEXT_MODEL: Model = {
  id: "text-only",
  name: "Text Only",
  provider: "plain",
  supportsImages: false,
  supportsUltrafast: false,
  availableThinkingLevels: ["off"],
};
const OTHER_TEXT_MODEL: Model = { ...TEXT_MODEL, id: "text-two", name: "Text Two" };
const CONFIG = "/api/pi/vision/config";
const isConfig = (request: RecordedRequest): boolean => request.path.startsWith(`${CONFIG}?`);

/** A GET /api/pi/vision/config answer: the effective model and its source (the rest as the server answers it). */
function config(model: string, modelSource: "session" | "project" | "global" | "none") {
  return {
    body: {
      context: {
        cwd: "/tmp/project",
        projectId: "p",
        projectName: "project",
        projectRoot: "/tmp/project",
        sessionAvailable: true,
        sessionFile: null,
        sessionId: null,
      },
      overrides: {},
      model,
      modelSource,
      thinking: "",
      thinkingSource: "none",
    },
  };
}
const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

const mounted = cleanedAfterEach();

type Handler = (request: RecordedRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>;

function textOnly(overrides: Partial<Active["state"]> = {}, revision = 1): Active {
  return activeOf({ model: TEXT_MODEL, availableModels: [TEXT_MODEL, OTHER_TEXT_MODEL, FAUX_MODEL], ...overrides }, revision);
}

type ComposerProps = {
  active: Active | null;
  cwd?: string;
  facts?: { model: { provider: string; id: string } | null; thinkingLevel: string | null; fileVersion: number | null };
};

function mountComposer(props: ComposerProps, handler: Handler) {
  mounted.backend = fakeBackend(handler);
  const pinia = createPinia();
  setActivePinia(pinia);
  const wrapper = mount(Composer, { props: { sessionId: "s1", ...props }, global: { plugins: [pinia] }, attachTo: document.body });
  mounted.wrapper = wrapper;
  return { wrapper, requests: mounted.backend.requests };
}

/** A backend whose resolve route answers `resolution` (and a prompt is accepted). */
function answering(resolution: FakeAnswer): Handler {
  return (request) => {
    if (isConfig(request)) return resolution;
    if (request.path.endsWith("/prompt")) return { body: { ok: true, queued: false, active: textOnly({}, 2) } };
    return undefined;
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await flushPromises();
}

async function pasteImage(w: VueWrapper): Promise<void> {
  const transfer = new DataTransfer();
  transfer.items.add(new File([PNG_BYTES], "shot.png", { type: "image/png" }));
  w.get("[data-test=composer-input]").element.dispatchEvent(
    new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }),
  );
  await settle();
}

const resolves = (requests: RecordedRequest[]) => requests.filter(isConfig);
const noticeText = (w: VueWrapper) => w.get("[data-test=vision-notice]").text();

describe("Composer vision notice", () => {
  it("says nothing without images, nor for a model that takes images", async () => {
    const plain = mountComposer({ active: textOnly() }, answering(config("faux/faux-1", "global")));
    await plain.wrapper.get("[data-test=composer-input]").setValue("just text");
    await settle();
    expect(plain.wrapper.find("[data-test=vision-notice]").exists()).toBe(false);
    expect(resolves(plain.requests)).toEqual([]);
    plain.wrapper.unmount();

    const seeing = mountComposer({ active: activeOf() }, answering(config("faux/faux-1", "global")));
    await pasteImage(seeing.wrapper);
    expect(seeing.wrapper.findAll("[data-test=composer-image]")).toHaveLength(1);
    expect(seeing.wrapper.find("[data-test=vision-notice]").exists()).toBe(false);
    expect(resolves(seeing.requests)).toEqual([]);
  });

  it("shows the resolved vision model and where it is set, for the session's folder and file", async () => {
    const { wrapper: w, requests } = mountComposer({ active: textOnly() }, answering(config("faux/faux-1", "project")));
    await pasteImage(w);
    const notice = w.get("[data-test=vision-notice]");
    expect(notice.attributes("role")).toBe("status");
    expect(notice.attributes("data-kind")).toBe("agent");
    expect(noticeText(w)).toBe("Images go to the vision agent (faux/faux-1, from project settings)");
    expect(resolves(requests).map((r) => [r.method, r.path])).toEqual([
      ["GET", `${CONFIG}?cwd=%2Ftmp%2Fproject&sessionPath=%2Ftmp%2Fs1.jsonl`],
    ]);
    // The images leave: so does the notice.
    await w.get("[data-test=composer-image-remove]").trigger("click");
    expect(w.find("[data-test=vision-notice]").exists()).toBe(false);
  });

  it("names the session scope as the source", async () => {
    const { wrapper: w } = mountComposer({ active: textOnly() }, answering(config("faux/faux-1", "session")));
    await pasteImage(w);
    expect(noticeText(w)).toBe("Images go to the vision agent (faux/faux-1, from this session's settings)");
  });

  it("warns that the prompt will be refused when no vision model is set, and where to set one", async () => {
    const { wrapper: w } = mountComposer({ active: textOnly() }, answering(config("", "none")));
    await pasteImage(w);
    expect(w.get("[data-test=vision-notice]").attributes("data-kind")).toBe("refused");
    expect(noticeText(w)).toBe("This model does not take images and no vision model is set: the prompt will be refused. Settings → Vision");
  });

  it("warns when the resolved vision model is not available or cannot read images either", async () => {
    const missing = mountComposer({ active: textOnly() }, answering(config("openai/gpt-9", "global")));
    await pasteImage(missing.wrapper);
    expect(noticeText(missing.wrapper)).toBe(
      "This model does not take images. Vision model openai/gpt-9 is not available (unknown model, or no credentials for its provider): " +
        "the prompt will be refused. Settings → Vision",
    );
    missing.wrapper.unmount();

    const blind = mountComposer({ active: textOnly() }, answering(config("plain/text-two", "project")));
    await pasteImage(blind.wrapper);
    expect(noticeText(blind.wrapper)).toBe(
      "This model does not take images. Vision model plain/text-two does not support image input: the prompt will be refused. Settings → Vision",
    );
  });

  it("asks once for many keystrokes, and again only for another model or newly attached images", async () => {
    const { wrapper: w, requests } = mountComposer({ active: textOnly() }, answering(config("faux/faux-1", "global")));
    await pasteImage(w);
    const input = w.get("[data-test=composer-input]");
    let typed = "";
    for (const char of "What does this screenshot show?") {
      typed += char;
      await input.setValue(typed);
      await input.trigger("keyup", { key: char });
    }
    await settle();
    expect(resolves(requests)).toHaveLength(1);
    expect(noticeText(w)).toBe("Images go to the vision agent (faux/faux-1, from global settings)");
    // A second image: still attached, same session and model, nothing asked.
    await pasteImage(w);
    expect(resolves(requests)).toHaveLength(1);
    // Another model without image input: asked again.
    await w.setProps({ active: textOnly({ model: OTHER_TEXT_MODEL }, 3) });
    await settle();
    expect(resolves(requests)).toHaveLength(2);
    // All images removed and one attached again: asked afresh (Settings may have changed meanwhile).
    for (const remove of w.findAll("[data-test=composer-image-remove]")) await remove.trigger("click");
    expect(w.findAll("[data-test=composer-image]")).toHaveLength(0);
    await pasteImage(w);
    expect(resolves(requests)).toHaveLength(3);
  });

  it("drops the answer for a model that is no longer the session's", async () => {
    let releaseFirst: (answer: FakeAnswer) => void = () => {};
    let asked = 0;
    const { wrapper: w, requests } = mountComposer({ active: textOnly() }, (request) => {
      if (!isConfig(request)) return undefined;
      asked += 1;
      if (asked === 1) return new Promise<FakeAnswer>((resolve) => (releaseFirst = resolve));
      return config("faux/faux-1", "session");
    });
    await pasteImage(w);
    expect(noticeText(w)).toBe("Images go to the vision agent (checking its model…)");
    await w.setProps({ active: textOnly({ model: OTHER_TEXT_MODEL }, 3) });
    await settle();
    releaseFirst(config("", "none"));
    await settle();
    expect(resolves(requests)).toHaveLength(2);
    expect(noticeText(w)).toBe("Images go to the vision agent (faux/faux-1, from this session's settings)");
  });

  it("says a failed check in the server's words and still sends the images", async () => {
    const { wrapper: w, requests } = mountComposer(
      { active: textOnly() },
      answering({ status: 500, body: { error: "database is locked" } }),
    );
    await pasteImage(w);
    expect(w.get("[data-test=vision-notice]").attributes("data-kind")).toBe("error");
    expect(noticeText(w)).toBe("Images go to the vision agent, whose model could not be checked: database is locked");
    expect(w.find("[data-test=composer-error]").exists()).toBe(false);
    const send = w.get("[data-test=send]");
    expect(send.attributes("disabled")).toBeUndefined();
    await send.trigger("click");
    await settle();
    const prompt = requests.find((r) => r.path === "/api/pi/sessions/s1/prompt");
    expect(prompt?.body).toEqual({ text: "", images: [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }] });
    expect(w.find("[data-test=vision-notice]").exists()).toBe(false);
  });

  it("says nothing when the backend has no vision routes (404)", async () => {
    const { wrapper: w, requests } = mountComposer({ active: textOnly() }, answering({ status: 404, body: { error: "Not found" } }));
    await pasteImage(w);
    expect(resolves(requests)).toHaveLength(1);
    expect(w.find("[data-test=vision-notice]").exists()).toBe(false);
  });

  it("before pi runs, learns the session's model from the folder's list when images are attached", async () => {
    const { wrapper: w, requests } = mountComposer(
      { active: null, cwd: "/tmp/project", facts: { model: { provider: "plain", id: "text-only" }, thinkingLevel: "off", fileVersion: 3 } },
      (request) => {
        if (request.path.startsWith("/api/pi/state")) return { body: { active: { ...textOnly(), id: "", path: "" } } };
        if (isConfig(request)) return config("faux/faux-1", "global");
        return undefined;
      },
    );
    await settle();
    expect(requests).toEqual([]);
    await pasteImage(w);
    await vi.waitFor(() => expect(resolves(requests)).toHaveLength(1));
    expect(requests.map((r) => r.path.split("?")[0])).toEqual(["/api/pi/state", CONFIG]);
    expect(resolves(requests)[0]?.path).toBe(`${CONFIG}?cwd=%2Ftmp%2Fproject`);
    expect(noticeText(w)).toBe("Images go to the vision agent (faux/faux-1, from global settings)");
  });
});
