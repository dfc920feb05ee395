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

/** Create a real `<button type="button">` with a label and a click handler. */
export function button(
  label: string,
  className: string,
  onClick: () => void,
  title?: string
): HTMLButtonElement {
  const node = el('button', `jp-Button jp-mod-styled ${className}`, label);
  node.type = 'button';
  if (title) {
    node.title = title;
  }
  node.addEventListener('click', () => onClick());
  return node;
}

/**
 * Call `draw` once `node` comes near the viewport (at once where the browser has no
 * IntersectionObserver). Returns what stops waiting. Long runs draw a card's diff only
 * when someone can see it.
 */
export function whenVisible(node: HTMLElement, draw: () => void, margin = '600px'): () => void {
  if (typeof IntersectionObserver === 'undefined') {
    draw();
    return () => undefined;
  }
  const observer = new IntersectionObserver(
    entries => {
      if (entries.some(e => e.isIntersecting)) {
        observer.disconnect();
        draw();
      }
    },
    { rootMargin: margin }
  );
  observer.observe(node);
  return () => observer.disconnect();
}
