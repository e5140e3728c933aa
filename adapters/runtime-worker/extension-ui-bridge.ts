/**
 * The worker side of pi's extension UI: an `ExtensionUIContext` that forwards UI requests over IPC as
 * `extension_ui` messages. Dialogs (confirm/select/input/editor) return promises resolved by the control
 * plane's `extensionUiReply`; a dialog that times out, is aborted through its signal, or outlives its
 * runtime resolves with pi's default (false / undefined) and is announced with a `dismiss` request.
 * TUI-only members are no-ops, as in pi's RPC mode.
 */
import { randomUUID } from "node:crypto";
import type { ExtensionUIContext, ExtensionUIDialogOptions, ExtensionWidgetOptions, Theme } from "@earendil-works/pi-coding-agent";
import type { ExtensionUiRequest } from "../runtime-protocol/runtime-protocol.ts";

export interface DialogReply {
  confirmed?: boolean;
  value?: string;
  cancelled?: boolean;
}

interface PendingDialog {
  settle(reply: DialogReply | null): void;
}

const THEME_KEY = Symbol.for("@earendil-works/pi-coding-agent:theme");

export class ExtensionUiBridge {
  private readonly pending = new Map<string, PendingDialog>();

  constructor(
    private readonly send: (request: ExtensionUiRequest) => void,
    /** Returns pi's global theme (initialising it if needed); only extensions that style text use it. */
    private readonly getTheme: () => Theme,
  ) {}

  /** Number of dialogs awaiting a reply. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Delivers a reply; false when the request is unknown or no longer pending. */
  reply(requestId: string, reply: DialogReply): boolean {
    const dialog = this.pending.get(requestId);
    if (!dialog) return false;
    dialog.settle(reply);
    return true;
  }

  /** Resolves every pending dialog with its default and announces the dismissal. */
  dismissAll(reason: "replaced" | "disposed"): void {
    for (const [requestId, dialog] of [...this.pending]) {
      dialog.settle(null);
      this.send({ method: "dismiss", requestId, reason });
    }
  }

  private dialog<T>(
    opts: ExtensionUIDialogOptions | undefined,
    fallback: T,
    request: (requestId: string, timeoutMs: number | null) => ExtensionUiRequest,
    parse: (reply: DialogReply) => T,
  ): Promise<T> {
    if (opts?.signal?.aborted) return Promise.resolve(fallback);
    const requestId = randomUUID();
    const timeoutMs = typeof opts?.timeout === "number" && opts.timeout > 0 ? opts.timeout : null;
    return new Promise<T>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = (): void => {
        finish(null);
        this.send({ method: "dismiss", requestId, reason: "aborted" });
      };
      const finish = (reply: DialogReply | null): void => {
        if (!this.pending.delete(requestId)) return;
        if (timer) clearTimeout(timer);
        opts?.signal?.removeEventListener("abort", onAbort);
        resolve(reply === null || reply.cancelled === true ? fallback : parse(reply));
      };
      this.pending.set(requestId, { settle: finish });
      opts?.signal?.addEventListener("abort", onAbort, { once: true });
      if (timeoutMs !== null) {
        timer = setTimeout(() => {
          finish(null);
          this.send({ method: "dismiss", requestId, reason: "timeout" });
        }, timeoutMs);
      }
      this.send(request(requestId, timeoutMs));
    });
  }

  createContext(): ExtensionUIContext {
    const send = this.send;
    const getTheme = this.getTheme;
    const context: ExtensionUIContext = {
      select: (title, options, opts) =>
        this.dialog<string | undefined>(
          opts,
          undefined,
          (requestId, timeoutMs) => ({ method: "select", requestId, title, options: [...options], timeoutMs }),
          (r) => (typeof r.value === "string" && options.includes(r.value) ? r.value : undefined),
        ),
      confirm: (title, message, opts) =>
        this.dialog<boolean>(
          opts,
          false,
          (requestId, timeoutMs) => ({ method: "confirm", requestId, title, message, timeoutMs }),
          (r) => r.confirmed === true,
        ),
      input: (title, placeholder, opts) =>
        this.dialog<string | undefined>(
          opts,
          undefined,
          (requestId, timeoutMs) => ({ method: "input", requestId, title, placeholder: placeholder ?? null, timeoutMs }),
          (r) => r.value,
        ),
      editor: (title, prefill) =>
        this.dialog<string | undefined>(
          undefined,
          undefined,
          (requestId, timeoutMs) => ({ method: "editor", requestId, title, prefill: prefill ?? null, timeoutMs }),
          (r) => r.value,
        ),
      notify(message, type) {
        send({ method: "notify", message, level: type ?? "info" });
      },
      onTerminalInput: () => () => {},
      setStatus(key, text) {
        send({ method: "setStatus", key, text: text ?? null });
      },
      setWorkingMessage() {},
      setWorkingVisible() {},
      setWorkingIndicator() {},
      setHiddenThinkingLabel() {},
      setWidget(key: string, content: unknown, options?: ExtensionWidgetOptions) {
        // Only string arrays cross the process boundary; component factories are TUI-only.
        if (content !== undefined && !(Array.isArray(content) && content.every((line) => typeof line === "string"))) return;
        send({
          method: "setWidget",
          key,
          lines: content === undefined ? null : [...(content as string[])],
          placement: options?.placement ?? null,
        });
      },
      setFooter() {},
      setHeader() {},
      setTitle(title) {
        send({ method: "setTitle", title });
      },
      custom: async () => undefined as never,
      pasteToEditor() {},
      setEditorText() {},
      getEditorText: () => "",
      addAutocompleteProvider() {},
      setEditorComponent() {},
      getEditorComponent: () => undefined,
      get theme(): Theme {
        return getTheme();
      },
      getAllThemes: () => [],
      getTheme: () => undefined,
      setTheme: () => ({ success: false, error: "Theme switching is not supported by Leyline" }),
      getToolsExpanded: () => false,
      setToolsExpanded() {},
    };
    return context;
  }
}

/** pi's process-global theme, initialised on first use (pi keeps it on globalThis). */
export function piGlobalTheme(initTheme: (name?: string, watch?: boolean) => void): Theme {
  const holder = globalThis as unknown as Record<symbol, Theme | undefined>;
  if (!holder[THEME_KEY]) initTheme("dark", false);
  const theme = holder[THEME_KEY];
  if (!theme) throw new Error("pi theme could not be initialised");
  return theme;
}
