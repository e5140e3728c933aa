import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeSockets, ManualTimers } from "../../api/events-socket.fixture.ts";
import { CAPABILITY_NAMES, type CapabilityName } from "../../backend-info.ts";
import { useBackendStore } from "../../stores/backend.store.ts";
import { useNoticesStore } from "../../stores/notices.store.ts";
import { useReviewStore } from "../../stores/review.store.ts";
import ReviewBadge from "./ReviewBadge.vue";
import ReviewPane from "./ReviewPane.vue";
import {
  APP_PATCH,
  FIRST_HUNK,
  REPO,
  reviewBackend,
  reviewFile,
  reviewStatus,
  section,
  type ReviewModel,
} from "./review/review.fixture.ts";

const AGENT_WORKING = "The agent is working in this repository (session s1). Wait for its turn to end, or confirm to act anyway.";

let wrappers: VueWrapper[] = [];
let backend: ReturnType<typeof reviewBackend> | undefined;
let fakes = fakeSockets();
let timers = new ManualTimers();

beforeEach(() => {
  localStorage.clear();
});
afterEach(() => {
  for (const wrapper of wrappers) wrapper.unmount();
  wrappers = [];
  useReviewStore().reset();
  backend?.restore();
  backend = undefined;
  document.body.innerHTML = "";
});

function defaultModel(): ReviewModel {
  return {
    status: reviewStatus([
      reviewFile("src/app.ts"),
      reviewFile("docs/guide.md", { staged: true, unstaged: false, indexStatus: "A", worktreeStatus: " ", kind: "added" }),
      reviewFile("notes.txt", { untracked: true, kind: "untracked", indexStatus: "?", worktreeStatus: "?" }),
    ]),
    diffs: {
      "src/app.ts": { path: "src/app.ts", diffs: [section("working", APP_PATCH)] },
      "docs/guide.md": {
        path: "docs/guide.md",
        diffs: [
          section(
            "staged",
            "diff --git a/docs/guide.md b/docs/guide.md\nnew file mode 100644\n--- /dev/null\n+++ b/docs/guide.md\n@@ -0,0 +1 @@\n+# Guide\n",
          ),
        ],
      },
    },
  };
}

/** Mounts the pane (and, with `badge`, a badge on the same folder) with a scripted backend and fake sockets. */
async function setUp(options: { model?: ReviewModel; watch?: boolean; badge?: boolean } = {}) {
  const model = options.model ?? defaultModel();
  const pinia = createPinia();
  setActivePinia(pinia);
  const flags = new Set<CapabilityName>(options.watch === false ? ["review"] : ["review", "reviewWatch"]);
  const capabilities = Object.fromEntries(CAPABILITY_NAMES.map((name) => [name, flags.has(name)])) as Record<CapabilityName, boolean>;
  useBackendStore().$patch({ status: "ready", info: { name: "Leyline", version: "0.1.0", apiVersion: 2, capabilities } });
  backend = reviewBackend(model);
  fakes = fakeSockets();
  timers = new ManualTimers();
  useReviewStore().setTransport({
    wsBase: "ws://leyline.test",
    createSocket: fakes.createSocket,
    timers,
    silenceMs: 0,
  });
  if (options.badge) wrappers.push(mount(ReviewBadge, { props: { cwd: REPO }, global: { plugins: [pinia] } }));
  const pane = mount(ReviewPane, { props: { sessionId: "s1", cwd: REPO }, global: { plugins: [pinia] }, attachTo: document.body });
  wrappers.push(pane);
  if (options.watch !== false) {
    socket().open();
    socket().receive({ type: "review_ready", data: {} });
  }
  await flushPromises();
  return { pane, model, backend };
}

const socket = () => fakes.last();
const rows = (pane: VueWrapper) =>
  pane.findAll("[data-test=review-file]").map((row) => `${row.attributes("data-group")}:${row.attributes("data-path")}`);
const row = (pane: VueWrapper, group: string, path: string) =>
  pane.get(`[data-test=review-file][data-group=${group}][data-path="${path}"]`);

async function open(pane: VueWrapper, group: string, path: string) {
  await row(pane, group, path).get("[data-test=review-file-open]").trigger("click");
  await flushPromises();
}

describe("ReviewPane: status", () => {
  it("subscribes to the folder's review socket and shows the files grouped, with branch and totals", async () => {
    const { pane } = await setUp();
    expect(socket().url).toBe("ws://leyline.test/api/pi/review/events?cwd=%2Fwork%2Fapp");
    expect(backend?.to("/api/pi/review")).toHaveLength(1);
    expect(rows(pane)).toEqual(["staged:docs/guide.md", "changes:src/app.ts", "changes:notes.txt"]);
    expect(pane.get("[data-test=review-branch]").text()).toBe("main");
    expect(pane.get("[data-test=review-totals]").text()).toBe("+3 \u22121");
    expect(pane.get("[data-test=review-file-count]").text()).toBe("3 files");
    expect(row(pane, "changes", "notes.txt").get(".letter").text()).toBe("U");
    expect(row(pane, "staged", "docs/guide.md").text()).toContain("added");
    // Live: no Refresh button.
    expect(pane.find("[data-test=review-refresh]").exists()).toBe(false);
  });

  it("says when line counts are unavailable and when the list was cut at 500", async () => {
    const model = defaultModel();
    model.status = { ...model.status, filesTruncated: true, totalFiles: null, lineStatsAvailable: false, additions: 0, deletions: 0 };
    const { pane } = await setUp({ model });
    expect(pane.get("[data-test=review-totals]").text()).toBe("line counts unavailable");
    expect(pane.get("[data-test=review-file-count]").text()).toBe("showing 3 of many files");
  });

  it("shows a folder outside any repository as such", async () => {
    const { pane } = await setUp({ model: { status: reviewStatus([], { available: false, root: "/tmp/plain", branch: "" }), diffs: {} } });
    expect(pane.get("[data-test=review-not-repository]").text()).toContain("not in a Git repository");
    expect(pane.get("[data-test=review-not-repository]").text()).toContain("/tmp/plain");
    expect(pane.find("[data-test=review-commit]").exists()).toBe(false);
  });

  it("without the watch capability opens no socket and fetches again on Refresh", async () => {
    const { pane, model } = await setUp({ watch: false });
    expect(fakes.sockets).toHaveLength(0);
    expect(rows(pane)).toHaveLength(3);
    model.status = reviewStatus([reviewFile("src/app.ts")]);
    await pane.get("[data-test=review-refresh]").trigger("click");
    await flushPromises();
    expect(backend?.to("/api/pi/review")).toHaveLength(2);
    expect(rows(pane)).toEqual(["changes:src/app.ts"]);
  });

  it("says Reconnecting… while the socket is down, and catches up when it is ready again", async () => {
    const { pane, model } = await setUp();
    socket().drop();
    await flushPromises();
    expect(pane.get("[data-test=review-reconnecting]").text()).toBe("Reconnecting…");
    model.status = reviewStatus([reviewFile("src/app.ts")]);
    timers.fire(1000);
    socket().open();
    socket().receive({ type: "review_ready", data: {} });
    await flushPromises();
    expect(pane.find("[data-test=review-reconnecting]").exists()).toBe(false);
    expect(rows(pane)).toEqual(["changes:src/app.ts"]);
  });
});

describe("ReviewPane: diff", () => {
  it("loads a file's diff on click, with line numbers and hunks, and switches to side by side (remembered)", async () => {
    const { pane } = await setUp();
    await open(pane, "changes", "src/app.ts");
    expect(backend?.to("/api/pi/review/diff").map((r) => r.path)).toEqual(["/api/pi/review/diff?cwd=%2Fwork%2Fapp&path=src%2Fapp.ts"]);
    const diff = pane.get("[data-test=review-diff]");
    expect(diff.findAll("[data-test=review-hunk]")).toHaveLength(2);
    const lines = diff.findAll("[data-test=review-diff-line]");
    expect(lines.map((line) => line.classes().find((c) => c.startsWith("line-")))).toEqual([
      "line-context",
      "line-del",
      "line-add",
      "line-context",
      "line-context",
      "line-add",
      "line-context",
    ]);
    expect(lines[2]?.findAll("td").map((td) => td.text())).toEqual(["", "2", "+added", "const b = 3;"]);
    expect(pane.get("[data-test=review-mode-unified]").attributes("aria-pressed")).toBe("true");

    await pane.get("[data-test=review-mode-split]").trigger("click");
    const splitRows = pane.findAll("[data-test=review-diff-row]");
    expect(splitRows).toHaveLength(6);
    expect(splitRows[1]?.findAll("td").map((td) => td.text())).toEqual(["2", "const b = 2;", "2", "const b = 3;"]);
    expect(localStorage.getItem("leyline.reviewDiffMode")).toBe("split");
  });

  it("colours the code once highlight.js has loaded (a lazy import)", async () => {
    const { pane } = await setUp();
    await open(pane, "changes", "src/app.ts");
    await import("../../markdown/highlight.ts");
    await flushPromises();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await flushPromises();
    expect(pane.find("[data-test=review-diff] .code .hljs-keyword").exists()).toBe(true);
  });

  it("says so for binary files, nested repositories and diffs too large to show; a conflict is read-only", async () => {
    const model = defaultModel();
    model.status = reviewStatus([
      reviewFile("img.png"),
      reviewFile("vendor/lib/", { untracked: true, kind: "untracked", indexStatus: "?", worktreeStatus: "?" }),
      reviewFile("big.json"),
      reviewFile("both.ts", { conflicted: true, kind: "conflicted", indexStatus: "U", worktreeStatus: "U" }),
    ]);
    model.diffs = {
      "img.png": { path: "img.png", diffs: [section("working", "", { binary: true })] },
      "vendor/lib/": { path: "vendor/lib/", diffs: [section("working", "", { directory: true })] },
      "big.json": { path: "big.json", diffs: [section("working", "", { tooLarge: true, lines: 12000 })] },
      "both.ts": {
        path: "both.ts",
        diffs: [section("conflict", "diff --cc both.ts\n@@@ -1,1 -1,1 +1,5 @@@\n++<<<<<<< HEAD\n +a\n++=======\n+ b\n++>>>>>>> x\n")],
      },
    };
    const { pane } = await setUp({ model });
    await open(pane, "changes", "img.png");
    expect(pane.get("[data-test=review-diff-binary]").text()).toBe("Binary file");
    await open(pane, "changes", "vendor/lib/");
    expect(pane.get("[data-test=review-diff-directory]").text()).toBe("Nested repository");
    await open(pane, "changes", "big.json");
    expect(pane.get("[data-test=review-diff-too-large]").text()).toBe("This diff is too large to show (12,000 lines)");
    await open(pane, "conflicts", "both.ts");
    expect(pane.get("[data-test=review-diff-conflict]").text()).toContain("read-only");
    expect(pane.findAll("[data-test=review-diff-line]")).toHaveLength(5);
    expect(pane.find("[data-test=review-hunk-stage]").exists()).toBe(false);
  });

  it("on a live change refetches the list and reloads the open diff in place; a file without changes closes", async () => {
    const { pane, model } = await setUp();
    await open(pane, "changes", "src/app.ts");
    const scroller = pane.get("[data-test=review-diff-scroll]").element as HTMLElement;
    scroller.scrollTop = 120;
    model.diffs["src/app.ts"] = { path: "src/app.ts", diffs: [section("working", APP_PATCH.replace("const b = 3;", "const b = 30;"))] };
    socket().receive({ type: "review_change", data: { root: REPO } });
    await flushPromises();
    expect(backend?.to("/api/pi/review")).toHaveLength(2);
    expect(backend?.to("/api/pi/review/diff")).toHaveLength(2);
    expect(pane.get("[data-test=review-diff]").text()).toContain("const b = 30;");
    expect(scroller.scrollTop).toBe(120);

    model.status = reviewStatus([reviewFile("notes.txt", { untracked: true, kind: "untracked" })]);
    socket().receive({ type: "review_change", data: { root: REPO } });
    await flushPromises();
    expect(rows(pane)).toEqual(["changes:notes.txt"]);
    expect(pane.find("[data-test=review-diff]").exists()).toBe(false);
    expect(backend?.to("/api/pi/review/diff")).toHaveLength(2);
  });

  it("starts another file's diff at its top", async () => {
    const { pane } = await setUp();
    await open(pane, "changes", "src/app.ts");
    const scroller = pane.get("[data-test=review-diff-scroll]").element as HTMLElement;
    scroller.scrollTop = 80;
    await open(pane, "staged", "docs/guide.md");
    expect(pane.get("[data-test=review-diff-path]").text()).toBe("docs/guide.md");
    expect((pane.get("[data-test=review-diff-scroll]").element as HTMLElement).scrollTop).toBe(0);
  });

  it("offers Refresh after a failed fetch even while live", async () => {
    const model = defaultModel();
    model.status = { ...model.status, branch: "" };
    const { pane } = await setUp({ model });
    expect(pane.get("[data-test=review-branch]").text()).toBe("no branch");
    model.statusError = "git status failed";
    socket().receive({ type: "review_change", data: { root: REPO } });
    await flushPromises();
    expect(pane.get("[data-test=review-fetch-error]").text()).toBe("git status failed");
    delete model.statusError;
    await pane.get("[data-test=review-refresh]").trigger("click");
    await flushPromises();
    expect(pane.find("[data-test=review-fetch-error]").exists()).toBe(false);
    expect(pane.find("[data-test=review-refresh]").exists()).toBe(false);
  });
});

describe("ReviewPane: actions", () => {
  it("stages and unstages a file through the routes, then fetches the status again", async () => {
    const { pane } = await setUp();
    await row(pane, "changes", "src/app.ts").get("[data-test=review-stage]").trigger("click");
    await flushPromises();
    expect(backend?.to("/api/pi/review/stage", "POST").map((r) => r.body)).toEqual([{ cwd: REPO, paths: ["src/app.ts"] }]);
    await row(pane, "staged", "docs/guide.md").get("[data-test=review-unstage]").trigger("click");
    await flushPromises();
    expect(backend?.to("/api/pi/review/unstage", "POST").map((r) => r.body)).toEqual([{ cwd: REPO, paths: ["docs/guide.md"] }]);
    expect(backend?.to("/api/pi/review")).toHaveLength(3);
    await pane.get("[data-test=review-stage-all]").trigger("click");
    await flushPromises();
    expect(backend?.to("/api/pi/review/stage", "POST").at(-1)?.body).toEqual({ cwd: REPO, paths: ["src/app.ts", "notes.txt"] });
  });

  it("stages one hunk with its exact text; a new file's hunks are not offered (it is staged whole)", async () => {
    const { pane } = await setUp();
    await open(pane, "changes", "src/app.ts");
    const buttons = pane.findAll("[data-test=review-hunk-stage]");
    expect(buttons.map((b) => b.text())).toEqual(["Stage hunk", "Stage hunk"]);
    await buttons[0]?.trigger("click");
    await flushPromises();
    expect(backend?.to("/api/pi/review/hunk", "POST").map((r) => r.body)).toEqual([
      { cwd: REPO, path: "src/app.ts", scope: "working", action: "stage", hunk: FIRST_HUNK },
    ]);
    await open(pane, "staged", "docs/guide.md");
    expect(pane.find("[data-test=review-hunk-unstage]").exists()).toBe(false);
  });

  it("shows a stale hunk's 409 and refreshes the review", async () => {
    const { pane } = await setUp();
    await open(pane, "changes", "src/app.ts");
    backend?.queue("hunk", { status: 409, body: { error: "This change is no longer in the file; refresh the review." } });
    await pane.get("[data-test=review-hunk-stage]").trigger("click");
    await flushPromises();
    expect(pane.get("[data-test=review-action-error]").text()).toContain("This change is no longer in the file; refresh the review.");
    expect(backend?.to("/api/pi/review")).toHaveLength(2);
    await pane.get("[data-test=review-action-error-dismiss]").trigger("click");
    expect(pane.find("[data-test=review-action-error]").exists()).toBe(false);
  });

  it("discards only after confirming, and says where the copy is kept", async () => {
    const { pane } = await setUp();
    await row(pane, "changes", "src/app.ts").get("[data-test=review-discard]").trigger("click");
    expect(pane.get("[role=alertdialog]").text()).toContain("Discard the working changes to src/app.ts? A copy is kept.");
    await pane.get("[data-test=confirm-cancel]").trigger("click");
    expect(pane.find("[role=alertdialog]").exists()).toBe(false);
    expect(backend?.to("/api/pi/review/discard")).toHaveLength(0);

    await row(pane, "changes", "src/app.ts").get("[data-test=review-discard]").trigger("click");
    await pane.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(backend?.to("/api/pi/review/discard", "POST").map((r) => r.body)).toEqual([{ cwd: REPO, path: "src/app.ts", confirm: true }]);
    const notice = useNoticesStore().notices.at(-1);
    expect(notice?.message).toBe("A copy is kept at /home/me/.pi/agent/leyline-trash/review/app.ts.");
    expect(notice?.context).toBe("Discarded the working changes to src/app.ts");
    // Staged-only files have no working changes to discard.
    expect(row(pane, "staged", "docs/guide.md").find("[data-test=review-discard]").exists()).toBe(false);
  });

  it("asks before acting while the agent works, then sends the action again with whileAgentWorks", async () => {
    const { pane } = await setUp();
    backend?.queue("stage", { status: 409, body: { error: AGENT_WORKING } });
    await row(pane, "changes", "src/app.ts").get("[data-test=review-stage]").trigger("click");
    await flushPromises();
    const dialog = pane.get("[role=alertdialog]");
    expect(dialog.text()).toContain(AGENT_WORKING);
    await pane.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(backend?.to("/api/pi/review/stage", "POST").map((r) => r.body)).toEqual([
      { cwd: REPO, paths: ["src/app.ts"] },
      { cwd: REPO, paths: ["src/app.ts"], whileAgentWorks: true },
    ]);
    expect(pane.find("[role=alertdialog]").exists()).toBe(false);
    expect(pane.find("[data-test=review-action-error]").exists()).toBe(false);

    // Cancelling sends nothing more.
    backend?.queue("stage", { status: 409, body: { error: AGENT_WORKING } });
    await row(pane, "changes", "src/app.ts").get("[data-test=review-stage]").trigger("click");
    await flushPromises();
    await pane.get("[data-test=confirm-cancel]").trigger("click");
    await flushPromises();
    expect(backend?.to("/api/pi/review/stage", "POST")).toHaveLength(3);
  });

  it("turns every action off while files are in conflict, and shows a merge refusal as an error", async () => {
    const model = defaultModel();
    model.status = reviewStatus([
      ...model.status.files,
      reviewFile("both.ts", { conflicted: true, kind: "conflicted", indexStatus: "U", worktreeStatus: "U" }),
    ]);
    const { pane } = await setUp({ model });
    expect(pane.get("[data-test=review-conflicts]").text()).toContain("1 file is in conflict");
    for (const control of pane.findAll(
      "[data-test=review-stage], [data-test=review-unstage], [data-test=review-discard], [data-test=review-commit]",
    )) {
      expect(control.attributes("disabled")).toBeDefined();
    }
    await open(pane, "changes", "src/app.ts");
    expect(pane.find("[data-test=review-hunk-stage]").exists()).toBe(false);

    // A refusal during a merge the list does not show (no conflicted paths yet).
    const { pane: second } = await remountWith(defaultModel());
    backend?.queue("stage", {
      status: 409,
      body: { error: "Finish or abort the merge in a terminal first: the review pane cannot represent a conflicted repository." },
    });
    await row(second, "changes", "src/app.ts").get("[data-test=review-stage]").trigger("click");
    await flushPromises();
    expect(second.get("[data-test=review-action-error]").text()).toContain("Finish or abort the merge in a terminal first");
  });

  it("commits the staged changes with Ctrl+Enter and shows the new commit; nothing staged: no commit", async () => {
    const { pane, model } = await setUp();
    const message = pane.get("[data-test=review-commit-message]");
    expect(pane.get("[data-test=review-commit]").attributes("disabled")).toBeDefined();
    await message.setValue("Fix the parser\n\nDetails.");
    expect(pane.get("[data-test=review-commit]").attributes("disabled")).toBeUndefined();
    await message.trigger("keydown", { key: "Enter", ctrlKey: true });
    await flushPromises();
    expect(backend?.to("/api/pi/review/commit", "POST").map((r) => r.body)).toEqual([{ cwd: REPO, message: "Fix the parser\n\nDetails." }]);
    expect(pane.get("[data-test=review-last-commit]").text()).toBe("Committed 0123456 Fix the parser");
    expect(useNoticesStore().notices.at(-1)).toMatchObject({ message: "0123456 Fix the parser", context: "Committed" });
    expect((message.element as HTMLTextAreaElement).value).toBe("");

    model.status = reviewStatus([reviewFile("src/app.ts")]);
    socket().receive({ type: "review_change", data: { root: REPO } });
    await flushPromises();
    await message.setValue("More");
    expect(pane.get("[data-test=review-commit]").attributes("disabled")).toBeDefined();
    await message.trigger("keydown", { key: "Enter", ctrlKey: true });
    await flushPromises();
    expect(backend?.to("/api/pi/review/commit", "POST")).toHaveLength(1);
  });

  it("moves between files with the arrow keys", async () => {
    const { pane } = await setUp();
    const buttons = pane.findAll("[data-test=review-file-open]");
    (buttons[0]?.element as HTMLElement).focus();
    await buttons[0]?.trigger("keydown", { key: "ArrowDown" });
    expect(document.activeElement).toBe(buttons[1]?.element);
    await buttons[1]?.trigger("keydown", { key: "End" });
    expect(document.activeElement).toBe(buttons[2]?.element);
    await buttons[2]?.trigger("keydown", { key: "Home" });
    expect(document.activeElement).toBe(buttons[0]?.element);
  });
});

describe("ReviewBadge", () => {
  it("shares the pane's socket, shows the count with a label, and hides at 0", async () => {
    const { model } = await setUp({ badge: true });
    expect(fakes.sockets).toHaveLength(1);
    const badge = wrappers[0] as VueWrapper;
    expect(badge.get("[data-test=review-badge]").text()).toBe("3");
    expect(badge.get("[data-test=review-badge]").attributes("aria-label")).toBe("3 changed files");
    model.status = reviewStatus([]);
    socket().receive({ type: "review_change", data: { root: REPO } });
    await flushPromises();
    expect(badge.find("[data-test=review-badge]").exists()).toBe(false);
    // The pane closing keeps the badge's subscription (and socket) alive.
    wrappers[1]?.unmount();
    wrappers = [badge];
    expect(socket().closed).toBe(false);
    badge.unmount();
    wrappers = [];
    expect(socket().closed).toBe(true);
  });

  it('says "500+" when the list was cut, and nothing outside a repository', async () => {
    const many = Array.from({ length: 500 }, (_, i) => reviewFile(`f${i}.ts`));
    const { model } = await setUp({
      badge: true,
      model: { status: reviewStatus(many, { filesTruncated: true, totalFiles: null }), diffs: {} },
    });
    const badge = wrappers[0] as VueWrapper;
    expect(badge.get("[data-test=review-badge]").text()).toBe("500+");
    expect(badge.get("[data-test=review-badge]").attributes("aria-label")).toBe("More than 500 changed files");
    model.status = reviewStatus([], { available: false });
    socket().receive({ type: "review_unavailable", data: {} });
    await flushPromises();
    expect(badge.find("[data-test=review-badge]").exists()).toBe(false);
  });
});

/** Unmounts what is mounted and mounts the pane again on a fresh store with `model`. */
async function remountWith(model: ReviewModel) {
  for (const wrapper of wrappers) wrapper.unmount();
  wrappers = [];
  useReviewStore().reset();
  backend?.restore();
  return setUp({ model });
}
