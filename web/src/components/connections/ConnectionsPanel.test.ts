import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { setApiBase } from "../../api/http.ts";
import { TAB_CONNECTION_KEY } from "../../lib/connection-choice.ts";
import { useDialogsStore } from "../../stores/dialogs.store.ts";
import DialogHost from "../app/DialogHost.vue";
import ConnectionsPanel from "./ConnectionsPanel.vue";
import {
  bootConnections,
  fakeConnectionsBackend,
  leylineInfo,
  type FakeConnectionsBackend,
  type InfoAnswer,
} from "./connections.fixture.ts";

const LAB = "http://lab.test:8787";
const MOVED = "https://lab.example/leyline";
const DOWN = "http://down.test:8787";
const JENKINS = "http://ci.test:8080";

let backend: FakeConnectionsBackend | undefined;
let wrapper: VueWrapper | undefined;

beforeEach(() => {
  sessionStorage.clear();
  document.body.innerHTML = "";
});
afterEach(() => {
  wrapper?.unmount();
  wrapper = undefined;
  backend?.releaseAll();
  backend?.restore();
  backend = undefined;
  setApiBase("");
  sessionStorage.clear();
  document.body.innerHTML = "";
});

/** Boots the store (the tab's choice, if any), then mounts the panel with the app's dialog host. */
async function mountPanel(options: { tabChoice?: string; hold?: string[]; infos?: Record<string, InfoAnswer> } = {}) {
  backend = fakeConnectionsBackend({
    connections: [
      { id: "lab", name: "Lab machine", url: LAB },
      { id: "down", name: "Switched off", url: DOWN },
      { id: "ci", name: "CI box", url: JENKINS },
    ],
    infos: {
      [LAB]: { body: leylineInfo("0.4.0") },
      [MOVED]: { body: leylineInfo("0.5.0") },
      [JENKINS]: { body: { name: "Jenkins", version: "2.4", apiVersion: 2 } },
      ...options.infos,
    },
  });
  for (const base of options.hold ?? []) backend.hold(base);
  const { pinia, store, reloads } = await bootConnections(options.tabChoice ?? "builtin");
  wrapper = mount(
    { components: { ConnectionsPanel, DialogHost }, template: "<div><ConnectionsPanel /><DialogHost /></div>" },
    { global: { plugins: [pinia] }, attachTo: document.body },
  );
  await flushPromises();
  return { w: wrapper, store, reloads, server: backend };
}

const row = (w: VueWrapper, id: string) => w.get(`[data-test=connection-row][data-id="${id}"]`);
const rowIds = (w: VueWrapper) => w.findAll("[data-test=connection-row]").map((r) => r.attributes("data-id"));
const statusOf = (w: VueWrapper, id: string) => row(w, id).get("[data-test=connection-status]").text();
const badges = (w: VueWrapper, id: string) =>
  row(w, id)
    .findAll(".badges .badge")
    .map((b) => b.text());
/** The registry changes sent (not the reads). */
const changes = (server: FakeConnectionsBackend) =>
  server.requests.filter((r) => r.method !== "GET").map((r) => ({ call: `${r.method} ${r.url}`, body: r.body }));

async function edit(w: VueWrapper, id: string, values: { name?: string; url?: string }) {
  await row(w, id).get("[data-test=connection-edit]").trigger("click");
  if (values.name !== undefined) await row(w, id).get("[data-test=connection-edit-name]").setValue(values.name);
  if (values.url !== undefined) await row(w, id).get("[data-test=connection-edit-url]").setValue(values.url);
  await row(w, id).get("form").trigger("submit");
  await flushPromises();
}

describe("ConnectionsPanel", () => {
  it("lists This computer and the saved connections, each with whether it answers as a Leyline backend", async () => {
    const { w, server } = await mountPanel({ hold: [LAB] });
    expect(rowIds(w)).toEqual(["builtin", "lab", "down", "ci"]);
    expect(row(w, "builtin").text()).toContain("This computer");
    expect(badges(w, "builtin")).toEqual(["this window", "default"]);
    expect(row(w, "lab").get(".url").text()).toBe(LAB);
    expect(statusOf(w, "lab")).toBe("Checking…");
    expect(statusOf(w, "down")).toBe(
      `${DOWN}/api/pi/info cannot be reached (Failed to fetch). Is that Leyline running, and does it allow this page's origin?`,
    );
    expect(row(w, "down").get("[data-test=connection-status]").classes()).toContain("bad");
    expect(statusOf(w, "ci")).toBe('This is not a Leyline backend (name "Jenkins").');
    await server.release(LAB);
    await flushPromises();
    expect(statusOf(w, "lab")).toBe("Leyline 0.4.0");
    expect(row(w, "lab").get("[data-test=connection-status]").classes()).toContain("ok");
    // Each saved backend was asked once; the registry only from the page's origin.
    expect(server.probes()).toEqual([`${LAB}/api/pi/info`, `${DOWN}/api/pi/info`, `${JENKINS}/api/pi/info`]);
    expect(server.registryCalls()).toEqual(["GET /api/leyline/connections", "GET /api/leyline/connections"]);
  });

  it("adds a connection (POST with the name and URL as typed), lists it, checks it and empties the form", async () => {
    const { w, server } = await mountPanel({ infos: { "http://spare.test:8787": { body: leylineInfo("0.4.2") } } });
    await w.get("[data-test=connection-name]").setValue("Spare");
    await w.get("[data-test=connection-url]").setValue("http://SPARE.test:8787/");
    await w.get("[data-test=connection-add]").trigger("submit");
    await flushPromises();
    expect(changes(server)).toEqual([{ call: "POST /api/leyline/connections", body: { name: "Spare", url: "http://SPARE.test:8787/" } }]);
    expect(rowIds(w)).toEqual(["builtin", "lab", "down", "ci", "c1"]);
    expect(row(w, "c1").get(".url").text()).toBe("http://spare.test:8787");
    expect(server.probes()).toContain("http://spare.test:8787/api/pi/info");
    expect(statusOf(w, "c1")).toBe("Leyline 0.4.2");
    expect((w.get("[data-test=connection-name]").element as HTMLInputElement).value).toBe("");
    expect((w.get("[data-test=connection-url]").element as HTMLInputElement).value).toBe("");
    expect(w.find("[data-test=connection-add-error]").exists()).toBe(false);
  });

  it("shows the server's refusal of a new connection and keeps what was typed", async () => {
    const { w, server } = await mountPanel();
    await w.get("[data-test=connection-name]").setValue("Old box");
    await w.get("[data-test=connection-url]").setValue("ftp://old.test");
    await w.get("[data-test=connection-add]").trigger("submit");
    await flushPromises();
    expect(changes(server)).toEqual([{ call: "POST /api/leyline/connections", body: { name: "Old box", url: "ftp://old.test" } }]);
    const error = w.get("[data-test=connection-add-error]");
    expect(error.text()).toBe("url must start with http:// or https://");
    expect(error.attributes("role")).toBe("alert");
    expect((w.get("[data-test=connection-name]").element as HTMLInputElement).value).toBe("Old box");
    expect((w.get("[data-test=connection-url]").element as HTMLInputElement).value).toBe("ftp://old.test");
    expect(rowIds(w)).toEqual(["builtin", "lab", "down", "ci"]);
    expect(w.get("[data-test=connection-add-submit]").attributes("disabled")).toBeUndefined();

    // Corrected, it goes through and the error line leaves.
    await w.get("[data-test=connection-url]").setValue("http://old.test");
    await w.get("[data-test=connection-add]").trigger("submit");
    await flushPromises();
    expect(w.find("[data-test=connection-add-error]").exists()).toBe(false);
    expect(rowIds(w)).toHaveLength(5);
  });

  it("renames and changes the URL in place, sending only what changed; a new URL is checked again", async () => {
    const { w, server } = await mountPanel();
    await row(w, "lab").get("[data-test=connection-edit]").trigger("click");
    expect((row(w, "lab").get("[data-test=connection-edit-name]").element as HTMLInputElement).value).toBe("Lab machine");
    expect((row(w, "lab").get("[data-test=connection-edit-url]").element as HTMLInputElement).value).toBe(LAB);
    await row(w, "lab").get("[data-test=connection-edit-name]").setValue("Lab");
    await row(w, "lab").get("form").trigger("submit");
    await flushPromises();
    expect(row(w, "lab").get(".name").text()).toBe("Lab");
    expect(row(w, "lab").find("form").exists()).toBe(false);

    await edit(w, "lab", { url: MOVED });
    expect(row(w, "lab").get(".url").text()).toBe(MOVED);
    expect(statusOf(w, "lab")).toBe("Leyline 0.5.0");

    // Saving without a change sends nothing and closes the form.
    await edit(w, "lab", {});
    expect(row(w, "lab").find("form").exists()).toBe(false);

    expect(changes(server)).toEqual([
      { call: "PATCH /api/leyline/connections/lab", body: { name: "Lab" } },
      { call: "PATCH /api/leyline/connections/lab", body: { url: MOVED } },
    ]);
    // The rename did not ask the backend again; the URL change did (once, at the new URL).
    expect(server.probes().filter((url) => url.startsWith(LAB) || url.startsWith(MOVED))).toEqual([
      `${LAB}/api/pi/info`,
      `${MOVED}/api/pi/info`,
    ]);
  });

  it("keeps the edit open with the server's words when a change is refused", async () => {
    const { w, server } = await mountPanel();
    await edit(w, "lab", { url: "http://user:secret@lab.test" });
    expect(changes(server)).toEqual([{ call: "PATCH /api/leyline/connections/lab", body: { url: "http://user:secret@lab.test" } }]);
    expect(row(w, "lab").get("[data-test=connection-row-error]").text()).toBe("url must not contain credentials");
    expect((row(w, "lab").get("[data-test=connection-edit-url]").element as HTMLInputElement).value).toBe("http://user:secret@lab.test");
    expect(server.registry.connections.find((c) => c.id === "lab")?.url).toBe(LAB);
  });

  it("removes a connection only after confirmation; Cancel sends nothing", async () => {
    const { w, server } = await mountPanel();
    await row(w, "down").get("[data-test=connection-remove]").trigger("click");
    await flushPromises();
    const dialogs = useDialogsStore();
    expect(dialogs.current?.title).toBe("Remove this connection?");
    expect(w.get("[data-test=confirm-dialog]").text()).toContain(`“Switched off” (${DOWN})`);
    await w.get("[data-test=confirm-cancel]").trigger("click");
    await flushPromises();
    expect(dialogs.current).toBeNull();
    expect(changes(server)).toEqual([]);
    expect(rowIds(w)).toContain("down");

    await row(w, "down").get("[data-test=connection-remove]").trigger("click");
    await flushPromises();
    await w.get("[data-test=confirm-ok]").trigger("click");
    await flushPromises();
    expect(changes(server)).toEqual([{ call: "DELETE /api/leyline/connections/down", body: undefined }]);
    expect(rowIds(w)).toEqual(["builtin", "lab", "ci"]);
  });

  it("does not offer to remove the connection this window uses", async () => {
    const { w } = await mountPanel({ tabChoice: "lab" });
    const remove = row(w, "lab").get("[data-test=connection-remove]");
    expect(remove.attributes("disabled")).toBeDefined();
    expect(remove.attributes("aria-label")).toBe("This window uses this connection");
    expect(badges(w, "lab")).toEqual(["this window"]);
    expect(row(w, "lab").find("[data-test=connection-use]").exists()).toBe(false);
    expect(row(w, "ci").get("[data-test=connection-remove]").attributes("disabled")).toBeUndefined();
    expect(row(w, "ci").get("[data-test=connection-remove]").attributes("aria-label")).toBe("Remove CI box");
    await remove.trigger("click");
    await flushPromises();
    expect(useDialogsStore().current).toBeNull();
  });

  it("makes a connection the default (PUT /default), and This computer again", async () => {
    const { w, server } = await mountPanel();
    expect(row(w, "builtin").find("[data-test=connection-make-default]").exists()).toBe(false);
    await row(w, "lab").get("[data-test=connection-make-default]").trigger("click");
    await flushPromises();
    expect(badges(w, "lab")).toEqual(["default"]);
    expect(badges(w, "builtin")).toEqual(["this window"]);
    expect(row(w, "lab").find("[data-test=connection-make-default]").exists()).toBe(false);
    await row(w, "builtin").get("[data-test=connection-make-default]").trigger("click");
    await flushPromises();
    expect(badges(w, "builtin")).toEqual(["this window", "default"]);
    expect(changes(server)).toEqual([
      { call: "PUT /api/leyline/connections/default", body: { id: "lab" } },
      { call: "PUT /api/leyline/connections/default", body: { id: "builtin" } },
    ]);
  });

  it("moves the window to a connection that answers as Leyline, and says why not to one that does not", async () => {
    const { w, reloads } = await mountPanel();
    await row(w, "ci").get("[data-test=connection-use]").trigger("click");
    await flushPromises();
    expect(row(w, "ci").get("[data-test=connection-row-error]").text()).toBe('This is not a Leyline backend (name "Jenkins").');
    expect(reloads).toEqual([]);
    await row(w, "lab").get("[data-test=connection-use]").trigger("click");
    await flushPromises();
    expect(sessionStorage.getItem(TAB_CONNECTION_KEY)).toBe("lab");
    expect(reloads).toEqual([1]);
  });

  it("never lets an older check's answer replace a newer one after the URL changed", async () => {
    const { w, server } = await mountPanel({ hold: [LAB, MOVED] });
    expect(statusOf(w, "lab")).toBe("Checking…");
    await edit(w, "lab", { url: MOVED });
    // The old URL answers first: the row still waits for the new one.
    await server.release(LAB);
    await flushPromises();
    expect(statusOf(w, "lab")).toBe("Checking…");
    await server.release(MOVED);
    await flushPromises();
    expect(statusOf(w, "lab")).toBe("Leyline 0.5.0");

    // Back and forth: the check of LAB is overtaken by the check of MOVED, which answers first.
    await edit(w, "lab", { url: LAB });
    await edit(w, "lab", { url: MOVED });
    expect(statusOf(w, "lab")).toBe("Checking…");
    await server.release(MOVED);
    await flushPromises();
    expect(statusOf(w, "lab")).toBe("Leyline 0.5.0");
    await server.release(LAB);
    await flushPromises();
    expect(statusOf(w, "lab")).toBe("Leyline 0.5.0");
    expect(server.probes().filter((url) => url.startsWith(LAB) || url.startsWith(MOVED))).toEqual([
      `${LAB}/api/pi/info`,
      `${MOVED}/api/pi/info`,
      `${LAB}/api/pi/info`,
      `${MOVED}/api/pi/info`,
    ]);
  });
});
