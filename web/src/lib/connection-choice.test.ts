import { describe, expect, it } from "vitest";
import { chooseConnection, NATIVE_CONNECTION } from "./connection-choice.ts";

const lab = { id: "lab", name: "Lab", url: "http://127.0.0.1:8788" };
const office = { id: "office", name: "Office", url: "https://office.example/leyline" };

describe("chooseConnection", () => {
  it("takes the tab's choice while it exists, else the default, else the native backend", () => {
    const registry = { connections: [lab, office], defaultConnectionId: "office" };
    expect(chooseConnection(registry, "lab")).toEqual(lab);
    expect(chooseConnection(registry, "builtin")).toEqual(NATIVE_CONNECTION);
    expect(chooseConnection(registry, null)).toEqual(office);
    expect(chooseConnection(registry, "removed-by-another-window")).toEqual(office);
    expect(chooseConnection({ connections: [lab], defaultConnectionId: "gone" }, null)).toEqual(NATIVE_CONNECTION);
    expect(chooseConnection({ connections: [], defaultConnectionId: "builtin" }, "lab")).toEqual(NATIVE_CONNECTION);
  });

  it("uses the native backend when the registry cannot be read", () => {
    expect(chooseConnection(null, "lab")).toEqual(NATIVE_CONNECTION);
  });
});
