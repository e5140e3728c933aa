/**
 * Test support for happy-dom: its `Node.prototype.nodeName` getter returns "" and every node class overrides
 * it, whereas in browsers the one getter on Node.prototype answers for every node. DOMPurify 3.5 reads
 * nodeName through the Node.prototype getter (to resist DOM clobbering), so under plain happy-dom it sees
 * every element as "" and removes or skips elements (`<p>a</p>` → `a`, later siblings left unvisited).
 *
 * This makes the Node.prototype getter behave as in browsers (dispatch to the node's own class getter).
 * Import it before anything that creates a DOMPurify instance (the markdown chunk). Idempotent.
 */
const MARK = Symbol.for("leyline.test.nodeNameGetter");
// Suites that run in the node environment (`@vitest-environment node`) have no DOM: nothing to patch there.
const nodePrototype = (typeof Node === "undefined" ? { [MARK]: true } : Node.prototype) as unknown as Record<symbol, unknown>;

if (nodePrototype[MARK] !== true) {
  const base = Object.getOwnPropertyDescriptor(Node.prototype, "nodeName");
  Object.defineProperty(Node.prototype, "nodeName", {
    configurable: true,
    enumerable: base?.enumerable ?? true,
    get(this: Node): string {
      for (let proto: unknown = Object.getPrototypeOf(this); proto !== null && proto !== Node.prototype;) {
        const own = Object.getOwnPropertyDescriptor(proto, "nodeName");
        if (own?.get !== undefined) return String(own.get.call(this));
        proto = Object.getPrototypeOf(proto);
      }
      return String(base?.get?.call(this) ?? "");
    },
  });
  nodePrototype[MARK] = true;
}

export {};
