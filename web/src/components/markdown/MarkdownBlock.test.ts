import "../../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount } from "@vue/test-utils";
import { describe, expect, it } from "vitest";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import MarkdownBlock, { type CitationClick } from "./MarkdownBlock.vue";

async function mountBlock(props: { source: string; citations?: boolean }) {
  const wrapper = mount(MarkdownBlock, { props, attachTo: document.body });
  await loadMarkdownRenderer();
  await flushPromises();
  return wrapper;
}

describe("MarkdownBlock", () => {
  it("renders sanitized Markdown once the lazy chunk has loaded", async () => {
    const wrapper = await mountBlock({ source: "**bold** <img src=x onerror=alert(1)> [x](javascript:alert(1))" });
    const root = wrapper.get("[data-test=markdown]");
    expect(root.find("strong").text()).toBe("bold");
    expect(root.find("img").exists()).toBe(false);
    expect(root.find("a").exists()).toBe(false);
    expect(root.text()).toContain("<img src=x onerror=alert(1)>");
    wrapper.unmount();
  });

  it("emits a citation click instead of navigating", async () => {
    const wrapper = await mountBlock({ source: "A claim [2](https://example.com/a).", citations: true });
    const link = wrapper.get("a[data-citation]");
    const event = new MouseEvent("click", { bubbles: true, cancelable: true });
    link.element.dispatchEvent(event);
    expect(event.defaultPrevented).toBe(true);
    const emitted = wrapper.emitted<[CitationClick]>("citation");
    expect(emitted).toHaveLength(1);
    expect(emitted?.[0]?.[0]).toMatchObject({ number: 2, href: "https://example.com/a" });
    expect(emitted?.[0]?.[0].anchor).toBe(link.element);
    wrapper.unmount();
  });

  it("lets ordinary links and un-cited blocks navigate", async () => {
    const wrapper = await mountBlock({ source: "[2](https://example.com/a) and [docs](https://example.com/d)" });
    const links = wrapper.findAll("a");
    expect(links).toHaveLength(2);
    // Record whether the component prevented navigation, then stop happy-dom from opening the link.
    const prevented: boolean[] = [];
    const stop = (event: Event) => {
      prevented.push(event.defaultPrevented);
      event.preventDefault();
    };
    document.addEventListener("click", stop);
    for (const link of links) link.element.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
    document.removeEventListener("click", stop);
    expect(prevented).toEqual([false, false]);
    expect(wrapper.emitted("citation")).toBeUndefined();
    wrapper.unmount();
  });

  it("re-renders when the source changes (streaming text)", async () => {
    const wrapper = await mountBlock({ source: "Hello" });
    await wrapper.setProps({ source: "Hello `world`" });
    expect(wrapper.get("code").text()).toBe("world");
    wrapper.unmount();
  });
});
