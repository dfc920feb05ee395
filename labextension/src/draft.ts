/**
 * The text of the panel's reply box, kept in the browser's local storage so a page reload
 * (which brings the session's cards back) brings the reply back beside them.
 */

/** Where the reply box's text is kept. */
export const DRAFT_KEY = 'jupyter-operator:reply';

/** Above this many characters a reply is not kept (local storage holds about 5 MB in all). */
export const MAX_DRAFT_CHARS = 1_000_000;

/** Keep the reply box's text (an empty box forgets it; an oversized one is not kept). */
export function saveDraft(text: string, storage: Storage | null = localStore()): void {
  try {
    if (!text || text.length > MAX_DRAFT_CHARS) {
      storage?.removeItem(DRAFT_KEY);
    } else {
      storage?.setItem(DRAFT_KEY, text);
    }
  } catch {
    // Storage full or disabled: keeping the draft is a convenience.
  }
}

/** The reply box's text as last kept ('' if none). */
export function loadDraft(storage: Storage | null = localStore()): string {
  try {
    return storage?.getItem(DRAFT_KEY) ?? '';
  } catch {
    return '';
  }
}

let pending: ReturnType<typeof setTimeout> | undefined;

/** Keep the text a moment after the last keystroke (a long reply is not copied per key). */
export function saveDraftSoon(text: () => string, delayMs = 250): void {
  clearTimeout(pending);
  pending = setTimeout(() => saveDraft(text()), delayMs);
}

function localStore(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.localStorage;
  } catch {
    return null;
  }
}
