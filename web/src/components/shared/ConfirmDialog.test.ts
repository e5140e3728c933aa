import { mount, type VueWrapper } from "@vue/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { h } from "vue";
import ConfirmDialog from "./ConfirmDialog.vue";

const mounted: VueWrapper[] = [];
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount();
  document.body.innerHTML = "";
});

function mountConfirm(props: Partial<InstanceType<typeof ConfirmDialog>["$props"]> = {}) {
  const wrapper = mount(ConfirmDialog, {
    props: { title: "Delete this session?", message: "It moves to the trash.", ...props },
    slots: { default: () => h("p", { class: "extra" }, "Expires in 9s") },
    attachTo: document.body,
  });
  mounted.push(wrapper);
  return wrapper;
}

describe("ConfirmDialog", () => {
  it("asks in an alertdialog described by its message, with OK and Cancel by default and the slot under the message", () => {
    const wrapper = mountConfirm();
    const dialog = wrapper.get("[role=alertdialog]");
    expect(document.getElementById(dialog.attributes("aria-describedby") ?? "")?.textContent).toBe("It moves to the trash.");
    expect(wrapper.get("[data-test=confirm-ok]").text()).toBe("OK");
    expect(wrapper.get("[data-test=confirm-cancel]").text()).toBe("Cancel");
    expect(dialog.findAll("p").map((p) => p.text())).toEqual(["It moves to the trash.", "Expires in 9s"]);
    expect(wrapper.find("[role=alert]").exists()).toBe(false);
  });

  it("starts on the confirm button, or on Cancel when the action is destructive", () => {
    const plain = mountConfirm({ confirmLabel: "Allow" });
    expect(document.activeElement).toBe(plain.get("[data-test=confirm-ok]").element);
    expect(plain.get("[data-test=confirm-ok]").classes()).toContain("primary");
    plain.unmount();
    mounted.splice(0);

    const danger = mountConfirm({ confirmLabel: "Delete", danger: true });
    expect(document.activeElement).toBe(danger.get("[data-test=confirm-cancel]").element);
    expect(danger.get("[data-test=confirm-ok]").classes()).toEqual(expect.arrayContaining(["danger", "solid"]));
  });

  it("emits confirm from the confirm button, cancel from Cancel, Escape and the backdrop", async () => {
    const wrapper = mountConfirm();
    await wrapper.get("[data-test=confirm-ok]").trigger("click");
    expect(wrapper.emitted("confirm")).toHaveLength(1);
    expect(wrapper.emitted("cancel")).toBeUndefined();
    await wrapper.get("[data-test=confirm-cancel]").trigger("click");
    await wrapper.get("[role=alertdialog]").trigger("keydown", { key: "Escape" });
    await wrapper.get(".backdrop").trigger("click");
    expect(wrapper.emitted("cancel")).toHaveLength(3);
    expect(wrapper.emitted("confirm")).toHaveLength(1);
  });

  it("disables both buttons while busy, only the confirm button when told, and shows an error as an alert", () => {
    const busy = mountConfirm({ busy: true });
    expect(busy.get("[data-test=confirm-ok]").attributes("disabled")).toBeDefined();
    expect(busy.get("[data-test=confirm-cancel]").attributes("disabled")).toBeDefined();

    const waiting = mountConfirm({ confirmDisabled: true, error: "Cannot tell what the reset removes" });
    expect(waiting.get("[data-test=confirm-ok]").attributes("disabled")).toBeDefined();
    expect(waiting.get("[data-test=confirm-cancel]").attributes("disabled")).toBeUndefined();
    expect(waiting.get("[role=alert]").text()).toBe("Cannot tell what the reset removes");
  });
});
