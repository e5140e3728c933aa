/**
 * Session resolution is adapters/session-resolution/session-resolution.ts (a service, not a route). This
 * re-export only keeps api/runtime-actions.routes.ts compiling while another branch changes that file: import
 * the adapter directly.
 */
export { detailOf, openSession } from "../adapters/session-resolution/session-resolution.ts";
