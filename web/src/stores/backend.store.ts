import { defineStore } from "pinia";
import { ref } from "vue";
import { checkBackendInfo, type BackendInfo } from "../backend-info.ts";

export type BackendStatus = "idle" | "loading" | "ready" | "incompatible" | "unreachable";

/** The selected backend's identity and capabilities (GET /api/pi/info). */
export const useBackendStore = defineStore("backend", () => {
  /** Origin of the backend; "" means the page's own origin. */
  const baseUrl = ref("");
  const status = ref<BackendStatus>("idle");
  const info = ref<BackendInfo | null>(null);
  const problem = ref("");

  async function load(): Promise<void> {
    status.value = "loading";
    problem.value = "";
    try {
      const response = await fetch(`${baseUrl.value}/api/pi/info`, { headers: { accept: "application/json" } });
      if (!response.ok) {
        status.value = "unreachable";
        problem.value = `GET /api/pi/info answered ${response.status}.`;
        return;
      }
      const check = checkBackendInfo(await response.json());
      info.value = check.info ?? null;
      if (check.ok) {
        status.value = "ready";
      } else {
        status.value = "incompatible";
        problem.value = check.reason;
      }
    } catch (error) {
      status.value = "unreachable";
      problem.value = error instanceof Error ? error.message : String(error);
    }
  }

  return { baseUrl, status, info, problem, load };
});
