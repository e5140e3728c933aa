import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it } from "vitest";
import { useTheme } from "../../composables/use-theme.ts";
import { useAppSettingsStore } from "../../stores/app-settings.store.ts";
import { cleanedAfterEach, fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import AppearancePanel from "./AppearancePanel.vue";

const PATH = "/api/leyline/settings/ui.thinking_default";
const mounted = cleanedAfterEach();
afterEach(() => {
  useTheme().setTheme("dark");
  localStorage.clear();
});

/** A promise the test resolves when it wants the server to answer. */
function gate<T>() {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

async function mountPanel(handler: (request: RecordedRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>) {
  setActivePinia(createPinia());
  mounted.backend = fakeBackend(handler);
  mounted.wrapper = mount(AppearancePanel, { attachTo: document.body });
  await flushPromises();
  return { w: mounted.wrapper, requests: mounted.backend.requests };
}

const checked = (w: Awaited<ReturnType<typeof mountPanel>>["w"], test: string) =>
  (w.get(`[data-test=${test}]`).element as HTMLInputElement).checked;

describe("Appearance settings", () => {
  it("offers the theme of the top bar and switches it", async () => {
    const { w } = await mountPanel(() => ({ body: { key: "ui.thinking_default", value: "" } }));
    expect(checked(w, "appearance-theme-dark")).toBe(true);
    expect(checked(w, "appearance-theme-light")).toBe(false);
    await w.get("[data-test=appearance-theme-light]").setValue(true);
    expect(useTheme().theme.value).toBe("light");
    expect(document.documentElement.dataset["theme"]).toBe("light");
    expect(localStorage.getItem("leyline.theme")).toBe("light");
    useTheme().setTheme("dark");
    await flushPromises();
    expect(checked(w, "appearance-theme-dark")).toBe(true);
  });

  it("shows an unset thinking default as Collapsed and a stored one as it is", async () => {
    const { w, requests } = await mountPanel(() => ({ body: { key: "ui.thinking_default", value: "" } }));
    expect(requests).toEqual([{ method: "GET", path: PATH, body: undefined }]);
    expect(checked(w, "appearance-thinking-collapsed")).toBe(true);
    expect(checked(w, "appearance-thinking-expanded")).toBe(false);

    w.unmount();
    mounted.backend?.restore();
    const other = await mountPanel(() => ({ body: { key: "ui.thinking_default", value: "expanded" } }));
    expect(checked(other.w, "appearance-thinking-expanded")).toBe(true);
  });

  it("saves a choice with PUT { value }, shows Saving… then Saved, and the store takes it", async () => {
    const answer = gate<FakeAnswer>();
    const { w, requests } = await mountPanel((request) =>
      request.method === "PUT" ? answer.promise : { body: { key: "ui.thinking_default", value: "" } },
    );
    await w.get("[data-test=appearance-thinking-expanded]").setValue(true);
    expect(w.get("[data-test=appearance-thinking-state]").text()).toBe("Saving…");
    expect(w.get("[data-test=appearance-thinking]").attributes("aria-busy")).toBe("true");
    expect(checked(w, "appearance-thinking-expanded")).toBe(true);
    answer.open({ body: { key: "ui.thinking_default", value: "expanded" } });
    await flushPromises();
    expect(w.get("[data-test=appearance-thinking-state]").text()).toBe("Saved");
    expect(useAppSettingsStore().thinkingDefault).toBe("expanded");
    expect(requests.at(-1)).toEqual({ method: "PUT", path: PATH, body: { value: "expanded" } });
  });

  it("a failed save says why next to the choice and goes back to the stored value", async () => {
    const { w } = await mountPanel((request) =>
      request.method === "PUT"
        ? { status: 400, body: { error: "value must be collapsed or expanded" } }
        : { body: { key: "ui.thinking_default", value: "" } },
    );
    await w.get("[data-test=appearance-thinking-expanded]").setValue(true);
    await flushPromises();
    expect(w.get("[data-test=appearance-thinking-error]").text()).toBe("The choice was not saved: value must be collapsed or expanded");
    expect(w.get("[data-test=appearance-thinking-state]").text()).toBe("");
    expect(checked(w, "appearance-thinking-collapsed")).toBe(true);
    expect(checked(w, "appearance-thinking-expanded")).toBe(false);
    expect(useAppSettingsStore().thinkingDefault).toBe("collapsed");
  });

  it("a failed read says so and Retry reads again", async () => {
    let fail = true;
    const { w, requests } = await mountPanel(() =>
      fail
        ? { status: 503, body: { error: "Leyline's database is not ready yet." } }
        : { body: { key: "ui.thinking_default", value: "expanded" } },
    );
    expect(w.get("[data-test=appearance-thinking-load-error]").text()).toContain(
      "The stored choice could not be read: Leyline's database is not ready yet.",
    );
    fail = false;
    await w.get("[data-test=appearance-thinking-retry]").trigger("click");
    await flushPromises();
    expect(w.find("[data-test=appearance-thinking-load-error]").exists()).toBe(false);
    expect(checked(w, "appearance-thinking-expanded")).toBe(true);
    expect(requests).toHaveLength(2);
  });
});
