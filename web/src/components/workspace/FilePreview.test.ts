import "../../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount } from "@vue/test-utils";
import { describe, expect, it } from "vitest";
import type { FileActionBody } from "../../api/files.ts";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import { useNoticesStore } from "../../stores/notices.store.ts";
import { useWorkspaceStore, type FileTarget } from "../../stores/workspace.store.ts";
import { cleanedAfterEach, fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import { descriptor, fileLinksPinia, fileSettings, imagePreview, PNG_1X1, SESSION, textPreview } from "./file-links.fixture.ts";
import FilePreview from "./FilePreview.vue";

const FILE_ROUTE = `/api/pi/sessions/${SESSION}/file`;
const SOURCE = ["import { a } from './a';", "", "/* a comment", "   over lines */", "export const b = a + 1;", "const c = 'x';", ""].join(
  "\n",
);

const mounted = cleanedAfterEach();

/** The file route answers `answer(body)`; other routes answer `other`. */
async function mountPreview(
  answer: (body: FileActionBody) => unknown,
  target: Partial<FileTarget> = {},
  other: (request: RecordedRequest) => FakeAnswer | undefined = () => undefined,
) {
  const pinia = fileLinksPinia();
  mounted.backend = fakeBackend((request) => {
    if (request.path === FILE_ROUTE && request.method === "POST") return { body: answer(request.body as FileActionBody) };
    return other(request);
  });
  await loadMarkdownRenderer();
  mounted.wrapper = mount(FilePreview, {
    props: { sessionId: SESSION, target: { href: "src/app.ts#L3-L5", request: 1, ...target } },
    global: { plugins: [pinia] },
    attachTo: document.body,
  });
  await flushPromises();
  return { w: mounted.wrapper, requests: mounted.backend.requests };
}

const fileBodies = (requests: RecordedRequest[]) => requests.filter((r) => r.path === FILE_ROUTE).map((r) => r.body as FileActionBody);

describe("FilePreview", () => {
  it("shows the text with line numbers, colours and the link's line range highlighted", async () => {
    const { w, requests } = await mountPreview(() => textPreview(SOURCE, { line: 3, endLine: 4 }), { basePath: "/work/app/README.md" });
    expect(fileBodies(requests)).toEqual([{ action: "preview", href: "src/app.ts#L3-L5", basePath: "/work/app/README.md" }]);
    expect(w.get("[data-test=file-preview-path]").text()).toBe("/work/app/src/app.ts");
    const lines = w.findAll("[data-test=file-preview-line]");
    expect(lines.map((line) => line.attributes("data-line"))).toEqual(["1", "2", "3", "4", "5", "6"]);
    expect(lines.filter((line) => line.attributes("data-highlighted") !== undefined).map((line) => line.attributes("data-line"))).toEqual([
      "3",
      "4",
    ]);
    expect(lines[4]?.text()).toContain("export const b = a + 1;");
    // highlight.js colours, with the comment that spans two lines cut into balanced lines.
    expect(lines[4]?.find(".hljs-keyword").text()).toBe("export");
    expect(lines[2]?.find(".hljs-comment").text()).toBe("/* a comment");
    expect(lines[3]?.find(".hljs-comment").element.textContent).toBe("   over lines */");
    const meta = w.get("[data-test=file-preview-meta]").text();
    expect(meta).toContain(`${SOURCE.length} B`);
    expect(meta).toContain("6 lines");
    expect(meta).toContain("modified");
    expect(w.find("[data-test=file-preview-error]").exists()).toBe(false);
  });

  it("shows an image with its size", async () => {
    const { w } = await mountPreview(() => imagePreview(), { href: "logo.png" });
    const image = w.get("[data-test=file-preview-image] img");
    expect(image.attributes("src")).toBe(`data:image/png;base64,${PNG_1X1}`);
    expect(w.get("[data-test=file-preview-meta]").text()).toContain("68 B");
    expect(w.find("[data-test=file-preview-line]").exists()).toBe(false);
  });

  it("says what went wrong in words, before asking anything", async () => {
    const { w } = await mountPreview(() =>
      descriptor({ path: "/elsewhere/missing.ts", outsideProject: true, needsApproval: true, error: "The file does not exist" }),
    );
    expect(w.get("[data-test=file-preview-error]").text()).toBe("The file does not exist");
    expect(w.find("[data-test=file-preview-approval]").exists()).toBe(false);
    expect(w.find("[data-test=file-preview-line]").exists()).toBe(false);
  });

  it("reports a failed request (unknown session) as an error", async () => {
    const pinia = fileLinksPinia();
    mounted.backend = fakeBackend(() => ({ status: 404, body: { error: "Session not found" } }));
    const w = mount(FilePreview, { props: { sessionId: SESSION, target: { href: "a.ts", request: 1 } }, global: { plugins: [pinia] } });
    mounted.wrapper = w;
    await flushPromises();
    expect(w.get("[data-test=file-preview-error]").text()).toBe("Session not found");
  });

  it("asks before showing a file outside the project, then repeats the preview with the approved path", async () => {
    const outside = "/home/me/notes/todo.md";
    const { w, requests } = await mountPreview(
      (body) =>
        body.allowOutsideProject === true
          ? textPreview("# Todo\n", { path: outside, language: "markdown", outsideProject: true, terminalEditor: true })
          : descriptor({ path: outside, outsideProject: true, needsApproval: true }),
      { href: "../notes/todo.md" },
    );
    const dialog = w.get("[data-test=file-preview-approval]");
    expect(dialog.text()).toContain(`${outside} is outside this session's project folder. Open it anyway?`);
    expect(w.find("[data-test=file-preview-line]").exists()).toBe(false);
    expect(w.find("[data-test=file-preview-meta]").exists()).toBe(false);

    await dialog.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(fileBodies(requests)).toEqual([
      { action: "preview", href: "../notes/todo.md" },
      { action: "preview", href: "../notes/todo.md", allowOutsideProject: true, approvedPath: outside },
    ]);
    expect(w.find("[data-test=file-preview-approval]").exists()).toBe(false);
    expect(w.get("[data-test=file-preview-line]").text()).toContain("# Todo");

    // The editor action carries the approval (no second question) and opens a terminal for the approved file.
    await w.get("[data-test=file-preview-editor]").trigger("click");
    await flushPromises();
    expect(fileBodies(requests)[2]).toEqual({
      action: "editor",
      href: "../notes/todo.md",
      allowOutsideProject: true,
      approvedPath: outside,
    });
  });

  it("shows nothing when the person declines, and can ask again", async () => {
    const outside = "/home/me/secret.txt";
    const { w, requests } = await mountPreview(() => descriptor({ path: outside, outsideProject: true, needsApproval: true }));
    await w.get("[data-test=confirm-cancel]").trigger("click");
    await flushPromises();
    expect(w.find("[data-test=file-preview-approval]").exists()).toBe(false);
    expect(w.get("[data-test=file-preview-declined]").text()).toContain("outside this session's project folder");
    expect(w.find("[data-test=file-preview-line]").exists()).toBe(false);
    expect(fileBodies(requests)).toHaveLength(1);
    await w.get("[data-test=file-preview-ask-again]").trigger("click");
    await flushPromises();
    expect(w.find("[data-test=file-preview-approval]").exists()).toBe(true);
    expect(fileBodies(requests)).toHaveLength(2);
  });

  it("opens a terminal editor in the workspace at the link's line", async () => {
    const { w, requests } = await mountPreview((body) =>
      body.action === "editor"
        ? { ...descriptor({ line: 3, endLine: 5, terminalEditor: true }), terminal: true }
        : textPreview(SOURCE, { line: 3, endLine: 5, terminalEditor: true }),
    );
    await w.get("[data-test=file-preview-editor]").trigger("click");
    await flushPromises();
    expect(fileBodies(requests).at(-1)).toEqual({ action: "editor", href: "src/app.ts#L3-L5" });
    const workspace = useWorkspaceStore();
    expect(workspace.terminals).toHaveLength(1);
    expect(workspace.terminals[0]?.editor).toEqual({ path: "/work/app/src/app.ts", line: 3, allowOutsideProject: false });
    expect(workspace.tab).toBe("terminal");
  });

  it("says which desktop editor opened the file", async () => {
    const { w } = await mountPreview(
      (body) => (body.action === "editor" ? { ...descriptor(), ok: true } : textPreview(SOURCE)),
      {},
      (request) =>
        request.path === "/api/pi/files/settings"
          ? { body: fileSettings({ effectiveEditor: "code --wait", terminalEditor: false, editorMode: "desktop" }) }
          : undefined,
    );
    await w.get("[data-test=file-preview-editor]").trigger("click");
    await flushPromises();
    expect(useNoticesStore().notices.map((n) => n.message)).toEqual(["Opened in code --wait"]);
    expect(useWorkspaceStore().terminals).toEqual([]);
  });

  it("offers reveal with the server's label and shows an action's error", async () => {
    const { w, requests } = await mountPreview((body) =>
      body.action === "reveal"
        ? descriptor({ revealLabel: "Show in Finder", error: "The file manager could not be started" })
        : textPreview(SOURCE, { revealLabel: "Show in Finder", editorAvailable: false }),
    );
    expect(w.find("[data-test=file-preview-editor]").exists()).toBe(false);
    const reveal = w.get("[data-test=file-preview-reveal]");
    expect(reveal.text()).toBe("Show in Finder");
    await reveal.trigger("click");
    await flushPromises();
    expect(fileBodies(requests).at(-1)).toEqual({ action: "reveal", href: "src/app.ts#L3-L5" });
    expect(w.get("[data-test=file-preview-action-error]").text()).toBe("The file manager could not be started");
  });

  it("has no reveal button when the backend cannot reveal", async () => {
    const { w } = await mountPreview(() => textPreview(SOURCE));
    expect(w.find("[data-test=file-preview-reveal]").exists()).toBe(false);
    expect(w.find("[data-test=file-preview-editor]").exists()).toBe(true);
  });

  it("reloads when the same or another link is requested again", async () => {
    let answers = 0;
    const { w, requests } = await mountPreview((body) => {
      answers++;
      return textPreview(`${body.href}\n`, { path: `/work/app/${body.href}` });
    });
    await w.setProps({ target: { href: "src/app.ts#L3-L5", request: 2 } });
    await flushPromises();
    expect(fileBodies(requests)).toHaveLength(2);
    await w.setProps({ target: { href: "b.ts", request: 3 } });
    await flushPromises();
    expect(answers).toBe(3);
    expect(w.get("[data-test=file-preview-path]").text()).toBe("/work/app/b.ts");
    expect(w.get("[data-test=file-preview-line]").text()).toContain("b.ts");
  });

  it("drops the answer to an older request that arrives last", async () => {
    const pinia = fileLinksPinia();
    let releaseFirst: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    mounted.backend = fakeBackend(async (request) => {
      const body = request.body as FileActionBody;
      if (body.href === "old.ts") await firstHeld;
      return { body: textPreview(`${body.href}\n`, { path: `/work/app/${body.href}` }) };
    });
    const w = mount(FilePreview, { props: { sessionId: SESSION, target: { href: "old.ts", request: 1 } }, global: { plugins: [pinia] } });
    mounted.wrapper = w;
    await flushPromises();
    await w.setProps({ target: { href: "new.ts", request: 2 } });
    await flushPromises();
    releaseFirst();
    await flushPromises();
    expect(w.get("[data-test=file-preview-path]").text()).toBe("/work/app/new.ts");
    expect(w.get("[data-test=file-preview-line] .code").text()).toBe("new.ts");
  });

  it("renders a Markdown file on request, its links resolving beside it", async () => {
    const { w } = await mountPreview(
      () => textPreview("# Title\n\nSee [the code](src/app.ts:3).\n", { path: "/work/app/docs/guide.md", language: "markdown" }),
      {
        href: "docs/guide.md",
      },
    );
    expect(w.find("[data-test=file-preview-line] .hljs-section").exists()).toBe(true);
    await w.get("[data-test=file-preview-render]").trigger("click");
    expect(w.get("[data-test=markdown] h1").text()).toBe("Title");
    await w.get("[data-test=markdown] [data-test=file-link]").trigger("click");
    expect(useWorkspaceStore().file).toMatchObject({ href: "src/app.ts:3", basePath: "/work/app/docs/guide.md" });
  });
});
