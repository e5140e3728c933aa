import { mount, type VueWrapper } from "@vue/test-utils";
import { afterEach, describe, expect, it } from "vitest";
import { useWorkspaceStore } from "../../stores/workspace.store.ts";
import { fileLinksPinia } from "../workspace/file-links.fixture.ts";
import DiffView from "./DiffView.vue";
import ToolEntry from "./ToolEntry.vue";
import { toolEntry } from "./transcript.fixture.ts";

let wrapper: VueWrapper | undefined;
afterEach(() => {
  wrapper?.unmount();
  wrapper = undefined;
});

function mountTool(entry: ReturnType<typeof toolEntry>, fileLinks = true) {
  const pinia = fileLinksPinia(fileLinks);
  wrapper = mount(ToolEntry, { props: { entry }, global: { plugins: [pinia] }, attachTo: document.body });
  return wrapper;
}

const links = (w: VueWrapper) => w.findAll("[data-test=file-link]");

describe("file links in tool calls", () => {
  it("links the file of a read call in its summary and arguments, with read's line range", async () => {
    const entry = toolEntry("a1", "c1", {
      name: "read",
      arguments: { path: "src/app.ts", offset: 10, limit: 5 },
      file: undefined,
      diff: undefined,
      resultText: "…",
    });
    const w = mountTool(entry);
    const summary = w.get(".summary [data-test=file-link]");
    expect(summary.text()).toBe("src/app.ts");
    expect(summary.attributes("title")).toBe("Preview src/app.ts");
    expect(summary.element.tagName).toBe("BUTTON");
    // The arguments read as before: the JSON text is unchanged around the link.
    const args = w.get("[data-test=tool-arguments]");
    expect(JSON.parse(args.text())).toEqual({ path: "src/app.ts", offset: 10, limit: 5 });
    expect(args.get("[data-test=file-link]").text()).toBe("src/app.ts");

    await args.get("[data-test=file-link]").trigger("click");
    const workspace = useWorkspaceStore();
    expect(workspace.file).toEqual({ href: "src/app.ts#L10-L14", request: 1 });
    expect(workspace.tab).toBe("file");
    await summary.trigger("click");
    expect(workspace.file?.request).toBe(2);
  });

  it("links every path of a paths argument, and no directory of ls", () => {
    const w = mountTool(
      toolEntry("a1", "c1", { name: "multi_read", arguments: { paths: ["a.ts", "docs/b.md"] }, file: undefined, diff: undefined }),
    );
    expect(links(w).map((l) => l.text())).toEqual(["a.ts", "docs/b.md"]);
    wrapper?.unmount();
    const ls = mountTool(toolEntry("a1", "c2", { name: "ls", arguments: { path: "src" }, file: undefined, diff: undefined }));
    expect(links(ls)).toHaveLength(0);
    expect(ls.get(".summary").text()).toBe("src");
  });

  it("links the file of an edit and its diff's headers and hunk", async () => {
    const w = mountTool(toolEntry("a1", "c1"));
    expect(w.get(".summary [data-test=file-link]").text()).toBe("src/app.ts");
    const diffLinks = w.get("[data-test=diff]").findAll("[data-test=file-link]");
    expect(diffLinks.map((l) => l.text())).toEqual(["src/app.ts", "src/app.ts", "+1,2"]);
    // The diff lines read as before.
    expect(w.findAll("[data-test=diff] [data-kind=meta]").map((l) => l.text())).toEqual(["--- a/src/app.ts", "+++ b/src/app.ts"]);
    await diffLinks[2]?.trigger("click");
    expect(useWorkspaceStore().file?.href).toBe("src/app.ts#L1-L2");
  });

  it("shows no links when the backend does not preview files", () => {
    const w = mountTool(toolEntry("a1", "c1", { name: "read", arguments: { path: "src/app.ts" }, file: undefined }), false);
    expect(links(w)).toHaveLength(0);
    expect(w.get(".summary").text()).toBe("src/app.ts");
    expect(w.get("[data-test=diff]").text()).toContain("--- a/src/app.ts");
  });
});

describe("file links in pi's edit diff", () => {
  it("links the new-file line numbers to the tool's file; as buttons that keep the line's text", async () => {
    const pinia = fileLinksPinia();
    const diff = ["  4 keep", "- 5 old", "+ 5 new", "+ 6 more", "  6 after"].join("\n");
    wrapper = mount(DiffView, { props: { diff, file: "web/src/App.vue" }, global: { plugins: [pinia] } });
    const found = wrapper.findAll("[data-test=file-link]");
    expect(found.map((l) => [l.text(), l.attributes("title")])).toEqual([
      ["4", "Preview web/src/App.vue:4"],
      ["5", "Preview web/src/App.vue:5"],
      ["6", "Preview web/src/App.vue:6"],
      ["6", "Preview web/src/App.vue:7"],
    ]);
    expect(wrapper.findAll(".line").map((l) => l.element.textContent)).toEqual(diff.split("\n").map((line) => `${line}\n`));
    // A <button>: in the tab order, and Enter or Space activates it (a click for the browser).
    expect(found[3]?.attributes("type")).toBe("button");
    await found[3]?.trigger("click");
    expect(useWorkspaceStore().file?.href).toBe("web/src/App.vue:7");
  });
});
