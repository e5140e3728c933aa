import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { apiUrlFor, DEFAULT_HOST, DEFAULT_PORT, parseServerArgs } from "./main.ts";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

describe("parseServerArgs", () => {
  it("defaults to 127.0.0.1:8787", () => {
    expect(parseServerArgs([])).toEqual({ port: DEFAULT_PORT, host: DEFAULT_HOST });
    expect(DEFAULT_PORT).toBe(8787);
    expect(DEFAULT_HOST).toBe("127.0.0.1");
  });

  it("reads --port and --host in both spellings", () => {
    expect(parseServerArgs(["--port", "0", "--host", "::1"])).toEqual({ port: 0, host: "::1" });
    expect(parseServerArgs(["--port=9000", "--host=0.0.0.0"])).toEqual({ port: 9000, host: "0.0.0.0" });
  });

  it("rejects bad ports, missing values and unknown flags", () => {
    expect(() => parseServerArgs(["--port", "x"])).toThrow(/Invalid port/);
    expect(() => parseServerArgs(["--port", "70000"])).toThrow(/Invalid port/);
    expect(() => parseServerArgs(["--port"])).toThrow(/needs a value/);
    expect(() => parseServerArgs(["--verbose"])).toThrow(/Unknown argument/);
  });
});

describe("apiUrlFor", () => {
  it("gives workers a reachable base URL: loopback for wildcard addresses, brackets for IPv6", () => {
    expect(apiUrlFor("127.0.0.1", 8787)).toBe("http://127.0.0.1:8787");
    expect(apiUrlFor("0.0.0.0", 9000)).toBe("http://127.0.0.1:9000");
    expect(apiUrlFor("::", 9000)).toBe("http://[::1]:9000");
    expect(apiUrlFor("::1", 1)).toBe("http://[::1]:1");
    expect(apiUrlFor("localhost", 2)).toBe("http://localhost:2");
  });
});

describe("the server process", () => {
  it("prints one ready line, serves /api/pi/info and exits 0 on SIGTERM", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), "leyline-main-"));
    const child = spawn(process.execPath, ["--import", "tsx", "api/main.ts", "--port", "0"], {
      cwd: repoRoot,
      env: { ...process.env, LEYLINE_DATA_DIR: path.join(root, "data"), PI_CODING_AGENT_DIR: path.join(root, "agent") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk;
          const match = /^Leyline listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
          if (match?.[1] !== undefined) resolve(match[1]);
        });
        child.on("exit", (code) => reject(new Error(`server exited early (${String(code)}): ${stderr}`)));
      });

      const res = await fetch(`${url}/api/pi/info`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ name: "Leyline", apiVersion: 2 });
      expect((await fetch(`${url}/internal/live`)).status).toBe(200);
      const health = await fetch(`${url}/api/health`);
      expect(await health.json()).toEqual({ ok: true, activeWorkers: 0 });

      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(stdout.split("\n").filter((line) => line !== "")).toEqual([`Leyline listening on ${url}`]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });
});
