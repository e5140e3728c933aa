import { flushPromises, mount } from "@vue/test-utils";
import { createPinia, setActivePinia } from "pinia";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setApiBase } from "../../api/http.ts";
import type { NetworkAccess } from "../../api/network-access.ts";
import { useBackendConnectionsStore } from "../../stores/backend-connections.store.ts";
import { cleanedAfterEach, fakeBackend, type FakeAnswer, type RecordedRequest } from "../composer/composer.fixture.ts";
import NetworkAccessPanel from "./NetworkAccessPanel.vue";

const PATH = "/api/leyline/network-access";
const mounted = cleanedAfterEach();
afterEach(() => {
  setApiBase("");
  vi.restoreAllMocks();
});

/** A promise the test resolves when it wants the server to answer. */
function gate<T>() {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * The network-access routes as the spec describes them, over a state held here: PUT merges the fields sent, a
 * refusal (`refuse`) answers 400 and keeps the state, `hold` keeps the next PUT's answer until the test opens it.
 */
function sharingServer(initial: Partial<NetworkAccess> = {}) {
  const state: NetworkAccess = {
    available: true,
    enabled: false,
    port: null,
    configuredPort: 0,
    urls: [],
    directAccess: false,
    error: "",
    ...initial,
  };
  const server = {
    state,
    refuse: null as string | null,
    hold: null as Promise<void> | null,
    /** The addresses an enabled listener reports. */
    addresses: ["192.168.1.20"],
    async handle(request: RecordedRequest): Promise<FakeAnswer | undefined> {
      if (request.path !== PATH) return undefined;
      if (request.method === "GET") return { body: { ...state } };
      if (server.hold !== null) await server.hold;
      if (server.refuse !== null) {
        state.error = server.refuse;
        return { status: 400, body: { error: server.refuse } };
      }
      const body = request.body as { enabled?: boolean; port?: number };
      if (body.port !== undefined) state.configuredPort = body.port;
      if (body.enabled !== undefined) state.enabled = body.enabled;
      state.port = state.enabled ? (state.configuredPort === 0 ? 51234 : state.configuredPort) : null;
      state.urls = state.enabled ? server.addresses.map((address) => `http://${address}:${state.port}/`) : [];
      state.error = "";
      return { body: { ...state } };
    },
  };
  return server;
}

async function mountPanel(server = sharingServer()) {
  setActivePinia(createPinia());
  mounted.backend = fakeBackend((request) => server.handle(request));
  mounted.wrapper = mount(NetworkAccessPanel, { attachTo: document.body });
  await flushPromises();
  return { w: mounted.wrapper, requests: mounted.backend.requests, server };
}

type Panel = Awaited<ReturnType<typeof mountPanel>>["w"];
const text = (w: Panel, test: string) => w.get(`[data-test=${test}]`).text();
const puts = (requests: RecordedRequest[]) => requests.filter((r) => r.method === "PUT").map((r) => r.body);

describe("Network access settings", () => {
  it("reads the state on open and shows sharing off, the saved port and the warning", async () => {
    const { w, requests } = await mountPanel();
    expect(requests).toEqual([{ method: "GET", path: PATH, body: undefined }]);
    const toggle = w.get("[data-test=network-switch]");
    expect(toggle.attributes("role")).toBe("switch");
    expect(toggle.attributes("aria-checked")).toBe("false");
    expect(toggle.attributes("disabled")).toBeUndefined();
    expect(text(w, "network-summary")).toBe("Off: not shared on the network.");
    expect(text(w, "network-warning")).toContain("anyone who can reach this port gets full access to this Leyline");
    expect(text(w, "network-warning")).toContain("sessions, terminals and files");
    expect(text(w, "network-warning")).toContain("No password.");
    expect(text(w, "network-configured-port")).toBe("Automatic");
    expect(text(w, "network-active-port")).toBe("none (sharing is off)");
    expect((w.get("[data-test=network-port]").element as HTMLInputElement).value).toBe("0");
    expect(w.find("[data-test=network-urls]").exists()).toBe(false);
    expect(w.find("[data-test=network-remote-note]").exists()).toBe(false);
  });

  it("the switch sends only { enabled }, shows progress with the controls disabled, and the answer replaces the state", async () => {
    const server = sharingServer();
    const release = gate<void>();
    server.hold = release.promise;
    const { w, requests } = await mountPanel(server);
    await w.get("[data-test=network-switch]").trigger("click");
    expect(text(w, "network-progress")).toBe("Turning sharing on…");
    expect(w.get("[data-test=network-switch]").attributes("disabled")).toBeDefined();
    expect(w.get("[data-test=network-switch]").attributes("aria-checked")).toBe("false");
    expect(w.get("[data-test=network-port]").attributes("disabled")).toBeDefined();
    expect(w.get("[data-test=network-port-apply]").attributes("disabled")).toBeDefined();
    expect(w.get("[data-test=network-settings]").attributes("aria-busy")).toBe("true");
    server.hold = null;
    release.open();
    await flushPromises();
    expect(puts(requests)).toEqual([{ enabled: true }]);
    expect(w.get("[data-test=network-switch]").attributes("aria-checked")).toBe("true");
    expect(text(w, "network-progress")).toBe("");
    expect(text(w, "network-summary")).toBe("On: shared on port 51234 (chosen automatically).");
    expect(text(w, "network-active-port")).toBe("51234");
    expect(w.findAll("[data-test=network-url-text]").map((u) => (u.element as HTMLInputElement).value)).toEqual([
      "http://192.168.1.20:51234/",
    ]);

    await w.get("[data-test=network-switch]").trigger("click");
    await flushPromises();
    expect(puts(requests)).toEqual([{ enabled: true }, { enabled: false }]);
    expect(w.get("[data-test=network-switch]").attributes("aria-checked")).toBe("false");
    expect(w.find("[data-test=network-urls]").exists()).toBe(false);
  });

  it("refuses a port outside 0..65535 or not a whole number before sending, then Apply sends only { port }", async () => {
    const { w, requests } = await mountPanel(sharingServer({ enabled: true, port: 51234, urls: ["http://192.168.1.20:51234/"] }));
    const field = w.get("[data-test=network-port]");
    expect(w.get("[data-test=network-port-apply]").attributes("disabled")).toBeDefined();
    for (const [typed, message] of [
      ["70000", "The port must be from 0 to 65535; 70000 is too large."],
      ["80.5", "The port must be a whole number from 0 to 65535."],
      ["", "Enter a port from 0 to 65535 (0 picks a free port automatically)."],
    ] as const) {
      await field.setValue(typed);
      await w.get("form").trigger("submit");
      await flushPromises();
      expect(text(w, "network-port-problem")).toBe(message);
      expect(field.attributes("aria-invalid")).toBe("true");
    }
    expect(puts(requests)).toEqual([]);

    await field.setValue("8123");
    expect(w.find("[data-test=network-port-problem]").exists()).toBe(false);
    await w.get("[data-test=network-port-apply]").trigger("click");
    await flushPromises();
    expect(puts(requests)).toEqual([{ port: 8123 }]);
    expect(text(w, "network-configured-port")).toBe("8123");
    expect(text(w, "network-active-port")).toBe("8123");
    expect(text(w, "network-summary")).toBe("On: shared on port 8123.");
    expect((field.element as HTMLInputElement).value).toBe("8123");
    expect(w.get("[data-test=network-port-apply]").attributes("disabled")).toBeDefined();
  });

  it("a refused change shows the server's words, reads the state again and keeps the typed port", async () => {
    const server = sharingServer({ enabled: true, port: 51234, urls: ["http://192.168.1.20:51234/"] });
    const { w, requests } = await mountPanel(server);
    server.refuse = "Port 8123 is already in use; sharing stays on port 51234.";
    await w.get("[data-test=network-port]").setValue("8123");
    await w.get("[data-test=network-port-apply]").trigger("click");
    await flushPromises();
    expect(text(w, "network-request-error")).toBe("Port 8123 is already in use; sharing stays on port 51234.");
    expect(text(w, "network-server-error")).toBe("Last problem: Port 8123 is already in use; sharing stays on port 51234.");
    expect(requests.map((r) => r.method)).toEqual(["GET", "PUT", "GET"]);
    expect((w.get("[data-test=network-port]").element as HTMLInputElement).value).toBe("8123");
    expect(text(w, "network-active-port")).toBe("51234");
    expect(w.get("[data-test=network-switch]").attributes("disabled")).toBeUndefined();
  });

  it("says when no network address was found, with the port", async () => {
    const server = sharingServer();
    server.addresses = [];
    const { w } = await mountPanel(server);
    await w.get("[data-test=network-switch]").trigger("click");
    await flushPromises();
    expect(w.find("[data-test=network-urls]").exists()).toBe(false);
    expect(text(w, "network-no-address")).toBe(
      "No network address was found for this computer. Sharing listens on port 51234: use this computer's address with that port.",
    );
  });

  it("explains an unavailable origin (switch disabled), direct access and the server's last error", async () => {
    const { w } = await mountPanel(
      sharingServer({ available: false, directAccess: true, error: "The relay could not bind port 8123: address in use." }),
    );
    expect(w.get("[data-test=network-switch]").attributes("disabled")).toBeDefined();
    expect(text(w, "network-unavailable")).toBe(
      "Sharing is not available: this Leyline is not listening on a network address yet, so the switch is disabled.",
    );
    expect(text(w, "network-direct-access")).toBe("Leyline itself listens on a network address; turning sharing off does not close that.");
    expect(text(w, "network-server-error")).toBe("Last problem: The relay could not bind port 8123: address in use.");
  });

  it("copies an address, or selects it when the clipboard refuses", async () => {
    const { w } = await mountPanel(sharingServer({ enabled: true, port: 8123, configuredPort: 8123, urls: ["http://10.0.0.7:8123/"] }));
    const copy = w.get("[data-test=network-url-copy]");
    await copy.trigger("click");
    await flushPromises();
    expect(await navigator.clipboard.readText()).toBe("http://10.0.0.7:8123/");
    expect(copy.attributes("aria-label")).toBe("Copied");

    vi.spyOn(navigator.clipboard, "writeText").mockRejectedValue(new Error("Write permission denied."));
    await copy.trigger("click");
    await flushPromises();
    const field = w.get("[data-test=network-url-text]").element as HTMLInputElement;
    expect(document.activeElement).toBe(field);
    expect([field.selectionStart, field.selectionEnd]).toEqual([0, "http://10.0.0.7:8123/".length]);
    expect(text(w, "network-copy-problem")).toContain("press Ctrl+C");
  });

  it("asks this computer's Leyline even when the window works with a remote backend, and says so", async () => {
    const server = sharingServer();
    setActivePinia(createPinia());
    const urls: string[] = [];
    mounted.backend = fakeBackend((request) => server.handle(request));
    const fake = globalThis.fetch;
    vi.stubGlobal("fetch", (input: string, init?: RequestInit) => {
      urls.push(input);
      return fake(input, init);
    });
    setApiBase("http://remote.example:9000");
    useBackendConnectionsStore().active = { id: "c-remote", name: "Work laptop", url: "http://remote.example:9000" };
    mounted.wrapper = mount(NetworkAccessPanel, { attachTo: document.body });
    await flushPromises();
    await mounted.wrapper.get("[data-test=network-switch]").trigger("click");
    await flushPromises();
    expect(urls).toEqual([PATH, PATH]);
    expect(text(mounted.wrapper, "network-remote-note")).toBe(
      "This window works with Work laptop, another Leyline backend. These settings share this computer's Leyline, not that backend.",
    );
  });

  it("a failed read says why and Retry reads again", async () => {
    const server = sharingServer();
    let down = true;
    setActivePinia(createPinia());
    mounted.backend = fakeBackend((request) =>
      down ? { status: 500, body: { error: "The relay service did not start." } } : server.handle(request),
    );
    mounted.wrapper = mount(NetworkAccessPanel, { attachTo: document.body });
    await flushPromises();
    const w = mounted.wrapper;
    expect(text(w, "network-request-error")).toContain("The relay service did not start.");
    expect(w.get("[data-test=network-switch]").attributes("disabled")).toBeDefined();
    down = false;
    await w.get("[data-test=network-retry]").trigger("click");
    await flushPromises();
    expect(w.find("[data-test=network-request-error]").exists()).toBe(false);
    expect(text(w, "network-summary")).toBe("Off: not shared on the network.");
  });
});
