import { createPinia, setActivePinia } from "pinia";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setApiBase } from "../api/http.ts";
import { fakeBackend, type FakeAnswer, type RecordedRequest } from "../components/composer/composer.fixture.ts";
import { useAppSettingsStore } from "./app-settings.store.ts";

const PATH = "/api/leyline/settings/ui.thinking_default";

let backend: ReturnType<typeof fakeBackend> | undefined;
beforeEach(() => setActivePinia(createPinia()));
afterEach(() => {
  backend?.restore();
  backend = undefined;
  setApiBase("");
});

function serve(handler: (request: RecordedRequest) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>) {
  backend = fakeBackend(handler);
  return backend.requests;
}

/** A promise the test resolves when it wants the server to answer. */
function gate<T>() {
  let open: (value: T) => void = () => undefined;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

describe("app settings store", () => {
  it("reads an unset thinking default as collapsed and a stored one as it is", async () => {
    let value = "";
    const requests = serve(() => ({ body: { key: "ui.thinking_default", value } }));
    const store = useAppSettingsStore();
    expect(store.status).toBe("idle");
    await store.load();
    expect(store.thinkingDefault).toBe("collapsed");
    expect(store.status).toBe("ready");
    value = "expanded";
    await store.load();
    expect(store.thinkingDefault).toBe("expanded");
    expect(requests).toEqual([
      { method: "GET", path: PATH, body: undefined },
      { method: "GET", path: PATH, body: undefined },
    ]);
  });

  it("asks the page's own backend even when the window talks to a remote one", async () => {
    serve(() => ({ body: { key: "ui.thinking_default", value: "expanded" } }));
    const fake = globalThis.fetch;
    const urls: string[] = [];
    vi.stubGlobal("fetch", (input: string, init?: RequestInit) => {
      urls.push(input);
      return fake(input, init);
    });
    setApiBase("http://remote.example:9000/base");
    await useAppSettingsStore().load();
    expect(urls).toEqual([PATH]);
  });

  it("keeps collapsed and says why when the read fails", async () => {
    serve(() => ({ status: 500, body: { error: "The settings database is locked." } }));
    const store = useAppSettingsStore();
    await store.load();
    expect(store.status).toBe("error");
    expect(store.loadError).toBe("The settings database is locked.");
    expect(store.thinkingDefault).toBe("collapsed");
  });

  it("saves with PUT { value }, shows the value on its way, and takes the server's answer", async () => {
    const answer = gate<FakeAnswer>();
    const requests = serve((request) => (request.method === "PUT" ? answer.promise : undefined));
    const store = useAppSettingsStore();
    const saved = store.setThinkingDefault("expanded");
    expect(store.saving).toBe("expanded");
    expect(store.thinkingDefault).toBe("collapsed");
    answer.open({ body: { key: "ui.thinking_default", value: "expanded" } });
    expect(await saved).toBe(true);
    expect(store.saving).toBeNull();
    expect(store.thinkingDefault).toBe("expanded");
    expect(requests).toEqual([{ method: "PUT", path: PATH, body: { value: "expanded" } }]);
  });

  it("a refused save keeps the stored value and says why", async () => {
    serve((request) =>
      request.method === "PUT"
        ? { status: 400, body: { error: "value must be collapsed or expanded" } }
        : { body: { key: "ui.thinking_default", value: "expanded" } },
    );
    const store = useAppSettingsStore();
    await store.load();
    expect(await store.setThinkingDefault("collapsed")).toBe(false);
    expect(store.thinkingDefault).toBe("expanded");
    expect(store.saving).toBeNull();
    expect(store.saveError).toBe("value must be collapsed or expanded");
  });

  it("drops a read answered after a newer save, so a slow read never undoes it", async () => {
    const read = gate<FakeAnswer>();
    serve((request) => (request.method === "GET" ? read.promise : { body: { key: "ui.thinking_default", value: "expanded" } }));
    const store = useAppSettingsStore();
    const loading = store.load();
    await store.setThinkingDefault("expanded");
    read.open({ body: { key: "ui.thinking_default", value: "" } });
    await loading;
    expect(store.thinkingDefault).toBe("expanded");
    expect(store.status).toBe("ready");
  });
});
