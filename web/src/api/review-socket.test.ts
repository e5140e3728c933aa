import { describe, expect, it } from "vitest";
import { fakeSockets, ManualTimers } from "./events-socket.fixture.ts";
import { ReviewSocket, reviewEventsUrl } from "./review-socket.ts";
import type { ReviewLink } from "./review-socket-machine.ts";

/** A status fetch the test resolves by hand. */
function manualFetches() {
  const waiting: Array<{ cwd: string; resolve: (available: boolean | null) => void }> = [];
  return {
    waiting,
    fetchStatus: (cwd: string) => new Promise<boolean | null>((resolve) => waiting.push({ cwd, resolve })),
    async finish(available: boolean | null = true) {
      waiting.shift()?.resolve(available);
      await Promise.resolve();
      await Promise.resolve();
    },
  };
}

function setUp(silenceMs = 0) {
  const { sockets, createSocket, last } = fakeSockets();
  const timers = new ManualTimers();
  const fetches = manualFetches();
  const links: ReviewLink[] = [];
  const client = new ReviewSocket({
    wsBase: "ws://leyline.test/",
    fetchStatus: fetches.fetchStatus,
    createSocket,
    timers,
    silenceMs,
    onState: (link) => links.push(link),
  });
  return { client, sockets, timers, fetches, links, last };
}

describe("reviewEventsUrl", () => {
  it("carries the folder in the query", () => {
    expect(reviewEventsUrl("ws://h:1/", "/work/my app")).toBe("ws://h:1/api/pi/review/events?cwd=%2Fwork%2Fmy+app");
  });
});

describe("ReviewSocket", () => {
  it("fetches after review_ready and review_change, one at a time, and answers pings with the pong text", async () => {
    const { client, fetches, last, links } = setUp();
    client.start("/repo", true);
    expect(last().url).toBe("ws://leyline.test/api/pi/review/events?cwd=%2Frepo");
    last().open();
    expect(fetches.waiting).toHaveLength(0);
    last().receive({ type: "review_ready", data: {} });
    expect(fetches.waiting.map((f) => f.cwd)).toEqual(["/repo"]);
    last().receive({ type: "review_change", data: { root: "/repo" } });
    last().receive({ type: "review_change", data: { root: "/repo" } });
    expect(fetches.waiting).toHaveLength(1);
    await fetches.finish();
    expect(fetches.waiting).toHaveLength(1);
    await fetches.finish();
    expect(fetches.waiting).toHaveLength(0);
    last().receive({ type: "ping" });
    expect(last().sent).toEqual(['{"type":"pong"}']);
    expect(links).toEqual(["connecting", "live"]);
  });

  it("reconnects after a watcher error with the backoff, ignoring the old socket's late close", () => {
    const { client, sockets, timers, last } = setUp();
    client.start("/repo", true);
    last().open();
    last().receive({ type: "review_ready", data: {} });
    const first = last();
    first.receive({ type: "review_watch_error", data: { message: "watch failed" } });
    expect(first.closed).toBe(true);
    expect(client.link).toBe("reconnecting");
    expect(client.machine.watchError).toBe("watch failed");
    first.drop();
    expect(timers.delays()).toEqual([1000]);
    timers.fire(1000);
    expect(sockets).toHaveLength(2);
    last().drop();
    expect(timers.delays()).toEqual([2000]);
  });

  it("stops for good on review_unavailable (one fetch shows the folder as it is)", async () => {
    const { client, sockets, timers, fetches, last } = setUp();
    client.start("/repo", true);
    last().open();
    last().receive({ type: "review_unavailable", data: {} });
    expect(last().closed).toBe(true);
    expect(fetches.waiting).toHaveLength(1);
    await fetches.finish(false);
    last().drop();
    expect(timers.delays()).toEqual([]);
    expect(sockets).toHaveLength(1);
    expect(client.link).toBe("unavailable");
  });

  it("treats a silent socket as closed", () => {
    const { client, timers, last } = setUp(75_000);
    client.start("/repo", true);
    last().open();
    timers.fire(75_000);
    expect(last().closed).toBe(true);
    expect(client.link).toBe("reconnecting");
  });

  it("without the watch capability opens no socket and fetches on refresh; a failed fetch lets the next one run", async () => {
    const { client, sockets, fetches } = setUp();
    client.start("/repo", false);
    expect(sockets).toHaveLength(0);
    expect(fetches.waiting).toHaveLength(1);
    await fetches.finish(null);
    client.refresh();
    expect(fetches.waiting).toHaveLength(1);
    expect(client.link).toBe("manual");
  });

  it("stop closes the socket and cancels a scheduled reconnect", () => {
    const { client, timers, last } = setUp();
    client.start("/repo", true);
    last().open();
    last().drop();
    expect(timers.delays()).toEqual([1000]);
    client.stop();
    expect(timers.delays()).toEqual([]);
    expect(client.link).toBe("stopped");
  });
});
