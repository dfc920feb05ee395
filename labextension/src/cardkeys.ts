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

/** A card's buttons the keys press (null where the card has none). */
export interface ICardButtons {
  approve: HTMLButtonElement | null;
  edit: HTMLButtonElement | null;
  reject: HTMLButtonElement | null;
  /** The decision buttons are hidden (the item is decided). */
  hidden: boolean;
}

/** Act on a key pressed on `card`: move to the next or previous card, or click a button. */
export function cardKeyAction(event: KeyboardEvent, card: HTMLElement, buttons: ICardButtons): void {
  const action = cardKey({
    key: event.key,
    altKey: event.altKey,
    ctrlKey: event.ctrlKey,
    metaKey: event.metaKey,
    targetIsCard: event.target === card
  });
  if (!action) {
    return;
  }
  if (action === 'next' || action === 'previous') {
    const sibling = action === 'next' ? 'nextElementSibling' : 'previousElementSibling';
    let other = card[sibling];
    while (other && !other.classList.contains('jp-Operator-card')) {
      other = other[sibling];
    }
    (other as HTMLElement | null)?.focus();
    event.preventDefault();
    return;
  }
  const target = buttons[action];
  if (target && !target.disabled && !buttons.hidden) {
    event.preventDefault();
    target.click();
  }
}
