/**
 * The panel's own controls around the item cards: the header with Copy spec, the reply box
 * (its draft kept across reloads) and Run, the error, status, warning and note lines, the
 * batch buttons, and the results box with Copy and Undo. Apart from panel.ts so the panel
 * keeps to coordinating: these nodes show what the panel passes in and report clicks through
 * `IControlActions`.
 */
import { Clipboard } from '@jupyterlab/apputils';

import { OperatorRequestError } from './client';
import { button, el } from './dom';
import { loadDraft, saveDraft, saveDraftSoon } from './draft';
import { cutWarning, RunState, statusLine } from './state';
import { Decision } from './types';

/** What the controls ask the panel to do. */
export interface IControlActions {
  copySpec(): void;
  run(): void;
  decideAll(decision: Decision): void;
  undoLast(): void;
}

/** Put text on the clipboard. */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission (or an insecure origin): JupyterLab's copy-event path.
    Clipboard.copyToSystem(text);
  }
}

/** Turn anything thrown into a sentence for the person. */
export function plainError(reason: unknown): string {
  if (reason instanceof OperatorRequestError) {
    return reason.code.startsWith('HTTP_') || reason.code === 'NETWORK'
      ? reason.message
      : `${reason.message} (${reason.code})`;
  }
  return 'Something went wrong in the Operator panel; see the browser console.';
}

/** The header, the reply box, the message lines, the batch buttons and the results box. */
export class PanelControls {
  /** The title and Copy spec. */
  readonly header: HTMLElement;
  readonly input: HTMLTextAreaElement;
  /** The results text for the model, with Copy and Undo. */
  readonly results: HTMLElement;
  /** Run, and where the reply came from. */
  private _runRow: HTMLElement;
  private _error: HTMLElement;
  private _status: HTMLElement;
  private _banner: HTMLElement;
  private _note: HTMLElement;
  /** Approve all and Reject all. */
  private _batch: HTMLElement;
  private _source: HTMLElement;
  private _runButton: HTMLButtonElement;
  private _resultsText: HTMLTextAreaElement;
  private _copyNote: HTMLElement;
  private _undoButton: HTMLButtonElement;

  constructor(actions: IControlActions) {
    this.header = el('div', 'jp-Operator-row jp-Operator-header');
    this.header.append(
      el('h2', 'jp-Operator-title', 'Operator'),
      button(
        'Copy spec',
        'jp-Operator-copy-spec',
        () => actions.copySpec(),
        'Copy the Operator Interface Specification to give to a model'
      )
    );

    this.input = el('textarea', 'jp-Operator-input');
    this.input.placeholder =
      "Paste a model's reply (OPERATOR_CMD blocks or JSON operations), or slash commands";
    this.input.setAttribute('aria-label', 'Reply to run');
    this.input.rows = 8;
    this.input.spellcheck = false;
    // The reply survives a page reload, beside the session's cards (see draft.ts).
    this.input.value = loadDraft();
    this.input.addEventListener('input', () => saveDraftSoon(() => this.input.value));
    // A reload inside the debounce still keeps what was typed last.
    window.addEventListener('pagehide', () => saveDraft(this.input.value));
    this.input.addEventListener('keydown', event => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        actions.run();
      }
    });

    this._runRow = el('div', 'jp-Operator-row');
    this._runButton = button('Run', 'jp-mod-accept jp-Operator-run', () => actions.run(), 'Run the reply (Ctrl+Enter)');
    this._source = el('span', 'jp-Operator-source');
    this._runRow.append(this._runButton, this._source);

    this._error = el('div', 'jp-Operator-error');
    this._error.setAttribute('role', 'alert');
    this._error.hidden = true;

    this._status = el('p', 'jp-Operator-run-status');
    this._status.setAttribute('aria-live', 'polite');

    // Commands lost to the scan window: a warning banner, not a note in the status line.
    this._banner = el('div', 'jp-Operator-warning jp-Operator-banner');
    this._banner.setAttribute('role', 'alert');
    this._banner.hidden = true;

    // What the last action did (an undo, a copy of the spec); cleared by the next action.
    this._note = el('p', 'jp-Operator-note');
    this._note.setAttribute('aria-live', 'polite');

    this._batch = el('div', 'jp-Operator-row jp-Operator-batch');
    this._batch.append(
      button('Approve all', 'jp-mod-accept jp-Operator-approve-all', () => actions.decideAll('approve')),
      button('Reject all', 'jp-mod-reject jp-Operator-reject-all', () => actions.decideAll('reject'))
    );
    this._batch.hidden = true;

    this.results = el('div', 'jp-Operator-results');
    this.results.append(el('h3', 'jp-Operator-subtitle', 'Results for the model'));
    this._resultsText = el('textarea', 'jp-Operator-results-text');
    this._resultsText.readOnly = true;
    this._resultsText.rows = 8;
    this._resultsText.setAttribute('aria-label', 'OPERATOR_RESULT blocks');
    this._copyNote = el('span', 'jp-Operator-copy-note');
    this._copyNote.setAttribute('aria-live', 'polite');
    const resultButtons = el('div', 'jp-Operator-row');
    this._undoButton = button(
      'Undo last change',
      'jp-mod-styled jp-Operator-undo',
      () => actions.undoLast(),
      'Restore the file changed last in this workspace'
    );
    resultButtons.append(
      button('Copy', 'jp-mod-accept jp-Operator-copy', () => void this.copyResults()),
      this._undoButton,
      this._copyNote
    );
    this.results.append(this._resultsText, resultButtons);
    this.results.hidden = true;
  }

  /** The reply box, Run and the message lines, in their order above the cards. */
  get aboveCards(): HTMLElement[] {
    return [this.input, this._runRow, this._error, this._status, this._banner, this._note, this._batch];
  }

  /** Put text in the reply box; `origin` says where it came from. */
  setText(text: string, origin?: string): void {
    this.input.value = text;
    saveDraft(text);
    this._source.textContent = origin ?? '';
  }

  /** Show a message in the error area (an empty message hides it). */
  showError(message: string): void {
    this._error.textContent = message;
    this._error.hidden = !message;
  }

  /** Say what the last action did. */
  showNote(text: string): void {
    this._note.textContent = text;
  }

  /** Clear the error and the notes: an earlier action's never stays beside a new result. */
  clearMessages(): void {
    this.showError('');
    this._copyNote.textContent = '';
    this._note.textContent = '';
  }

  /** Copy the results text to the clipboard. */
  async copyResults(): Promise<void> {
    const text = this._resultsText.value;
    if (!text) {
      return;
    }
    await copyText(text);
    this._copyNote.textContent = 'Copied.';
  }

  /** Disable the buttons that start a request while one is under way. */
  setBusy(busy: boolean): void {
    this._runButton.disabled = busy;
    for (const b of Array.from(this._batch.querySelectorAll('button'))) {
      b.disabled = busy;
    }
    this._undoButton.disabled = busy;
  }

  /** Show the state of the run on display: status, cut warning, batch buttons and results. */
  render(state: RunState): void {
    const c = state.counts();
    this._status.textContent = statusLine(state);
    const warning = cutWarning(state);
    this._banner.textContent = warning ?? '';
    this._banner.hidden = !warning;
    this._batch.hidden = state.pending.length < 1;
    this._resultsText.value = state.resultsText;
    this.results.hidden = !state.done || !state.resultsText;
    this._undoButton.hidden = c.applied === 0;
  }
}
