import "../../markdown/dom-node-name.fixture.ts";
import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { computed } from "vue";
import { describe, expect, it } from "vitest";
import type { AssistantMessageTranscriptEntry, RolloutFeedback } from "../../../../domain/transcript/transcript-types.ts";
import type { SessionDetail } from "../../api/dto.ts";
import type { FeedbackTarget } from "../../api/rollout-feedback.ts";
import { loadMarkdownRenderer } from "../../markdown/load-markdown.ts";
import { useNoticesStore } from "../../stores/notices.store.ts";
import { useOpenSessionStore } from "../../stores/open-session.store.ts";
import { cleanedAfterEach, fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import { FEEDBACK_TARGET } from "./entry-feedback.ts";
import MessageEntry from "./MessageEntry.vue";
import { assistantEntry, userEntry } from "./transcript.fixture.ts";
import TranscriptView from "./TranscriptView.vue";

const mounted = cleanedAfterEach();

const TARGET: FeedbackTarget = { sessionId: "s 1", cwd: "/work/project", sessionPath: "/agent/sessions/s1.jsonl" };
const URL = "/api/pi/sessions/s%201/feedback";

function answer(label: RolloutFeedback = "", text = ""): AssistantMessageTranscriptEntry {
  return { ...assistantEntry("a1", "Done.", null, 1), rolloutFeedback: label, rolloutFeedbackText: text };
}

/** A deferred answer of the fake backend: the request stays open until `release`. */
function held() {
  let release: (answer?: FakeAnswer) => void = () => undefined;
  const promise = new Promise<FakeAnswer | undefined>((resolve) => (release = resolve));
  return { promise, release };
}

async function mountEntry(
  entry: AssistantMessageTranscriptEntry,
  handler?: (request: RecordedRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>,
  target: FeedbackTarget | null = TARGET,
) {
  setActivePinia(createPinia());
  mounted.backend = fakeBackend(handler);
  await loadMarkdownRenderer();
  mounted.wrapper = mount(MessageEntry, {
    props: { entry, isThinkingOpen: () => false },
    global: { provide: { [FEEDBACK_TARGET as symbol]: computed(() => target) } },
    attachTo: document.body,
  });
  await flushPromises();
  return mounted.wrapper;
}

const pressed = (w: Awaited<ReturnType<typeof mountEntry>>) => ({
  helpful: w.get("[data-test=entry-feedback-helpful]").attributes("aria-pressed"),
  unhelpful: w.get("[data-test=entry-feedback-unhelpful]").attributes("aria-pressed"),
});

describe("rollout feedback on an assistant message", () => {
  it("shows the stored verdict and note from the entry, as toggle buttons", async () => {
    const w = await mountEntry(answer("unhelpful", "wrong file"));
    expect(pressed(w)).toEqual({ helpful: "false", unhelpful: "true" });
    for (const name of ["helpful", "unhelpful", "note"]) {
      const button = w.get(`[data-test=entry-feedback-${name}]`);
      expect(button.element.tagName).toBe("BUTTON");
      expect(button.attributes("type")).toBe("button");
      expect(button.attributes("aria-label")).toBeTruthy();
    }
    expect(w.get("[data-test=entry-feedback-helpful] svg").attributes("data-icon")).toBe("thumbs-up");
    expect(w.get("[data-test=entry-feedback-text]").text()).toBe("wrong file");
    expect(w.get("[data-test=entry-feedback-note]").attributes("aria-label")).toBe("Edit the note");

    // Unrated: nothing pressed, no note yet.
    await w.setProps({ entry: answer() });
    expect(pressed(w)).toEqual({ helpful: "false", unhelpful: "false" });
    expect(w.find("[data-test=entry-feedback-note]").exists()).toBe(false);
    expect(w.find("[data-test=entry-feedback-text]").exists()).toBe(false);
  });

  it("offers nothing on a user message, or without a saved session", async () => {
    const user = await mountEntry(answer());
    await user.setProps({ entry: userEntry("u1", "hi") });
    expect(user.find("[data-test=entry-feedback]").exists()).toBe(false);
    user.unmount();
    const unsaved = await mountEntry(answer("helpful"), undefined, null);
    expect(unsaved.find("[data-test=entry-feedback-helpful]").exists()).toBe(false);
  });

  it("shows a click at once, sends it to the selected backend, and lets the entry take over when it catches up", async () => {
    const gate = held();
    const w = await mountEntry(answer(), () => gate.promise);
    await w.get("[data-test=entry-feedback-helpful]").trigger("click");
    expect(pressed(w)).toEqual({ helpful: "true", unhelpful: "false" });
    expect(mounted.backend?.requests).toEqual([
      {
        method: "POST",
        path: URL,
        body: { cwd: TARGET.cwd, entryId: "a1", sessionPath: TARGET.sessionPath, label: "helpful", feedbackText: "" },
      },
    ]);
    gate.release({ body: { ok: true, feedback: null } });
    await flushPromises();
    // The socket's delta has not arrived: the click's result stays.
    expect(pressed(w)).toEqual({ helpful: "true", unhelpful: "false" });
    await w.setProps({ entry: answer("helpful") });
    expect(pressed(w)).toEqual({ helpful: "true", unhelpful: "false" });
    // Another window clears it later: this one follows.
    await w.setProps({ entry: answer() });
    expect(pressed(w)).toEqual({ helpful: "false", unhelpful: "false" });
  });

  it("sends one request at a time: quick clicks end with the last choice sent last", async () => {
    const gates = [held(), held()];
    let call = 0;
    const w = await mountEntry(answer(), () => gates[call++]?.promise);
    await w.get("[data-test=entry-feedback-helpful]").trigger("click");
    await w.get("[data-test=entry-feedback-unhelpful]").trigger("click");
    await w.get("[data-test=entry-feedback-helpful]").trigger("click");
    // One request on its way; the screen shows the last click.
    expect(mounted.backend?.requests).toHaveLength(1);
    expect(pressed(w)).toEqual({ helpful: "true", unhelpful: "false" });
    gates[0]!.release({ body: { ok: true, feedback: null } });
    await flushPromises();
    // Then only the newest choice (the middle one is never sent).
    const labels = (mounted.backend?.requests ?? []).map((request) => (request.body as { label: string }).label);
    expect(labels).toEqual(["helpful", "helpful"]);
    gates[1]!.release({ body: { ok: true, feedback: null } });
    await flushPromises();
    expect(pressed(w)).toEqual({ helpful: "true", unhelpful: "false" });
  });

  it("clears the verdict when the pressed button is clicked, and switches keeping the note", async () => {
    const w = await mountEntry(answer("helpful", "nice"));
    await w.get("[data-test=entry-feedback-unhelpful]").trigger("click");
    await flushPromises();
    expect(pressed(w)).toEqual({ helpful: "false", unhelpful: "true" });
    await w.get("[data-test=entry-feedback-unhelpful]").trigger("click");
    await flushPromises();
    expect(pressed(w)).toEqual({ helpful: "false", unhelpful: "false" });
    expect(mounted.backend?.requests.map((r) => r.body)).toEqual([
      { cwd: TARGET.cwd, entryId: "a1", sessionPath: TARGET.sessionPath, label: "unhelpful", feedbackText: "nice" },
      { cwd: TARGET.cwd, entryId: "a1", sessionPath: TARGET.sessionPath, label: "" },
    ]);
  });

  it("puts back the stored verdict and says why when the request fails", async () => {
    const w = await mountEntry(answer("unhelpful"), () => ({ status: 400, body: { error: "feedbackText must be a string" } }));
    await w.get("[data-test=entry-feedback-helpful]").trigger("click");
    expect(pressed(w)).toEqual({ helpful: "true", unhelpful: "false" });
    await flushPromises();
    expect(pressed(w)).toEqual({ helpful: "false", unhelpful: "true" });
    expect(useNoticesStore().notices).toEqual([
      expect.objectContaining({ kind: "error", message: "feedbackText must be a string", context: "Saving feedback" }),
    ]);
  });

  it("adds a note in a small dialog from the keyboard: focus goes in, Ctrl+Enter saves, Escape cancels, focus comes back", async () => {
    const w = await mountEntry(answer("helpful"));
    const note = w.get("[data-test=entry-feedback-note]");
    expect(note.attributes("aria-label")).toBe("Add a note");
    expect(note.attributes("aria-expanded")).toBe("false");
    await note.trigger("click");
    await flushPromises();
    const dialog = w.get("[data-test=entry-feedback-note-dialog]");
    expect(dialog.attributes("role")).toBe("dialog");
    expect(note.attributes("aria-expanded")).toBe("true");
    expect(note.attributes("aria-controls")).toBe(dialog.attributes("id"));
    const input = w.get("[data-test=entry-feedback-note-input]");
    expect(document.activeElement).toBe(input.element);
    expect(input.attributes("maxlength")).toBe("4000");

    // Escape: nothing sent, focus back on the note button.
    await input.setValue("never mind");
    await input.trigger("keydown", { key: "Escape" });
    await flushPromises();
    expect(w.find("[data-test=entry-feedback-note-dialog]").exists()).toBe(false);
    expect(document.activeElement).toBe(note.element);
    expect(mounted.backend?.requests).toEqual([]);

    await note.trigger("click");
    await flushPromises();
    await w.get("[data-test=entry-feedback-note-input]").setValue("  clear and short  ");
    await w.get("[data-test=entry-feedback-note-input]").trigger("keydown", { key: "Enter", ctrlKey: true });
    await flushPromises();
    expect(w.find("[data-test=entry-feedback-note-dialog]").exists()).toBe(false);
    expect(mounted.backend?.requests.map((r) => r.body)).toEqual([
      { cwd: TARGET.cwd, entryId: "a1", sessionPath: TARGET.sessionPath, label: "helpful", feedbackText: "clear and short" },
    ]);
    expect(w.get("[data-test=entry-feedback-text]").text()).toBe("clear and short");
    expect(document.activeElement).toBe(w.get("[data-test=entry-feedback-note]").element);
  });
});

describe("in the transcript", () => {
  it("names the open session's id, cwd and file; no controls while another session is open", async () => {
    setActivePinia(createPinia());
    mounted.backend = fakeBackend();
    await loadMarkdownRenderer();
    const openSession = useOpenSessionStore();
    openSession.detail = {
      session: { id: "s1", cwd: "/work/project", sessionFile: "/agent/sessions/s1.jsonl" },
      entries: [],
    } as unknown as SessionDetail;
    mounted.wrapper = mount(TranscriptView, {
      props: { sessionId: "s1", entries: [userEntry("u1", "go", 0), answer("helpful")] },
      attachTo: document.body,
    });
    await flushPromises();
    const row = mounted.wrapper.get('[data-test=entry][data-entry-id="a1"]');
    expect(row.get("[data-test=entry-feedback-helpful]").attributes("aria-pressed")).toBe("true");
    expect(mounted.wrapper.get('[data-test=entry][data-entry-id="u1"]').find("[data-test=entry-feedback]").exists()).toBe(false);
    await row.get("[data-test=entry-feedback-helpful]").trigger("click");
    await flushPromises();
    expect(mounted.backend.requests).toEqual([
      {
        method: "POST",
        path: "/api/pi/sessions/s1/feedback",
        body: { cwd: "/work/project", entryId: "a1", sessionPath: "/agent/sessions/s1.jsonl", label: "" },
      },
    ]);

    await mounted.wrapper.setProps({ sessionId: "s2" });
    expect(mounted.wrapper.find("[data-test=entry-feedback]").exists()).toBe(false);
  });
});
