/**
 * One run in a notebook output: the panel's cards (card.ts with its diff views,
 * cell diffs, CodeMirror editor and run parts), its batch bar, results and history,
 * drawn from the widget's state. Decisions go to the kernel as requests
 * (messages.ts); the kernel answers after setting the run's new state, so the
 * cards follow the state, never a guess of their own.
 */
import type { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { ItemCard } from '../card';
import { button, el } from '../dom';
import { HistoryView } from '../history';
import { cutWarning, isPending, RunState, statusLine } from '../state';
import { Decision, IEditContent, IHistoryEntry, IOperatorItem } from '../types';
import { IReply, IRunWidgetState, Requests } from './messages';

/** From how many cards on the browser lays out only those in view. */
const MANY_CARDS = 40;

/** The run view of one widget. */
export class RunView {
  readonly node: HTMLElement;
  private _state: RunState | null = null;
  private _view: IRunWidgetState | null = null;
  private _cards = new Map<number, ItemCard>();
  private _title = el('span', 'jp-Operator-title');
  private _status = el('span', 'jp-Operator-run-status');
  private _banner = el('p', 'jp-Operator-banner');
  private _notes = el('div', 'jp-Operator-notes');
  private _batch = el('div', 'jp-Operator-row jp-Operator-batch');
  private _cardsNode = el('div', 'jp-Operator-cards');
  private _message = el('p', 'jp-Operator-message');
  private _results = el('div', 'jp-Operator-results');
  private _resultsTitle = el('p', 'jp-Operator-subtitle');
  private _resultsText = el('textarea', 'jp-Operator-results-text');
  private _copyNote = el('span', 'jp-Operator-copy-note');
  private _history: HistoryView;
  private _undo: HTMLButtonElement;

  constructor(
    private _requests: Requests,
    private _languages: IEditorLanguageRegistry | null
  ) {
    const node = (this.node = el('div', 'jp-Operator-panel jp-Operator-run-widget'));
    node.setAttribute('role', 'region');
    const head = el('div', 'jp-Operator-row jp-Operator-run-head');
    // Status changes are announced (a decision's outcome, "2 applied, 1 rejected").
    this._status.setAttribute('role', 'status');
    this._status.setAttribute('aria-live', 'polite');
    head.append(this._title, this._status);
    this._banner.hidden = true;
    this._banner.setAttribute('role', 'alert');
    this._message.hidden = true;
    this._message.setAttribute('role', 'alert');
    this._batch.append(
      button('Approve all', 'jp-mod-accept jp-Operator-approve-all', () => void this._decideAll('approve')),
      button('Reject all', 'jp-mod-reject jp-Operator-reject-all', () => void this._decideAll('reject'))
    );
    this._batch.hidden = true;
    this._resultsText.readOnly = true;
    this._resultsText.rows = 8;
    this._resultsText.setAttribute('aria-label', 'OPERATOR_RESULT blocks for the model');
    const copy = button('Copy', 'jp-Operator-copy', () => void this._copy(), 'Copy the results to the clipboard');
    const copyRow = el('div', 'jp-Operator-row');
    copyRow.append(copy, this._copyNote);
    this._results.append(this._resultsTitle, this._resultsText, copyRow);
    this._results.hidden = true;
    this._undo = button('Undo last change', 'jp-Operator-undo', () => void this._undoOrRedo(null, 'undo'));
    this._undo.hidden = true;
    this._history = new HistoryView(
      (entry, action) => void this._undoOrRedo(entry, action),
      () => void this._refreshHistory(),
      _languages
    );
    const tail = el('div', 'jp-Operator-row');
    tail.append(this._undo);
    node.append(
      head,
      this._banner,
      this._notes,
      this._batch,
      this._cardsNode,
      this._message,
      this._results,
      tail,
      this._history.node
    );
  }

  /** Draw `view` (the first state, or a newer one of the same run). */
  render(view: IRunWidgetState): void {
    const fresh = !this._state || this._state.session !== view.session;
    if (fresh) {
      this._clearCards();
      this._state = new RunState(view);
    } else {
      this._state?.update({ items: view.items, results_text: view.results_text });
    }
    this._view = view;
    const state = this._state as RunState;
    const fragment = document.createDocumentFragment();
    for (const item of state.items) {
      const card = this._cards.get(item.index);
      if (!card) {
        const made = this._card(item);
        this._cards.set(item.index, made);
        fragment.append(made.node);
      } else if (card.needsRebuild(item)) {
        const made = this._card(item);
        card.node.replaceWith(made.node);
        card.dispose();
        this._cards.set(item.index, made);
      } else if (card.item !== item) {
        card.update(item);
      }
    }
    this._cardsNode.append(fragment);
    // A long run lets the browser skip the layout of cards out of view (widget.css).
    this._cardsNode.classList.toggle('jp-Operator-cards-many', state.items.length > MANY_CARDS);
    this._title.textContent = view.title;
    this.node.setAttribute('aria-label', `${view.title}: ${statusLine(state)}`);
    this._status.textContent = statusLine(state);
    const warning = view.warning ?? cutWarning(state);
    this._banner.textContent = warning ?? '';
    this._banner.hidden = !warning;
    this._notes.replaceChildren(...view.notes.map(n => el('p', 'jp-Operator-note', n)));
    this._batch.hidden = state.pending.length < 2;
    const showResults = state.done && !view.dry_run && Boolean(state.resultsText);
    this._resultsTitle.textContent = view.results_title;
    if (this._resultsText.value !== state.resultsText) {
      this._resultsText.value = state.resultsText;
    }
    this._results.hidden = !showResults;
    this._undo.hidden = state.counts().applied === 0 || view.dry_run;
    this.setBusy(this._requests.pending > 0);
    if (this._history.isOpen) {
      void this._refreshHistory();
    }
  }

  /** The card of an item id (tests and keyboard focus). */
  card(id: string): ItemCard | undefined {
    return [...this._cards.values()].find(c => c.item.id === id);
  }

  /** Enable or disable every control while a request waits for the kernel. */
  setBusy(busy: boolean): void {
    this.node.toggleAttribute('aria-busy', busy);
    for (const b of Array.from(this._batch.querySelectorAll('button'))) {
      b.disabled = busy;
    }
    for (const card of this._cards.values()) {
      card.setBusy(busy);
    }
    this._undo.disabled = busy;
  }

  /** Say something in the view's message line (an empty text hides it). */
  showMessage(text: string, kind: 'error' | 'note' = 'error'): void {
    this._message.textContent = text;
    this._message.hidden = !text;
    // What was done (an undo, an already-decided item) is not an error: not drawn in red.
    this._message.classList.toggle('jp-Operator-message-note', kind === 'note');
  }

  /** Free the editors. */
  dispose(): void {
    this._clearCards();
    this._requests.abandon('The view was closed.');
  }

  private _card(item: IOperatorItem): ItemCard {
    return new ItemCard(
      item,
      (i, decision, reason, content, andRun) => void this._decide(i, decision, reason, content, andRun),
      this._languages,
      undefined,
      this._view?.can_edit ? i => this._content(i) : undefined,
      true
    );
  }

  private async _send(request: Parameters<Requests['send']>[0]): Promise<IReply> {
    this.showMessage('');
    this.setBusy(true);
    const reply = await this._requests.send(request);
    this.setBusy(this._requests.pending > 0);
    if (reply.error) {
      this.showMessage(reply.error);
    } else if (reply.note) {
      this.showMessage(reply.note, 'note');
    }
    return reply;
  }

  private async _decide(
    item: IOperatorItem,
    decision: Decision,
    reason?: string,
    content?: string,
    andRun?: boolean
  ): Promise<void> {
    if (!isPending(item)) {
      return;
    }
    const preview = this._view?.previews[item.id] ?? null;
    await this._send({
      kind: 'decide',
      id: item.id,
      index: item.index,
      decision,
      reason: reason?.trim() ? reason : undefined,
      content,
      and_run: andRun || undefined,
      preview
    });
  }

  private async _decideAll(decision: Decision): Promise<void> {
    await this._send({ kind: 'decide_all', decision });
  }

  private async _content(item: IOperatorItem): Promise<IEditContent> {
    const reply = await this._requests.send({ kind: 'content', id: item.id });
    if (!reply.content) {
      throw new Error(reply.error ?? 'no content');
    }
    return reply.content;
  }

  private async _refreshHistory(): Promise<void> {
    const reply = await this._requests.send({ kind: 'history' });
    this._history.render(reply.history ?? [], reply.executions ?? []);
  }

  private async _undoOrRedo(entry: IHistoryEntry | null, action: 'undo' | 'redo'): Promise<void> {
    await this._send({ kind: action, entry_id: entry?.entry_id ?? null });
    if (this._history.isOpen) {
      await this._refreshHistory();
    }
  }

  private async _copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this._resultsText.value);
      this._copyNote.textContent = 'Copied.';
    } catch {
      // Clipboard access can be refused (an iframe, http): select the text for Ctrl+C.
      this._resultsText.select();
      this._copyNote.textContent = 'Selected: press Ctrl+C to copy.';
    }
  }

  private _clearCards(): void {
    for (const card of this._cards.values()) {
      card.dispose();
    }
    this._cards.clear();
    this._cardsNode.replaceChildren();
  }
}
