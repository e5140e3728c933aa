/**
 * The read side is adapters/read-side/read-side.ts (a service, not a route). This re-export only keeps
 * api/runtime-actions.routes.ts compiling while another branch changes that file: import the adapter directly.
 */
export type { ReadSide } from "../adapters/read-side/read-side.ts";
