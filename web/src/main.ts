import { createPinia } from "pinia";
import { createApp } from "vue";
import App from "./App.vue";
import { applyTheme, storedTheme } from "./composables/use-theme.ts";
import { createAppRouter } from "./router.ts";
import { useBackendConnectionsStore } from "./stores/backend-connections.store.ts";
import { useBackendStore } from "./stores/backend.store.ts";
import "./style.css";

applyTheme(storedTheme());
const pinia = createPinia();
const app = createApp(App).use(pinia).use(createAppRouter());

// The backend this window talks to is chosen before anything asks it (the tab's choice, else the registry's
// default; the registry lives on the page's own origin): every request and socket then goes there.
void useBackendConnectionsStore(pinia)
  .boot()
  .then((active) => {
    useBackendStore(pinia).baseUrl = active.url;
  })
  .finally(() => app.mount("#app"));
