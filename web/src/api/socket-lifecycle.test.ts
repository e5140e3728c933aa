/**
 * The socket plumbing the drivers share (socket-lifecycle.ts), with a socket and timers the test drives: URLs,
 * the serial input loop, the one-shot timer, and liveSocket's rules (late callbacks ignored, detach and close,
 * the silence limit, a socket that cannot be created).
 */
import { describe, expect, it } from "vitest";
import { FakeSocket, fakeSockets, ManualTimers } from "./events-socket.fixture.ts";
import { liveSocket, messageText, serialFeed, socketUrl, timerSlot, wsBaseOf } from "./socket-lifecycle.ts";

/** A fake socket that also records the close code and reason. */
class RecordingSocket extends FakeSocket {
  closedWith: [number | undefined, string | undefined] | null = null;
  override close(code?: number, reason?: string): void {
    super.close();
    this.closedWith = [code, reason];
  }
}

function harness(silenceMs = 0) {
  const { sockets, createSocket } = fakeSockets((url) => new RecordingSocket(url));
  const timers = new ManualTimers();
  const heard: string[] = [];
  const live = liveSocket({
    createSocket,
    timers,
    silenceMs,
    onOpened: () => heard.push("opened"),
    onText: (text) => heard.push(`text ${text}`),
    onClosed: () => heard.push("closed"),
  });
  return { live, sockets, timers, heard };
}

describe("socket URLs", () => {
  it("derives the ws origin from the API base or the page, and puts a path and query under it", () => {
    expect(wsBaseOf("https://x.test/", null)).toBe("wss://x.test");
    expect(wsBaseOf("http://127.0.0.1:8080", null)).toBe("ws://127.0.0.1:8080");
    expect(wsBaseOf("", { protocol: "https:", host: "h:9" })).toBe("wss://h:9");
    expect(wsBaseOf("", { protocol: "http:", host: "h:9" })).toBe("ws://h:9");
    expect(wsBaseOf("", null)).toBe("ws://127.0.0.1");
    expect(socketUrl("ws://h:1//", "/api/x", new URLSearchParams({ a: "b c" }))).toBe("ws://h:1/api/x?a=b+c");
  });

  it("reads text and binary frames as text, anything else as nothing", () => {
    expect(messageText("hé")).toBe("hé");
    expect(messageText(new TextEncoder().encode("hé"))).toBe("hé");
    expect(messageText(new TextEncoder().encode("ab").buffer)).toBe("ab");
    expect(messageText({ text: "x" })).toBeNull();
  });
});

describe("serialFeed", () => {
  it("applies an input fed while another is applied after it, in order", () => {
    const applied: string[] = [];
    const feed: (input: string) => void = serialFeed((input: string) => {
      applied.push(input);
      if (input === "a") {
        feed("b");
        feed("c");
        applied.push("a done");
      }
    });
    feed("a");
    expect(applied).toEqual(["a", "a done", "b", "c"]);
  });

  it("drops what waits when applying throws, and feeds again afterwards", () => {
    const applied: string[] = [];
    const feed: (input: string) => void = serialFeed((input: string) => {
      applied.push(input);
      if (input === "boom") {
        feed("lost");
        throw new Error("boom");
      }
    });
    expect(() => feed("boom")).toThrow("boom");
    feed("next");
    expect(applied).toEqual(["boom", "next"]);
  });
});

describe("timerSlot", () => {
  it("keeps one timer: setting again replaces the waiting one, clearing cancels it", () => {
    const timers = new ManualTimers();
    const slot = timerSlot(timers);
    const fired: string[] = [];
    slot.set(10, () => fired.push("first"));
    slot.set(20, () => fired.push("second"));
    expect(timers.delays()).toEqual([20]);
    timers.fireAll();
    expect(fired).toEqual(["second"]);
    slot.set(30, () => fired.push("third"));
    slot.clear();
    expect(timers.delays()).toEqual([]);
  });
});

describe("liveSocket", () => {
  it("reports the current socket's open, texts and close, and ignores what a replaced socket still reports", () => {
    const { live, sockets, heard } = harness();
    live.open("ws://h/a");
    sockets[0]!.open();
    sockets[0]!.receive("one");
    sockets[0]!.onmessage?.({ data: 42 });
    live.open("ws://h/b");
    expect(sockets[0]!.closedWith).toEqual([1000, "client closed"]);
    expect(sockets[0]!.onmessage).toBeNull();
    expect(sockets[0]!.onclose).toBeNull();
    // The replaced socket's error (closing while connecting) is expected: it is heard by nobody.
    sockets[0]!.onerror?.({});
    sockets[1]!.drop();
    sockets[1]!.receive("late");
    expect(heard).toEqual(["opened", "text one", "closed"]);
  });

  it("sends on the current socket only, and a send that throws is no error", () => {
    const { live, sockets } = harness();
    live.send("nobody");
    live.open("ws://h/a");
    live.send("hi");
    expect(sockets[0]!.sent).toEqual(["hi"]);
    sockets[0]!.send = () => {
      throw new Error("closing");
    };
    expect(() => live.send("again")).not.toThrow();
  });

  it("closes a socket silent for the limit after it opened or after its last message (4000), and reports it closed", () => {
    const { live, sockets, timers, heard } = harness(75);
    live.open("ws://h/a");
    expect(timers.delays()).toEqual([]);
    sockets[0]!.open();
    expect(timers.delays()).toEqual([75]);
    sockets[0]!.receive("ping");
    expect(timers.delays()).toEqual([75]);
    timers.fire(75);
    expect(sockets[0]!.closedWith).toEqual([4000, "no heartbeat"]);
    sockets[0]!.drop();
    expect(heard).toEqual(["opened", "text ping", "closed"]);
  });

  it("has no silence limit without one, and none after a drop", () => {
    const quiet = harness(0);
    quiet.live.open("ws://h/a");
    quiet.sockets[0]!.open();
    expect(quiet.timers.delays()).toEqual([]);
    const watched = harness(75);
    watched.live.open("ws://h/a");
    watched.sockets[0]!.open();
    watched.live.drop();
    expect(watched.timers.delays()).toEqual([]);
  });

  it("reports a socket that cannot be created as closed", () => {
    const heard: string[] = [];
    const live = liveSocket({
      createSocket: () => {
        throw new SyntaxError("bad url");
      },
      timers: new ManualTimers(),
      onText: () => heard.push("text"),
      onClosed: () => heard.push("closed"),
    });
    live.open("nope");
    expect(heard).toEqual(["closed"]);
  });
});
