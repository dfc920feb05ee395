/**
 * `%operator history` in a notebook: the panel's History section (history.ts) over the
 * widget's `history` state, with Undo and Redo sent to the kernel as requests.
 */
import type { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { el } from '../dom';
import { HistoryView } from '../history';
import { IExecutionRecord, IHistoryEntry } from '../types';
import { Requests } from './messages';

/** The widget's `history` state (`HistoryWidget.history`). */
export interface IHistoryWidgetState {
  history: IHistoryEntry[];
  executions: IExecutionRecord[];
  message: string;
}

/** The history view of one widget. */
export class HistoryPanel {
  readonly node: HTMLElement;
  private _view: HistoryView;
  private _message = el('p', 'jp-Operator-message');

  constructor(
    private _requests: Requests,
    languages: IEditorLanguageRegistry | null
  ) {
    this.node = el('div', 'jp-Operator-panel jp-Operator-run-widget jp-Operator-history-widget');
    this._message.setAttribute('role', 'status');
    this._message.setAttribute('aria-live', 'polite');
    this._view = new HistoryView(
      (entry, action) => void this._requests.send({ kind: action, entry_id: entry.entry_id }),
      () => void this._requests.send({ kind: 'history' }),
      languages
    );
    this._view.node.open = true;
    this.node.append(this._view.node, this._message);
  }

  /** Draw the entries and the last undo or redo's line. */
  render(state: IHistoryWidgetState): void {
    this._view.render(state.history ?? [], state.executions ?? []);
    this._message.textContent = state.message ?? '';
    this._message.hidden = !state.message;
    const refused = (state.message ?? '').startsWith('Cannot');
    this._message.classList.toggle('jp-Operator-warning', refused);
    // A done undo or redo is not drawn as an error.
    this._message.classList.toggle('jp-Operator-message-note', !refused);
  }
}
