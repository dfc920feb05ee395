/**
 * Keyboard shortcuts of a focused card, the same in the panel and the notebook. Plain
 * letters without modifiers, taken only when the card itself (not a text box in it) has
 * the focus, so typing a reason or an edit never decides anything.
 */

/** What a key does on a focused card. */
export type CardKey = 'approve' | 'reject' | 'edit' | 'next' | 'previous';

const KEYS: Record<string, CardKey> = {
  a: 'approve',
  r: 'reject',
  e: 'edit',
  j: 'next',
  n: 'next',
  k: 'previous',
  p: 'previous'
};

/** The hint a card shows on hover. */
export const CARD_KEYS_HINT = 'Keys: A approve, R reject (with the reason typed), E edit, J/N next, K/P previous';

/** The action of a key event on a card, or null (modifiers, text fields, other keys). */
export function cardKey(event: {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  targetIsCard: boolean;
}): CardKey | null {
  if (event.altKey || event.ctrlKey || event.metaKey || !event.targetIsCard) {
    return null;
  }
  return KEYS[event.key.toLowerCase()] ?? null;
}
