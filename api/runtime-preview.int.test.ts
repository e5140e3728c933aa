/**
 * The GET /api/pi/state previewer over a real RuntimeHost and real pi runtimes (in-process workers, counted
 * through the worker factory) on a manual clock: single flight per folder, the short cache and `refresh`,
 * capacity slots shared with the host's runtimes (503 when full, given back once the worker is gone), and
 * close() for the app's shutdown. The forked-worker flood lives in test/security/preview-flood.int.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FauxScript } from "../adapters/runtime-protocol/faux-script.ts";
import { InProcessWorkerClient } from "../adapters/runtime-client/in-process-worker-client.ts";
import { ManualClock } from "../adapters/runtime-host/host-clock.ts";
import { RuntimeHost, type RuntimeHostOptions } from "../adapters/runtime-host/runtime-host.ts";
import { agentDirEnv } from "../adapters/runtime-host/runtime-host-test-support.ts";
import { runtimeApiDirs } from "./runtime-api.fixture.ts";
import { createRuntimePreviewer, type RuntimePreviewer } from "./runtime-preview.ts";

const env = agentDirEnv(() => runtimeApiDirs("leyline-preview-"));
beforeAll(env.setUp);
afterAll(env.tearDown);

const hosts: RuntimeHost[] = [];
const previewers: RuntimePreviewer[] = [];
afterEach(async () => {
  await Promise.all(previewers.splice(0).map((previewer) => previewer.close()));
  await Promise.all(hosts.splice(0).map((host) => host.shutdown()));
});

function setUp(capacity = 4): { host: RuntimeHost; previewer: RuntimePreviewer; clock: ManualClock; workers: () => number } {
  let created = 0;
  const options: RuntimeHostOptions = {
    capacity,
    idleMs: 0,
    watchdogMs: 0,
    fauxScript: new FauxScript([]),
    createClient: ({ fauxScript }) => {
      created += 1;
      return InProcessWorkerClient.start({ fauxScript });
    },
  };
  const host = new RuntimeHost(options);
  const clock = new ManualClock();
  const previewer = createRuntimePreviewer(options, host.fauxScript, { capacity: host, clock, cacheMs: 1_000 });
  hosts.push(host);
  previewers.push(previewer);
  return { host, previewer, clock, workers: () => created };
}

function folder(name: string): string {
  const dir = path.join(env.dirs.root, name);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

describe("runtime previews", () => {
  it("shares one build per folder, serves it again until the cache expires, and builds anew on refresh", async () => {
    const { previewer, clock, workers } = setUp();
    const cwd = folder("shared");
    const parallel = await Promise.all([previewer.preview(cwd), previewer.preview(`${cwd}/`), previewer.preview(cwd, { refresh: true })]);
    expect(workers()).toBe(1);
    expect(parallel[0]).toMatchObject({ id: "", path: "", cwd });
    expect(parallel[1]).toBe(parallel[0]);
    expect(parallel[2]).toBe(parallel[0]);

    expect(await previewer.preview(cwd)).toBe(parallel[0]);
    expect(workers()).toBe(1);
    const refreshed = await previewer.preview(cwd, { refresh: true });
    expect(workers()).toBe(2);
    expect(refreshed).not.toBe(parallel[0]);
    // the refresh renewed the cache entry; it expires cacheMs after that build
    clock.advance(999);
    expect(await previewer.preview(cwd)).toBe(refreshed);
    clock.advance(1);
    await previewer.preview(cwd);
    expect(workers()).toBe(3);
    // another folder is its own build
    await previewer.preview(folder("other"));
    expect(workers()).toBe(4);
  });

  it("holds a capacity slot from before its worker starts until it is gone; a full host answers 503", async () => {
    const { host, previewer, workers } = setUp(2);
    const selected = await host.open({ new: { cwd: folder("open") } }, { select: true });
    expect(selected.sessionId).not.toBe("");
    const building = previewer.preview(folder("first"));
    // the preview's slot is taken at once: the host is full (the selected runtime is never evicted)
    await expect(host.open({ new: { cwd: folder("second-open") } })).rejects.toMatchObject({ status: 503 });
    await expect(previewer.preview(folder("second"))).rejects.toMatchObject({
      status: 503,
      message: expect.stringMatching(
        /^Runtime capacity reached \(2 workers in use, none idle\): no worker is free to preview .*second; close a session or try again$/,
      ),
    });
    await building;
    // given back once the worker is gone: the next preview fits again
    await previewer.preview(folder("second"));
    expect(workers()).toBe(3);
    // a reservation is released once however often release() is called
    const slot = await host.reserveCapacity();
    slot.release();
    slot.release();
    const held = await host.reserveCapacity();
    await expect(host.reserveCapacity()).rejects.toMatchObject({ status: 503 });
    held.release();
  });

  it("builds at most maxBuilding folders at once; another folder answers 503 at once, a built one shares", async () => {
    const { previewer, workers } = setUp(8);
    const first = previewer.preview(folder("busy-1"));
    const second = previewer.preview(folder("busy-2"));
    await expect(previewer.preview(folder("busy-3"))).rejects.toMatchObject({
      status: 503,
      message: expect.stringMatching(/^Previews of 2 other folders are being built: try .*busy-3 again in a few seconds$/),
    });
    // a folder already being built is shared, not refused
    const again = previewer.preview(folder("busy-1"));
    expect(await again).toBe(await first);
    await second;
    expect(workers()).toBe(2);
    await previewer.preview(folder("busy-3"));
    expect(workers()).toBe(3);
  });

  it("evicts an idle runtime to make room, as an open does", async () => {
    const { host, previewer } = setUp(1);
    const idle = await host.open({ new: { cwd: folder("idle") } });
    expect(host.openRuntimes()).toEqual([idle]);
    await previewer.preview(folder("after-idle"));
    expect(host.openRuntimes()).toEqual([]);
  });

  it("close() disposes a build in flight, frees its slot and refuses new previews", async () => {
    const { host, previewer } = setUp(1);
    const building = previewer.preview(folder("closing"));
    const outcome = building.then(
      () => "resolved",
      (error: unknown) => (error as Error).message,
    );
    await previewer.close();
    expect(await outcome).toMatch(/shutting down|closed/);
    await expect(previewer.preview(folder("closing"))).rejects.toMatchObject({ status: 503, message: "The server is shutting down" });
    const slot = await host.reserveCapacity();
    slot.release();
  });
});
