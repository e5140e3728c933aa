import { mount, type VueWrapper } from "@vue/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { h } from "vue";
import PopoverDialog from "./PopoverDialog.vue";

const mounted: VueWrapper[] = [];
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount();
  document.body.innerHTML = "";
});

function mountPopover(closeKeys?: string[]) {
  const wrapper = mount(PopoverDialog, {
    props: closeKeys === undefined ? {} : { closeKeys },
    attrs: { class: "help", "data-test": "help" },
    slots: {
      default: ({ titleId }: { titleId: string }) => [
        h("h2", { id: titleId }, "Keyboard shortcuts"),
        h("button", { type: "button" }, "Close"),
      ],
    },
    attachTo: document.body,
  });
  mounted.push(wrapper);
  return wrapper;
}

function keydown(target: Element, key: string): KeyboardEvent {
  const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true });
  target.dispatchEvent(event);
  return event;
}

describe("PopoverDialog", () => {
  it("is a non-modal dialog labelled by the heading the slot puts its id on, and takes focus when it appears", () => {
    const wrapper = mountPopover();
    const panel = wrapper.get("[data-test=help]");
    expect(panel.classes()).toContain("help");
    expect(panel.attributes("role")).toBe("dialog");
    expect(panel.attributes("aria-modal")).toBe("false");
    expect(document.getElementById(panel.attributes("aria-labelledby") ?? "")?.textContent).toBe("Keyboard shortcuts");
    expect(document.activeElement).toBe(panel.element);
  });

  it("emits close on Escape from anywhere inside, and keeps that key from the app's shortcuts", () => {
    const seenByWindow: string[] = [];
    const onWindowKey = (event: KeyboardEvent) => seenByWindow.push(event.key);
    window.addEventListener("keydown", onWindowKey);
    try {
      const wrapper = mountPopover();
      expect(keydown(wrapper.get("button").element, "Escape").defaultPrevented).toBe(true);
      expect(wrapper.emitted("close")).toHaveLength(1);
      expect(keydown(wrapper.element, "?").defaultPrevented).toBe(false);
      expect(wrapper.emitted("close")).toHaveLength(1);
      expect(seenByWindow).toEqual(["?"]);
    } finally {
      window.removeEventListener("keydown", onWindowKey);
    }
  });

  it("closes on the keys it is given instead", () => {
    const wrapper = mountPopover(["Escape", "?"]);
    keydown(wrapper.element, "?");
    keydown(wrapper.element, "Escape");
    keydown(wrapper.element, "x");
    expect(wrapper.emitted("close")).toHaveLength(2);
  });
});
