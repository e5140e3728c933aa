import "../../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import { renderMarkdown } from "../../markdown/markdown-renderer.ts";
import { useWorkspaceStore } from "../../stores/workspace.store.ts";
import { fileLinksPinia } from "../workspace/file-links.fixture.ts";
import MarkdownBlock from "./MarkdownBlock.vue";

let wrapper: VueWrapper | undefined;
afterEach(() => {
  wrapper?.unmount();
  wrapper = undefined;
  document.body.innerHTML = "";
});

async function mountBlock(props: { source: string; fileBase?: string; citations?: boolean }, fileLinks = true) {
  const pinia = fileLinksPinia(fileLinks);
  await loadMarkdownRenderer();
  wrapper = mount(MarkdownBlock, { props, global: { plugins: [pinia] }, attachTo: document.body });
  await flushPromises();
  return wrapper;
}

function parse(html: string): HTMLElement {
  const root = document.createElement("div");
  root.innerHTML = html;
  return root;
}

/** Dispatches a click and reports whether something prevented the default (navigation). */
function click(element: Element): boolean {
  const event = new MouseEvent("click", { bubbles: true, cancelable: true });
  element.dispatchEvent(event);
  return event.defaultPrevented;
}

describe("file links in rendered Markdown", () => {
  it("marks local links and path-like inline code, leaving web links and plain code alone", () => {
    const root = parse(
      renderMarkdown(
        [
          "See [the app](src/app.ts#L3-L5), [abs](/etc/hosts:2), [url](file:///home/me/a.md) and [web](https://example.com/a.ts).",
          "Also `src/util.ts:42`, `npm test`, `console.log`, [`b.ts`](https://example.com) and notes.md.",
        ].join("\n\n"),
        { fileLinks: true },
      ),
    );
    const marked = Array.from(root.querySelectorAll("[data-file-href]"));
    expect(marked.map((element) => [element.tagName, element.getAttribute("data-file-href")])).toEqual([
      ["A", "src/app.ts#L3-L5"],
      ["A", "/etc/hosts:2"],
      ["A", "file:///home/me/a.md"],
      ["CODE", "src/util.ts:42"],
      ["A", "notes.md"],
    ]);
    for (const element of marked) {
      expect(element.getAttribute("href")).toBeNull();
      expect(element.getAttribute("role")).toBe("link");
      expect(element.getAttribute("tabindex")).toBe("0");
      expect(element.getAttribute("data-test")).toBe("file-link");
    }
    expect(marked[0]?.getAttribute("title")).toBe("Preview src/app.ts#L3-L5");
    const web = Array.from(root.querySelectorAll("a[href]")).map((a) => [a.getAttribute("href"), a.getAttribute("target")]);
    expect(web).toEqual([
      ["https://example.com/a.ts", "_blank"],
      ["https://example.com", "_blank"],
    ]);
  });

  it("keeps scripts out with file links on", () => {
    for (const source of [
      "[x](javascript:alert(1))",
      "[x](file:javascript:alert(1))",
      '`a.ts" onclick="x()`',
      "[x](a.ts\" onmouseover='x()')",
    ]) {
      const root = parse(renderMarkdown(source, { fileLinks: true }));
      for (const element of Array.from(root.querySelectorAll("*"))) {
        for (const attribute of Array.from(element.attributes)) {
          expect(attribute.name.startsWith("on")).toBe(false);
          expect(attribute.value.toLowerCase().replace(/\s/g, "")).not.toMatch(/^javascript:/);
        }
      }
    }
  });

  it("renders as before with file links off (file: links stay text)", () => {
    const html = renderMarkdown("[a](src/a.ts) [b](file:///x.ts) `src/c.ts`", { fileLinks: false });
    const root = parse(html);
    expect(root.querySelector("[data-file-href]")).toBeNull();
    expect(root.querySelector("a")?.getAttribute("href")).toBe("src/a.ts");
    expect(root.querySelectorAll("a")).toHaveLength(1);
  });

  it("previews a clicked link instead of navigating; a message's links resolve from the session folder", async () => {
    const w = await mountBlock({ source: "Open [the app](src/app.ts:12) or [docs](https://example.com/docs)." });
    expect(click(w.get("[data-file-href]").element)).toBe(true);
    const workspace = useWorkspaceStore();
    expect(workspace.file).toEqual({ href: "src/app.ts:12", request: 1 });
    expect(workspace.tab).toBe("file");

    // Web links keep opening in a new tab (nothing prevented here; the test stops happy-dom from navigating).
    let prevented: boolean | null = null;
    const stop = (event: Event) => {
      prevented = event.defaultPrevented;
      event.preventDefault();
    };
    document.addEventListener("click", stop);
    w.get("a[href]").element.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
    document.removeEventListener("click", stop);
    expect(prevented).toBe(false);
    expect(workspace.file?.request).toBe(1);
  });

  it("opens path-like inline code with Enter, relative to the Markdown file it comes from", async () => {
    const w = await mountBlock({ source: "Run `scripts/build.mjs:3`.", fileBase: "/work/app/docs/guide.md" });
    const code = w.get("code[data-file-href]");
    await code.trigger("keydown", { key: "Enter" });
    expect(useWorkspaceStore().file).toEqual({ href: "scripts/build.mjs:3", basePath: "/work/app/docs/guide.md", request: 1 });
    await code.trigger("keydown", { key: "a" });
    expect(useWorkspaceStore().file?.request).toBe(1);
  });

  it("shows no file links without the capability, or before a session is open", async () => {
    const off = await mountBlock({ source: "[a](src/a.ts) `src/b.ts`" }, false);
    expect(off.find("[data-file-href]").exists()).toBe(false);
    off.unmount();
    const pinia = fileLinksPinia(true);
    useWorkspaceStore().$patch({ sessionId: null });
    wrapper = mount(MarkdownBlock, { props: { source: "`src/b.ts`" }, global: { plugins: [pinia] } });
    await flushPromises();
    expect(wrapper.find("[data-file-href]").exists()).toBe(false);
  });

  it("keeps citations working beside file links", async () => {
    const w = await mountBlock({ source: "Claim [2](https://example.com/a) in `src/a.ts`.", citations: true });
    expect(click(w.get("a[data-citation]").element)).toBe(true);
    expect(w.emitted("citation")).toHaveLength(1);
    expect(useWorkspaceStore().file).toBeNull();
  });
});
