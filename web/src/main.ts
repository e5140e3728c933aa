import { createPinia } from "pinia";
import { createApp } from "vue";
import App from "./App.vue";
import { applyTheme, storedTheme } from "./composables/use-theme.ts";
import { createAppRouter } from "./router.ts";
import "./style.css";

applyTheme(storedTheme());
createApp(App).use(createPinia()).use(createAppRouter()).mount("#app");
