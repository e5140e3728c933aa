import { flushPromises, mount, type VueWrapper } from "@vue/test-utils";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { apiBase, setApiBase } from "../../api/http.ts";
import { TAB_CONNECTION_KEY } from "../../lib/connection-choice.ts";
import ConnectionSwitcher from "./ConnectionSwitcher.vue";
import { bootConnections, fakeConnectionsBackend, leylineInfo, type FakeConnectionsBackend } from "./connections.fixture.ts";

const LAB = "http://lab.test:8787";
const DOWN = "http://down.test:8787";
const JENKINS = "http://ci.test:8080";
const NEWER = "https://newer.test/leyline";
const SPARE = "http://spare.test:8787";

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

/** Boots the store as main.ts does (the tab may have chosen a connection), then mounts the switcher. */
async function mountSwitcher(tabChoice: string | null = "builtin") {
  backend = fakeConnectionsBackend({
    connections: [
      { id: "lab", name: "Lab machine", url: LAB },
      { id: "down", name: "Switched off", url: DOWN },
      { id: "ci", name: "CI box", url: JENKINS },
      { id: "newer", name: "Newer Leyline", url: NEWER },
      { id: "spare", name: "Spare", url: SPARE },
    ],
    defaultConnectionId: "spare",
    infos: {
      [LAB]: { body: leylineInfo("0.4.0") },
      [JENKINS]: { body: { name: "Jenkins", version: "2.4", apiVersion: 2 } },
      [NEWER]: { body: leylineInfo("1.0.0", { apiVersion: 3 }) },
      [SPARE]: { body: leylineInfo("0.4.1") },
    },
  });
  const { pinia, store, reloads } = await bootConnections(tabChoice);
  wrapper = mount(ConnectionSwitcher, { global: { plugins: [pinia] }, attachTo: document.body });
  await flushPromises();
  return { w: wrapper, store, reloads, server: backend };
}

async function openMenu(w: VueWrapper) {
  await w.get("[data-test=connection-switcher]").trigger("click");
  await flushPromises();
  return w.get("[data-test=connection-menu]");
}

const option = (w: VueWrapper, id: string) => w.get(`[data-test=connection-option][data-id="${id}"]`);

describe("ConnectionSwitcher", () => {
  it("lists This computer and the saved connections, read from the page's origin while the window uses a remote", async () => {
    const { w, server } = await mountSwitcher("lab");
    expect(apiBase()).toBe(LAB);
    const trigger = w.get("[data-test=connection-switcher]");
    expect(trigger.text()).toBe("Lab machine");
    expect(trigger.attributes("data-connection-id")).toBe("lab");
    expect(trigger.classes()).toContain("remote");
    expect(trigger.attributes("aria-expanded")).toBe("false");

    const menu = await openMenu(w);
    expect(trigger.attributes("aria-expanded")).toBe("true");
    expect(menu.attributes("role")).toBe("dialog");
    expect(document.activeElement).toBe(menu.element);
    const options = w.findAll("[data-test=connection-option]");
    expect(options.map((o) => o.attributes("data-id"))).toEqual(["builtin", "lab", "down", "ci", "newer", "spare"]);
    expect(options.map((o) => o.get(".option-name").text())).toEqual([
      "This computer",
      "Lab machine",
      "Switched off",
      "CI box",
      "Newer Leyline",
      "Spare",
    ]);
    expect(option(w, "builtin").get(".option-url").text()).toBe("The Leyline serving this page");
    expect(option(w, "lab").get(".option-url").text()).toBe(LAB);
    // The active one is marked for assistive technology and with a check; the default carries its badge.
    expect(options.filter((o) => o.attributes("aria-current") === "true").map((o) => o.attributes("data-id"))).toEqual(["lab"]);
    expect(option(w, "lab").find("svg[data-icon=check]").exists()).toBe(true);
    expect(option(w, "builtin").find("svg[data-icon=check]").exists()).toBe(false);
    const defaults = options.filter((o) => o.findAll(".badge").some((b) => b.text() === "default"));
    expect(defaults.map((o) => o.attributes("data-id"))).toEqual(["spare"]);

    // Boot and the opening of the menu both read the registry, each time from the page's own origin (a relative
    // URL), never from the remote the API base points at; nothing was asked of any backend's /api/pi/info.
    expect(server.registryCalls()).toEqual(["GET /api/leyline/connections", "GET /api/leyline/connections"]);
    expect(server.requests.every((r) => !r.url.includes("lab.test"))).toBe(true);
  });

  it("shows the refusal of a backend that cannot be reached, focused, and keeps the window where it is", async () => {
    const { w, store, reloads, server } = await mountSwitcher();
    expect(w.get("[data-test=connection-switcher]").text()).toBe("This computer");
    await openMenu(w);
    server.hold(DOWN);
    await option(w, "down").trigger("click");
    await flushPromises();
    // While the check runs, the row says so and every option is marked unavailable (still focusable).
    expect(option(w, "down").get("[role=status]").text()).toBe("checking…");
    expect(w.findAll("[data-test=connection-option]").every((o) => o.attributes("aria-disabled") === "true")).toBe(true);
    await option(w, "lab").trigger("click");
    await server.release(DOWN);
    await flushPromises();

    const error = w.get("[data-test=connection-error]");
    expect(error.text()).toBe(
      `${DOWN}/api/pi/info cannot be reached (Failed to fetch). Is that Leyline running, and does it allow this page's origin?`,
    );
    expect(error.attributes("role")).toBe("alert");
    expect(document.activeElement).toBe(error.element);
    expect(reloads).toEqual([]);
    expect(sessionStorage.getItem(TAB_CONNECTION_KEY)).toBe("builtin");
    expect(store.activeId).toBe("builtin");
    // The click on another option during the check was ignored: only the one backend was asked.
    expect(server.probes()).toEqual([`${DOWN}/api/pi/info`]);
    expect(w.find("[data-test=connection-menu]").exists()).toBe(true);
    expect(option(w, "down").find("[role=status]").exists()).toBe(false);
  });

  it("moves to a backend answering as Leyline API version 2: remembers it for the tab and reloads once", async () => {
    const { w, reloads, server } = await mountSwitcher();
    await openMenu(w);
    await option(w, "lab").trigger("click");
    await flushPromises();
    expect(server.probes()).toEqual([`${LAB}/api/pi/info`]);
    expect(sessionStorage.getItem(TAB_CONNECTION_KEY)).toBe("lab");
    expect(reloads).toEqual([1]);
    expect(w.find("[data-test=connection-error]").exists()).toBe(false);
  });

  it("moves back to This computer without asking it anything", async () => {
    const { w, reloads, server } = await mountSwitcher("lab");
    await openMenu(w);
    await option(w, "builtin").trigger("click");
    await flushPromises();
    expect(server.probes()).toEqual([]);
    expect(sessionStorage.getItem(TAB_CONNECTION_KEY)).toBe("builtin");
    expect(reloads).toEqual([1]);
  });

  it("refuses, in words, a backend that is another program or speaks another API version", async () => {
    const { w, reloads } = await mountSwitcher();
    await openMenu(w);
    await option(w, "ci").trigger("click");
    await flushPromises();
    expect(w.get("[data-test=connection-error]").text()).toBe('This is not a Leyline backend (name "Jenkins").');

    await option(w, "newer").trigger("click");
    await flushPromises();
    expect(w.get("[data-test=connection-error]").text()).toBe("The backend speaks API version 3; this client needs 2.");
    expect(document.activeElement).toBe(w.get("[data-test=connection-error]").element);
    expect(reloads).toEqual([]);
    expect(sessionStorage.getItem(TAB_CONNECTION_KEY)).toBe("builtin");
  });

  it("closes on Escape and on choosing the connection in use, returning focus to the button", async () => {
    const { w, reloads } = await mountSwitcher("lab");
    const trigger = w.get("[data-test=connection-switcher]");
    const menu = await openMenu(w);
    await menu.trigger("keydown", { key: "Escape" });
    expect(w.find("[data-test=connection-menu]").exists()).toBe(false);
    expect(trigger.attributes("aria-expanded")).toBe("false");
    expect(document.activeElement).toBe(trigger.element);

    await openMenu(w);
    await option(w, "lab").trigger("click");
    await flushPromises();
    expect(w.find("[data-test=connection-menu]").exists()).toBe(false);
    expect(document.activeElement).toBe(trigger.element);
    expect(reloads).toEqual([]);
  });

  it("closes on a click elsewhere, and the button toggles it", async () => {
    const { w } = await mountSwitcher();
    await openMenu(w);
    document.body.dispatchEvent(new PointerEvent("pointerdown", { bubbles: true }));
    await flushPromises();
    expect(w.find("[data-test=connection-menu]").exists()).toBe(false);
    await openMenu(w);
    await w.get("[data-test=connection-switcher]").trigger("click");
    expect(w.find("[data-test=connection-menu]").exists()).toBe(false);
  });

  it("offers Manage connections…, which closes the menu and emits manage", async () => {
    const { w } = await mountSwitcher();
    await openMenu(w);
    const manage = w.get("[data-test=manage-connections]");
    expect(manage.text()).toBe("Manage connections…");
    await manage.trigger("click");
    expect(w.emitted("manage")).toEqual([[]]);
    expect(w.find("[data-test=connection-menu]").exists()).toBe(false);
  });

  it("says when the saved connections cannot be read, and still offers This computer", async () => {
    const { w, server } = await mountSwitcher();
    server.setNativeDown(true);
    await openMenu(w);
    expect(w.get("[data-test=connection-menu]").text()).toContain(
      "The saved connections cannot be read: The backend cannot be reached (Failed to fetch).",
    );
    // What was read before stays offered.
    expect(w.findAll("[data-test=connection-option]")).toHaveLength(6);
    server.setNativeDown(false);
    await w.get("[data-test=connection-switcher]").trigger("click");
    await openMenu(w);
    expect(w.get("[data-test=connection-menu]").text()).not.toContain("cannot be read");
  });
});
