/**
 * The widgets of one turn of an Ask run: its prose (capped), the "received" cards of
 * complete blocks, then the turn's real cards.
 */
import { ProseFilter } from './askstream';
import { ItemCard } from './card';
import { el } from './dom';
import { LiveRuns } from './runs';
import { IOperatorItem } from './types';

/** What Ask mode shares with the panel: cell runs and the open documents to keep current. */
export interface IAskHost {
  runs: LiveRuns;
  /** An item's path (relative to the workspace) as a path on the server. */
  docPath: (workspace: string, path: string | null) => string | null;
  /** Before approving: the open documents' content (null: one has unsaved edits, said on
   * its card). */
  beforeApproving: (
    workspace: string,
    items: IOperatorItem[],
    cardNode: (index: number) => HTMLElement | null
  ) => Promise<Map<string, string> | null>;
  /** Reload the open documents these (changed) items wrote (`before`: as they were). */
  afterChange: (
    workspace: string,
    items: IOperatorItem[],
    before?: Map<string, string>
  ) => Promise<void>;
}

/** Prose shown per turn (a reply of megabytes would stall the page). */
const PROSE_LIMIT = 100_000;

/** The widgets of one turn. */
export class TurnView {
  readonly node = el('section', 'jp-Operator-ask-turn');
  /** The reply's tokens (and cost), once the endpoint reported them. */
  readonly usage = el('span', 'jp-Operator-ask-usage');
  readonly prose = el('div', 'jp-Operator-ask-prose');
  readonly received = el('div', 'jp-Operator-ask-received');
  readonly cardsNode = el('div', 'jp-Operator-cards');
  readonly filter = new ProseFilter();
  readonly cards = new Map<number, ItemCard>();
  session: string | null = null;
  private _shown = 0;

  constructor(readonly turn: number) {
    const title = el('h3', 'jp-Operator-subtitle', `Turn ${turn}`);
    title.append(' ', this.usage);
    this.node.append(
      title,
      this.prose,
      this.received,
      this.cardsNode
    );
  }

  /** Append prose; past PROSE_LIMIT characters a turn's prose is cut with a note. */
  showProse(text: string): void {
    if (this._shown >= PROSE_LIMIT) {
      return;
    }
    const room = PROSE_LIMIT - this._shown;
    this._shown += text.length;
    this.prose.append(document.createTextNode(text.slice(0, room)));
    if (this._shown >= PROSE_LIMIT) {
      this.prose.append(el('span', 'jp-Operator-ask-cut', ' [... the rest of this reply is in the transcript]'));
    }
  }

  dispose(): void {
    for (const card of this.cards.values()) {
      card.dispose();
    }
    this.cards.clear();
  }
}
