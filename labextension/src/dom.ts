/**
 * Tiny DOM helpers. Every string goes in through `textContent` or an
 * attribute, never through `innerHTML` (file names, contents and model text
 * are untrusted).
 */

/** Create an element with a class and, optionally, text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

/**
 * Create a real `<button type="button">` with a label and a click handler. Its aria-label is
 * its visible label (the title, if any, is its description); `relabel` changes both.
 */
export function button(
  label: string,
  className: string,
  onClick: () => void,
  title?: string
): HTMLButtonElement {
  const node = el('button', `jp-Button jp-mod-styled ${className}`, label);
  node.type = 'button';
  node.setAttribute('aria-label', label);
  if (title) {
    node.title = title;
  }
  node.addEventListener('click', () => onClick());
  return node;
}

/** Change a control's visible label and its aria-label together. */
export function relabel(node: HTMLElement, label: string): void {
  node.textContent = label;
  node.setAttribute('aria-label', label);
}

/** The `<summary>` of a folded section, labelled with its text. */
export function summary(text: string, className?: string): HTMLElement {
  const node = el('summary', className, text);
  node.setAttribute('aria-label', text);
  return node;
}

/** Draws of cards that came into view, done when the browser is idle (see `whenVisible`). */
const queued: { draw: () => void; cancelled: boolean }[] = [];
let idleAsked = false;

type Idle = (callback: (deadline: { timeRemaining(): number; didTimeout: boolean }) => void,
  options?: { timeout: number }) => number;

/** Draw queued cards while the browser has idle time left in this frame (one at least). */
function drawWhenIdle(deadline: { timeRemaining(): number; didTimeout: boolean }): void {
  idleAsked = false;
  const start = performance.now();
  let first = true;
  // Late (the page was never idle): about one frame's worth, the rest in the next callback.
  const more = (): boolean =>
    deadline.didTimeout ? performance.now() - start < 12 : deadline.timeRemaining() > 4;
  while (queued.length && (first || more())) {
    const next = queued.shift();
    if (next && !next.cancelled) {
      next.draw();
      first = false;
    }
  }
  askIdle();
}

/** When a card's diff was last drawn at once (not from the queue). */
let lastDirect = -Infinity;

function askIdle(): void {
  if (idleAsked || !queued.length) {
    return;
  }
  idleAsked = true;
  const idle = (globalThis as { requestIdleCallback?: Idle }).requestIdleCallback;
  if (idle) {
    // At most a quarter second late when the page is never idle (a long scroll).
    idle(drawWhenIdle, { timeout: 250 });
  } else {
    setTimeout(() => drawWhenIdle({ timeRemaining: () => 8, didTimeout: true }), 0);
  }
}

/**
 * Call `draw` once `node` comes near the viewport (at once where the browser has no
 * IntersectionObserver). Returns what stops waiting. Long runs draw a card's diff only
 * when someone can see it, and in the browser's idle time, so a scroll through many cards
 * is not held up drawing each as it passes.
 */
export function whenVisible(node: HTMLElement, draw: () => void, margin = '600px'): () => void {
  if (typeof IntersectionObserver === 'undefined') {
    draw();
    return () => undefined;
  }
  const entry = { draw, cancelled: false };
  const observer = new IntersectionObserver(
    entries => {
      if (entries.some(e => e.isIntersecting)) {
        observer.disconnect();
        const now = performance.now();
        if (!queued.length && now - lastDirect > 100) {
          // One card coming into view is drawn at once; many in a row (a scroll through a
          // long run) wait for idle time.
          lastDirect = now;
          draw();
        } else {
          queued.push(entry);
          askIdle();
        }
      }
    },
    { rootMargin: margin }
  );
  observer.observe(node);
  return () => {
    entry.cancelled = true;
    observer.disconnect();
  };
}
