import { describe, expect, it } from "vitest";
import { sessionTreeRequests } from "./session-tree.ts";

describe("sessionTreeRequests", () => {
  it("reads the tree and a branch of a session, encoding the id", () => {
    expect(sessionTreeRequests.tree("a b")).toEqual({ method: "GET", path: "/api/pi/sessions/a%20b/tree" });
    expect(sessionTreeRequests.tree("s1", { from: 12, after: "e12" })).toEqual({
      method: "GET",
      path: "/api/pi/sessions/s1/tree",
      query: { from: "12", after: "e12" },
    });
    expect(sessionTreeRequests.tree("s1", { from: 0, after: "" })).toEqual({ method: "GET", path: "/api/pi/sessions/s1/tree" });
    expect(sessionTreeRequests.branch("s1", "e7")).toEqual({ method: "GET", path: "/api/pi/sessions/s1/branch", query: { leafId: "e7" } });
  });

  it("navigates with only the fields that say something", () => {
    expect(sessionTreeRequests.navigate("s1", { entryId: "e1" })).toEqual({
      method: "POST",
      path: "/api/pi/sessions/s1/navigate",
      body: { entryId: "e1" },
    });
    expect(sessionTreeRequests.navigate("s1", { entryId: "e1", summarize: false, customInstructions: "keep it", label: " " }).body).toEqual(
      {
        entryId: "e1",
      },
    );
    expect(sessionTreeRequests.navigate("s1", { entryId: "e1", summarize: true, customInstructions: "  " }).body).toEqual({
      entryId: "e1",
      summarize: true,
    });
    expect(
      sessionTreeRequests.navigate("s1", { entryId: "e1", summarize: true, customInstructions: " Focus on tests ", label: "x" }).body,
    ).toEqual({
      entryId: "e1",
      summarize: true,
      customInstructions: "Focus on tests",
      label: "x",
    });
  });

  it("sets and clears labels", () => {
    expect(sessionTreeRequests.label("s1", "e1", " checkpoint ")).toEqual({
      method: "POST",
      path: "/api/pi/sessions/s1/label",
      body: { entryId: "e1", label: "checkpoint" },
    });
    expect(sessionTreeRequests.label("s1", "e1", "").body).toEqual({ entryId: "e1", label: "" });
  });
});
