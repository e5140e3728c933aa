import { mount } from "@vue/test-utils";
import { describe, expect, it } from "vitest";
import PickerSelect from "./PickerSelect.vue";

const LEVELS = [
  { value: "low", label: "thinking: low" },
  { value: "high", label: "thinking: high" },
  { value: "max", label: "thinking: max", disabled: true },
];

function mountPicker(current = "low") {
  return mount(PickerSelect, { props: { label: "Thinking level", options: LEVELS, current }, attrs: { "data-test": "thinking-picker" } });
}

function valueOf(wrapper: ReturnType<typeof mountPicker>): string {
  return (wrapper.get("select").element as HTMLSelectElement).value;
}

describe("PickerSelect", () => {
  it("shows the current value among its options; the label names it for screen readers and the tooltip", () => {
    const wrapper = mountPicker();
    const select = wrapper.get("[data-test=thinking-picker]");
    expect(select.element.tagName).toBe("SELECT");
    expect(valueOf(wrapper)).toBe("low");
    expect(select.attributes("title")).toBe("Thinking level");
    expect(wrapper.get(".visually-hidden").text()).toBe("Thinking level");
    expect(select.findAll("option").map((o) => [o.text(), o.attributes("disabled") !== undefined])).toEqual([
      ["thinking: low", false],
      ["thinking: high", false],
      ["thinking: max", true],
    ]);
  });

  it("emits a picked value and shows the current one again until the owner changes it", async () => {
    const wrapper = mountPicker();
    await wrapper.get("select").setValue("high");
    expect(wrapper.emitted("select")).toEqual([["high"]]);
    expect(valueOf(wrapper)).toBe("low");
    await wrapper.setProps({ current: "high" });
    expect(valueOf(wrapper)).toBe("high");
  });

  it("emits nothing when the current value is picked again", async () => {
    const wrapper = mountPicker();
    await wrapper.get("select").setValue("low");
    expect(wrapper.emitted("select")).toBeUndefined();
  });

  it("emits open when focused or pressed, so the owner can load its options", async () => {
    const wrapper = mountPicker();
    await wrapper.get("select").trigger("focus");
    await wrapper.get("select").trigger("pointerdown");
    expect(wrapper.emitted("open")).toHaveLength(2);
  });

  it("can be disabled", async () => {
    const wrapper = mountPicker();
    await wrapper.setProps({ disabled: true });
    expect(wrapper.get("select").attributes("disabled")).toBeDefined();
  });
});
