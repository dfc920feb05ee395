/**
 * Commands (with default shortcuts, see schema/plugin.json) that move between the panel's
 * pending cards and decide the focused one, wherever the focus is in the panel: Alt+J / Alt+K
 * next and previous pending card, Alt+A approve, Alt+R reject with the reason typed (an empty
 * reason box takes the focus first), Alt+E edit. They press the card's own buttons, so a
 * shortcut does exactly what a click does. The plain letters of a focused card stay as they
 * are (cardkeys.ts).
 */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';

/** The card commands' ids. */
export namespace CardCommandIDs {
  export const next = 'jupyter-operator:next-pending';
  export const previous = 'jupyter-operator:previous-pending';
  export const approve = 'jupyter-operator:approve-focused';
  export const reject = 'jupyter-operator:reject-focused';
  export const edit = 'jupyter-operator:edit-focused';
}

const CARD = '.jp-Operator-card';

/** The pending cards under `root`, in page order. */
export function pendingCards(root: ParentNode): HTMLElement[] {
  return Array.from(root.querySelectorAll<HTMLElement>(`${CARD}[data-status="pending"]`));
}

/** The card under `root` holding the focus (or an element of it), null when none does. */
function cardWithFocus(root: HTMLElement): HTMLElement | null {
  const active = document.activeElement;
  const holder = active instanceof HTMLElement ? active.closest<HTMLElement>(CARD) : null;
  return holder && root.contains(holder) ? holder : null;
}

/** The card holding the focus under `root`, else the first pending one. */
export function focusedCard(root: HTMLElement): HTMLElement | null {
  return cardWithFocus(root) ?? pendingCards(root)[0] ?? null;
}

/** Focus the pending card after (or before) the focused one; true when there was one. */
export function movePending(root: HTMLElement, step: 1 | -1): boolean {
  const cards = pendingCards(root);
  if (!cards.length) {
    return false;
  }
  // From the card with the focus; from outside every card, the first (or last) pending one.
  const current = cardWithFocus(root);
  const all = Array.from(root.querySelectorAll<HTMLElement>(CARD));
  const at = current ? all.indexOf(current) : -1;
  const ahead = step === 1 ? cards.filter(c => all.indexOf(c) > at) : cards.filter(c => all.indexOf(c) < at).reverse();
  const target = ahead[0] ?? (current && cards.includes(current) ? current : cards[step === 1 ? 0 : cards.length - 1]);
  target.focus();
  target.scrollIntoView({ block: 'nearest' });
  return true;
}

/** Press `selector`'s button on the focused card; false when it has none to press. */
function press(root: HTMLElement, selector: string): boolean {
  const card = focusedCard(root);
  const target = card?.querySelector<HTMLButtonElement>(selector);
  if (!card || !target || target.disabled || target.closest('[hidden]')) {
    return false;
  }
  target.click();
  return true;
}

/** Register the card commands for the panel whose node is `root`. */
export function addCardCommands(
  app: JupyterFrontEnd,
  root: HTMLElement,
  palette: ICommandPalette | null
): void {
  const { commands } = app;
  const pending = (): boolean => pendingCards(root).length > 0;
  commands.addCommand(CardCommandIDs.next, {
    label: 'Operator: Next pending card',
    isEnabled: pending,
    execute: () => void movePending(root, 1)
  });
  commands.addCommand(CardCommandIDs.previous, {
    label: 'Operator: Previous pending card',
    isEnabled: pending,
    execute: () => void movePending(root, -1)
  });
  commands.addCommand(CardCommandIDs.approve, {
    label: 'Operator: Approve the focused card',
    isEnabled: pending,
    execute: () => {
      const card = focusedCard(root);
      if (press(root, '.jp-Operator-approve') && card) {
        movePending(root, 1); // on to the next one waiting
      }
    }
  });
  commands.addCommand(CardCommandIDs.reject, {
    label: 'Operator: Reject the focused card (with the reason typed)',
    isEnabled: pending,
    // "Reject with reason" focuses the empty reason box first: type it, then again.
    execute: () => void press(root, '.jp-Operator-reject-reason')
  });
  commands.addCommand(CardCommandIDs.edit, {
    label: 'Operator: Edit the focused card',
    isEnabled: pending,
    execute: () => void press(root, '.jp-Operator-edit-button')
  });
  if (palette) {
    for (const command of Object.values(CardCommandIDs)) {
      palette.addItem({ command, category: 'Operator' });
    }
  }
}
