import { createRouter, createWebHistory, type RouteRecordRaw, type RouterHistory } from "vue-router";
import StartView from "./views/StartView.vue";

/**
 * `/` is the start screen; `/sessions/:id` opens a session directly (reload, bookmark, second tab: the server
 * answers /sessions/* with index.html). The workbench is its own chunk, loaded on first use. `/traces` lists the
 * backend's runs (`?sessionId=` one session's) and `/traces/:id` opens one; the Traces view is its own chunk too.
 */
export const routes: RouteRecordRaw[] = [
  { path: "/", name: "start", component: StartView },
  { path: "/sessions/:id", name: "session", component: () => import("./views/SessionView.vue"), props: true },
  { path: "/traces/:id?", name: "traces", component: () => import("./views/TracesView.vue"), props: true },
  { path: "/:pathMatch(.*)*", redirect: "/" },
];

export function createAppRouter(history: RouterHistory = createWebHistory()) {
  return createRouter({ history, routes });
}
