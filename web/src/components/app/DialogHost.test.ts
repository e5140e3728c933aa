import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { describe, expect, it } from "vitest";
import { useDialogsStore } from "../../stores/dialogs.store.ts";
import DialogHost from "./DialogHost.vue";

describe("DialogHost", () => {
  it("asks queued questions one at a time, each starting on its safe choice, then gives focus back to the opener", async () => {
    setActivePinia(createPinia());
    const dialogs = useDialogsStore();
    const opener = document.createElement("button");
    document.body.append(opener);
    opener.focus();
    const wrapper = mount(DialogHost, { attachTo: document.body });

    const deleting = dialogs.confirm({
      title: "Delete this session?",
      message: "It moves to the trash.",
      confirmLabel: "Delete",
      danger: true,
    });
    const leaving = dialogs.confirm({ title: "Leave?", message: "The draft stays." });
    await flushPromises();
    expect(wrapper.get("[data-test=confirm-dialog]").attributes("role")).toBe("alertdialog");
    expect(wrapper.get("[data-test=confirm-dialog] h2").text()).toBe("Delete this session?");
    expect(wrapper.get("[data-test=confirm-ok]").text()).toBe("Delete");
    expect(document.activeElement).toBe(wrapper.get("[data-test=confirm-cancel]").element);

    await wrapper.get("[data-test=confirm-dialog]").trigger("keydown", { key: "Escape" });
    expect(await deleting).toBe(false);
    await flushPromises();
    expect(wrapper.get("[data-test=confirm-dialog] h2").text()).toBe("Leave?");
    expect(wrapper.get("[data-test=confirm-ok]").text()).toBe("OK");
    expect(document.activeElement).toBe(wrapper.get("[data-test=confirm-ok]").element);

    await wrapper.get("[data-test=confirm-ok]").trigger("click");
    expect(await leaving).toBe(true);
    await flushPromises();
    expect(wrapper.find("[data-test=confirm-dialog]").exists()).toBe(false);
    expect(document.activeElement).toBe(opener);
    wrapper.unmount();
    opener.remove();
  });
});
