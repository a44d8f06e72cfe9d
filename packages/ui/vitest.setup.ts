import { cleanup } from "@testing-library/react";
import { afterEach } from "vitest";

// React Flow measures its viewport and nodes with ResizeObserver, which jsdom lacks. The observer
// reports one fixed size so nodes get dimensions and edges are drawn. Like a browser's, it reports
// after observe() returns: React Flow observes a node while mounting it and drops a measurement
// that arrives before its node store has settled, leaving the nodes unmeasured and no edge drawn.
class FixedSizeResizeObserver {
  private readonly callback: ResizeObserverCallback;
  private readonly pending = new Map<Element, ReturnType<typeof setTimeout>>();
  constructor(callback: ResizeObserverCallback) {
    this.callback = callback;
  }
  observe(target: Element): void {
    const rect = { width: 800, height: 600, top: 0, left: 0, bottom: 600, right: 800, x: 0, y: 0 };
    const entry = {
      target,
      contentRect: { ...rect, toJSON: () => rect },
      borderBoxSize: [{ inlineSize: 800, blockSize: 600 }],
      contentBoxSize: [{ inlineSize: 800, blockSize: 600 }],
      devicePixelContentBoxSize: [],
    } as unknown as ResizeObserverEntry;
    this.unobserve(target);
    this.pending.set(
      target,
      setTimeout(() => {
        this.pending.delete(target);
        this.callback([entry], this as unknown as ResizeObserver);
      }),
    );
  }
  unobserve(target: Element): void {
    clearTimeout(this.pending.get(target));
    this.pending.delete(target);
  }
  disconnect(): void {
    for (const timer of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }
}
globalThis.ResizeObserver ??= FixedSizeResizeObserver;

// React Flow sizes edge labels with getBBox, which jsdom's SVG elements lack.
if (typeof SVGElement !== "undefined" && !("getBBox" in SVGElement.prototype)) {
  Object.assign(SVGElement.prototype, {
    getBBox: () => ({ x: 0, y: 0, width: 0, height: 0 }),
  });
}

// React Flow reads the zoom transform through DOMMatrixReadOnly.
if (!("DOMMatrixReadOnly" in globalThis)) {
  class IdentityMatrix {
    m22 = 1;
  }
  Object.assign(globalThis, { DOMMatrixReadOnly: IdentityMatrix });
}

// jsdom does no layout, so every element measures 0×0 and React Flow keeps unmeasured nodes
// hidden. As xyflow's testing guide suggests, elements report their inline size (or 1px).
Object.defineProperties(HTMLElement.prototype, {
  offsetWidth: {
    configurable: true,
    get(this: HTMLElement) {
      return Number.parseFloat(this.style.width) || 1;
    },
  },
  offsetHeight: {
    configurable: true,
    get(this: HTMLElement) {
      return Number.parseFloat(this.style.height) || 1;
    },
  },
});

// Radix Select and Dialog call these pointer-capture and scroll APIs, which jsdom leaves out.
Element.prototype.hasPointerCapture ??= () => false;
Element.prototype.releasePointerCapture ??= () => {};
Element.prototype.scrollIntoView ??= () => {};

afterEach(() => {
  cleanup();
});
