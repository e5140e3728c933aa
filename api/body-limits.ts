/**
 * Request body limits of the routes that carry prompts (prompt, queue, edit-prompt, subagent). Every other
 * route keeps Fastify's default 1 MiB, which a single screenshot already exceeds once base64-encoded.
 *
 * Where the number comes from: pi inlines an image only below 4.5 MiB of base64 (`DEFAULT_MAX_BYTES` in
 * @earendil-works/pi-coding-agent/dist/utils/image-resize.js: "4.5MB of base64 payload. Provides headroom
 * below Anthropic's 5MB limit"); larger images are resized down to it. The body carries the base64 already
 * (raw bytes × 4/3), so one image pi would accept as it is takes at most 4.5 MiB of the body. A prompt may
 * carry several images: the limit holds `PROMPT_BODY_IMAGES` of them plus 1 MiB for the text and the JSON.
 * A larger body answers 413 with the error envelope (the app's error handler keeps Fastify's 4xx status).
 */

/** pi's inline image limit in base64 bytes (utils/image-resize.js `DEFAULT_MAX_BYTES`). */
export const PI_IMAGE_MAX_BASE64_BYTES = 4.5 * 1024 * 1024;

/** How many full-size images one prompt body may carry. */
export const PROMPT_BODY_IMAGES = 8;

/** Room for the prompt text, the other fields and the JSON around the images. */
const PROMPT_BODY_TEXT_BYTES = 1024 * 1024;

/** Body limit of POST .../prompt, .../queue, .../edit-prompt and /api/pi/subagent: 37 MiB. */
export const PROMPT_BODY_LIMIT_BYTES = PROMPT_BODY_IMAGES * PI_IMAGE_MAX_BASE64_BYTES + PROMPT_BODY_TEXT_BYTES;

/** The actions whose bodies may carry images (route name after /api/pi/ or /api/pi/sessions/:id/). */
export const PROMPT_BODY_ACTIONS: ReadonlySet<string> = new Set(["prompt", "queue", "edit-prompt"]);
