import { mount, type VueWrapper } from "@vue/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { defineComponent, h } from "vue";
import AppDialog from "./AppDialog.vue";

const mounted: VueWrapper[] = [];
afterEach(() => {
  for (const wrapper of mounted.splice(0)) wrapper.unmount();
  document.body.innerHTML = "";
});

/** A button outside the dialog that has focus when the dialog opens. */
function focusedOpener(): HTMLButtonElement {
  const opener = document.createElement("button");
  opener.textContent = "Open";
  document.body.append(opener);
  opener.focus();
  return opener;
}

interface Buttons {
  autofocus?: "second" | "none" | "disabled-second";
}

function mountDialog({ autofocus = "second" }: Buttons = {}) {
  const wrapper = mount(AppDialog, {
    props: { title: "Archive the notes?", role: "alertdialog", describedby: "what" },
    attrs: { "data-test": "archive-dialog" },
    slots: {
      default: () => h("p", { id: "what" }, "They move to the archive."),
      actions: () => [
        h("button", { type: "button", class: "one" }, "One"),
        h(
          "button",
          {
            type: "button",
            class: "two",
            "data-autofocus": autofocus === "none" ? undefined : "",
            disabled: autofocus === "disabled-second",
          },
          "Two",
        ),
        h("button", { type: "button", class: "three" }, "Three"),
      ],
    },
    attachTo: document.body,
  });
  mounted.push(wrapper);
  return wrapper;
}

/** Opens and closes the dialog the way the app does (v-if in a parent), so it leaves the page while mounted. */
const Host = defineComponent({
  props: { open: { type: Boolean, default: true } },
  setup(props) {
    return () =>
      props.open ? h(AppDialog, { title: "Reset to here?" }, { actions: () => h("button", { type: "button" }, "Cancel") }) : null;
  },
});

function mountHost(container: HTMLElement) {
  const wrapper = mount(Host, { attachTo: container });
  mounted.push(wrapper);
  return wrapper;
}

function keydown(target: Element, key: string, init: KeyboardEventInit = {}): KeyboardEvent {
  const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true, ...init });
  target.dispatchEvent(event);
  return event;
}

describe("AppDialog", () => {
  it("is a modal panel labelled by its title and described by the given text; attributes land on the panel", () => {
    const wrapper = mountDialog();
    const panel = wrapper.get("[data-test=archive-dialog]");
    expect(panel.attributes("role")).toBe("alertdialog");
    expect(panel.attributes("aria-modal")).toBe("true");
    expect(panel.attributes("aria-describedby")).toBe("what");
    expect(document.getElementById(panel.attributes("aria-labelledby") ?? "")?.textContent).toBe("Archive the notes?");
    expect(
      panel
        .get(".actions")
        .findAll("button")
        .map((b) => b.text()),
    ).toEqual(["One", "Two", "Three"]);
    expect(wrapper.get(".backdrop").attributes("data-test")).toBeUndefined();
  });

  it("focuses the element marked data-autofocus, else the first enabled control", () => {
    expect(document.activeElement?.textContent).not.toBe("Two");
    mountDialog();
    expect(document.activeElement?.textContent).toBe("Two");
    mounted.splice(0).forEach((w) => w.unmount());

    mountDialog({ autofocus: "none" });
    expect(document.activeElement?.textContent).toBe("One");
    mounted.splice(0).forEach((w) => w.unmount());

    mountDialog({ autofocus: "disabled-second" });
    expect(document.activeElement?.textContent).toBe("One");
  });

  it("emits close on Escape, and keeps the key from the app's shortcuts and enclosing handlers", () => {
    const seenByWindow: string[] = [];
    const onWindowKey = (event: KeyboardEvent) => seenByWindow.push(event.key);
    window.addEventListener("keydown", onWindowKey);
    try {
      const wrapper = mountDialog();
      const escape = keydown(document.activeElement as Element, "Escape");
      expect(wrapper.emitted("close")).toHaveLength(1);
      expect(escape.defaultPrevented).toBe(true);
      keydown(document.activeElement as Element, "a");
      expect(wrapper.emitted("close")).toHaveLength(1);
      expect(seenByWindow).toEqual(["a"]);
    } finally {
      window.removeEventListener("keydown", onWindowKey);
    }
  });

  it("emits close on a click on the backdrop, not on a click inside the panel", async () => {
    const wrapper = mountDialog();
    await wrapper.get(".title").trigger("click");
    await wrapper.get("button.one").trigger("click");
    expect(wrapper.emitted("close")).toBeUndefined();
    await wrapper.get(".backdrop").trigger("click");
    expect(wrapper.emitted("close")).toHaveLength(1);
  });

  it("keeps Tab and Shift+Tab inside the panel", () => {
    const wrapper = mountDialog();
    const [one, two, three] = wrapper.findAll("button").map((b) => b.element);
    if (one === undefined || two === undefined || three === undefined) throw new Error("three buttons expected");

    // In the middle the browser moves focus itself: the dialog leaves the key alone.
    expect(keydown(two, "Tab").defaultPrevented).toBe(false);

    three.focus();
    expect(keydown(three, "Tab").defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(one);

    expect(keydown(one, "Tab", { shiftKey: true }).defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(three);

    // Focus on the panel itself (a click on its text): Shift+Tab would leave, so it goes to the last control.
    const panel = wrapper.get("[role=alertdialog]").element as HTMLElement;
    panel.focus();
    expect(keydown(panel, "Tab", { shiftKey: true }).defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(three);
    panel.focus();
    expect(keydown(panel, "Tab").defaultPrevented).toBe(true);
    expect(document.activeElement).toBe(one);
  });

  it("gives focus back to what had it before when it closes, unless the person moved it elsewhere", async () => {
    const opener = focusedOpener();
    const host = mountHost(document.body);
    expect(document.activeElement).not.toBe(opener);
    await host.setProps({ open: false });
    expect(document.activeElement).toBe(opener);

    const elsewhere = document.createElement("input");
    document.body.append(elsewhere);
    await host.setProps({ open: true });
    elsewhere.focus();
    await host.setProps({ open: false });
    expect(document.activeElement).toBe(elsewhere);
  });

  it("gives focus back after a click on the backdrop moved it to a focusable container around the dialog", async () => {
    const opener = focusedOpener();
    const main = document.createElement("main");
    main.tabIndex = -1;
    document.body.append(main);
    const host = mountHost(main);
    main.focus();
    await host.setProps({ open: false });
    expect(document.activeElement).toBe(opener);
  });
});
