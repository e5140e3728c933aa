import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it } from "vitest";
import { useNoticesStore } from "../../stores/notices.store.ts";
import NoticeHost from "./NoticeHost.vue";

describe("NoticeHost", () => {
  it("renders a notice's action button; it runs once, then the notice goes; a failing action is reported", async () => {
    setActivePinia(createPinia());
    const notices = useNoticesStore();
    const runs: string[] = [];
    notices.info("Reset done: 3 entries removed.", "", { label: "Undo", run: () => void runs.push("undo") });
    const w = mount(NoticeHost);
    await flushPromises();
    const button = w.get("[data-test=notice-action]");
    expect(button.text()).toBe("Undo");
    await button.trigger("click");
    await flushPromises();
    expect(runs).toEqual(["undo"]);
    expect(w.find("[data-test=notice-action]").exists()).toBe(false);

    notices.info("Reset done.", "", {
      label: "Undo",
      run: () => {
        throw new Error("Trash copy not found");
      },
    });
    await flushPromises();
    await w.get("[data-test=notice-action]").trigger("click");
    await flushPromises();
    expect(w.get("[data-test=api-error]").text()).toContain("Undo failed.");
    expect(w.get("[data-test=api-error]").text()).toContain("Trash copy not found");
    // the offer stays, so the person can try again
    expect(w.find("[data-test=notice-action]").exists()).toBe(true);
    w.unmount();
  });
});
