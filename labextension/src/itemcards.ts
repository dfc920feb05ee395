/**
 * The item cards of the session on display in the panel, by item index: drawn when a reply
 * is scanned or a session reopened, then updated in place (or drawn anew when an item's diff
 * changed) as the server's answers change items. Apart from panel.ts so the panel only
 * coordinates; open-document notes find their card here.
 */
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { ContentLoader, DecideHandler, ItemCard } from './card';
import { el } from './dom';
import { sourceLabel } from './proposals';
import { RunState } from './state';
import { IOperatorItem } from './types';

/** The cards node of the panel and the card of each item shown in it. */
export class ItemCards {
  readonly node: HTMLElement;
  private _cards = new Map<number, ItemCard>();
  /** Who proposed the items on display (an MCP client), named on each card; null: a reply. */
  private _source: string | null = null;

  constructor(
    private _decide: DecideHandler,
    private _languages: IEditorLanguageRegistry | null
  ) {
    this.node = el('div', 'jp-Operator-cards');
  }

  /** Add a card per item (after `clear`); `where` names the items' folder on each card, and
   * `label` the MCP client that proposed them (null for a reply). */
  show(items: readonly IOperatorItem[], where: string, loadContent: ContentLoader, label?: string | null): void {
    this._source = sourceLabel(label);
    const fragment = document.createDocumentFragment();
    for (const item of items) {
      const card = this._sourced(new ItemCard(item, this._decide, this._languages, where, loadContent));
      this._cards.set(item.index, card);
      fragment.append(card.node);
    }
    this.node.append(fragment);
  }

  /** Bring the cards of the items at these indices up to date with `state`. */
  update(state: RunState, changed: readonly number[]): void {
    for (const index of changed) {
      const item = state.item(index);
      const card = this._cards.get(index);
      if (item && card?.needsRebuild(item)) {
        const fresh = this._sourced(new ItemCard(item, card.onDecide, card.languages, card.where, card.loadContent));
        card.node.replaceWith(fresh.node);
        card.dispose();
        this._cards.set(index, fresh);
      } else if (item) {
        card?.update(item);
      }
    }
  }

  /** The card node of the item at this index, if shown. */
  cardNode(index: number): HTMLElement | null {
    return this._cards.get(index)?.node ?? null;
  }

  setBusy(busy: boolean): void {
    for (const card of this._cards.values()) {
      card.setBusy(busy);
    }
  }

  private _sourced(card: ItemCard): ItemCard {
    if (this._source) {
      card.showSource(this._source);
    }
    return card;
  }

  /** Remove every card (and free its editors). */
  clear(): void {
    for (const card of this._cards.values()) {
      card.dispose();
    }
    this._cards.clear();
    this.node.replaceChildren();
  }
}
