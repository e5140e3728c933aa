import { createPinia, setActivePinia } from "pinia";
import { beforeEach, describe, expect, it } from "vitest";
import { useWorkspaceStore } from "./workspace.store.ts";

describe("useWorkspaceStore", () => {
  beforeEach(() => setActivePinia(createPinia()));

  it("opens a file link as the preview tab, a new request for the same link included", () => {
    const workspace = useWorkspaceStore();
    workspace.attach("s1");
    expect(workspace.tab).toBeNull();
    workspace.openFile("src/app.ts:12", "/work/p/README.md");
    expect(workspace.tab).toBe("file");
    expect(workspace.file).toMatchObject({ href: "src/app.ts:12", basePath: "/work/p/README.md" });
    const first = workspace.file?.request;
    workspace.openFile("src/app.ts:12");
    expect(workspace.file?.request).not.toBe(first);
    expect(workspace.file).not.toHaveProperty("basePath");
  });

  it("shows the terminal tab by opening a first shell, and numbers shells and names editor terminals", () => {
    const workspace = useWorkspaceStore();
    workspace.attach("s1");
    workspace.show("terminal");
    expect(workspace.tab).toBe("terminal");
    expect(workspace.terminals.map((t) => t.title)).toEqual(["Shell 1"]);
    workspace.openTerminal({ path: "/work/p/src/app.ts", line: 3, allowOutsideProject: false });
    workspace.openTerminal();
    expect(workspace.terminals.map((t) => t.title)).toEqual(["Shell 1", "app.ts", "Shell 2"]);
    expect(workspace.terminals[1]?.editor).toEqual({ path: "/work/p/src/app.ts", line: 3, allowOutsideProject: false });
    expect(workspace.activeTerminal).toBe(workspace.terminals[2]?.id);
    // Showing the terminal tab again does not start another shell.
    workspace.show("review");
    workspace.show("terminal");
    expect(workspace.terminals).toHaveLength(3);
  });

  it("closing a terminal selects its neighbour; closing the last closes the terminal tab", () => {
    const workspace = useWorkspaceStore();
    workspace.attach("s1");
    workspace.openTerminal();
    workspace.openTerminal();
    workspace.openTerminal();
    const [a, b, c] = workspace.terminals.map((t) => t.id);
    workspace.selectTerminal(b!);
    workspace.closeTerminal(b!);
    expect(workspace.activeTerminal).toBe(c);
    workspace.closeTerminal(c!);
    expect(workspace.activeTerminal).toBe(a);
    workspace.closeTerminal(a!);
    expect(workspace.activeTerminal).toBeNull();
    expect(workspace.tab).toBeNull();
    workspace.closeTerminal(999);
    expect(workspace.terminals).toEqual([]);
  });

  it("toggles a tab and starts clean for another session, keeping state for the same one", () => {
    const workspace = useWorkspaceStore();
    workspace.attach("s1");
    workspace.toggle("review");
    expect(workspace.tab).toBe("review");
    workspace.toggle("review");
    expect(workspace.tab).toBeNull();
    workspace.openTerminal();
    workspace.attach("s1");
    expect(workspace.terminals).toHaveLength(1);
    workspace.attach("s2");
    expect(workspace.terminals).toEqual([]);
    expect(workspace.tab).toBeNull();
    workspace.show("terminal");
    expect(workspace.terminals.map((t) => t.title)).toEqual(["Shell 1"]);
  });

  it("shows the session tree (the /tree and /fork commands call show), keeping the terminals running", () => {
    const workspace = useWorkspaceStore();
    workspace.attach("s1");
    workspace.openTerminal();
    workspace.show("tree");
    expect(workspace.tab).toBe("tree");
    expect(workspace.terminals).toHaveLength(1);
    workspace.toggle("tree");
    expect(workspace.tab).toBeNull();
    workspace.toggle("tree");
    workspace.attach("s2");
    expect(workspace.tab).toBeNull();
  });
});
