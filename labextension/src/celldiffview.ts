/**
 * A notebook change drawn as cells: one block per changed, added, removed or
 * moved cell (status, index, type, id, a numbered source diff in a read-only
 * CodeMirror view, outputs and metadata folded), one line per run of unchanged
 * cells, and "Show JSON diff" to swap in the plain diff of the file.
 * Every string goes in as text (dom.ts), never as HTML.
 */
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import {
  cellFileName,
  cellRows,
  countsLine,
  foldLabel,
  idLabel,
  notebookNotes,
  notesOf,
  originLabel,
  shownEntries,
  typeLabel,
  whereLabel
} from './celldiff';
import { DiffView } from './diffview';
import { button, el, relabel, summary } from './dom';
import { ICellChange, INotebookCells } from './types';

/** The cell view of a notebook change, with the JSON diff one click away. */
export class CellDiffView {
  readonly node: HTMLElement;
  private _views: DiffView[] = [];
  private _cellsHost: HTMLElement;
  private _jsonHost: HTMLElement;
  private _jsonMounted = false;
  private _toggle: HTMLButtonElement;
  private _pending: { host: HTMLElement; entry: ICellChange }[] = [];
  private _disposed = false;

  /**
   * @param mountJson draws the JSON diff into the host it is given (called on the first
   *   "Show JSON diff" click only).
   */
  constructor(
    cells: INotebookCells,
    private _languages: IEditorLanguageRegistry | null,
    private _mountJson: (host: HTMLElement) => void
  ) {
    const node = (this.node = el('div', 'jp-Operator-cells'));
    const bar = el('div', 'jp-Operator-cells-bar');
    bar.append(el('span', 'jp-Operator-cells-counts', `Notebook cells: ${countsLine(cells)}`));
    for (const note of notebookNotes(cells)) {
      bar.append(el('span', 'jp-Operator-cells-note', note));
    }
    this._toggle = button('Show JSON diff', 'jp-Operator-cells-toggle', () => this.toggle());
    this._toggle.title = 'Show the change as a diff of the notebook file';
    bar.append(this._toggle);
    this._cellsHost = el('div', 'jp-Operator-cells-list');
    this._jsonHost = el('div', 'jp-Operator-cells-json');
    this._jsonHost.hidden = true;
    node.append(bar, this._cellsHost, this._jsonHost);
    const { entries, more } = shownEntries(cells);
    for (const entry of entries) {
      this._cellsHost.append(this._entry(entry));
    }
    if (more) {
      this._cellsHost.append(
        el('div', 'jp-Operator-cell-fold', `⋯ ${more} more entries: Show JSON diff for all of it`)
      );
    }
    // The card is drawn at once with plain rows; each cell's CodeMirror view (syntax colours)
    // replaces them after the first paint (ten editors cost more than the rest of the card).
    if (this._pending.length) {
      requestAnimationFrame(() => setTimeout(() => this._upgrade(), 0));
    }
  }

  /** Whether the JSON diff is shown instead of the cells. */
  get showingJson(): boolean {
    return !this._jsonHost.hidden;
  }

  /** Swap between the cells and the JSON diff. */
  toggle(): void {
    const json = !this.showingJson;
    if (json && !this._jsonMounted) {
      this._jsonMounted = true;
      this._mountJson(this._jsonHost);
    }
    this._jsonHost.hidden = !json;
    this._cellsHost.hidden = json;
    relabel(this._toggle, json ? 'Show cells' : 'Show JSON diff');
    this.node.dataset.view = json ? 'json' : 'cells';
  }

  /** Free the editors. */
  dispose(): void {
    this._disposed = true;
    for (const view of this._views) {
      view.dispose();
    }
    this._views = [];
  }

  /** Swap each cell's plain rows for a read-only CodeMirror diff view. */
  private _upgrade(): void {
    const pending = this._pending;
    this._pending = [];
    for (const { host, entry } of pending) {
      if (this._disposed) {
        return;
      }
      const target = el('div', 'jp-Operator-cell-editor');
      const view = new DiffView(target, {
        diff: entry.source_diff,
        path: cellFileName(entry),
        languages: this._languages
      });
      if (!view.consistent) {
        view.dispose(); // keep the plain rows: never signs against the wrong lines
        continue;
      }
      this._views.push(view);
      host.replaceChildren(target);
    }
  }

  private _entry(entry: ICellChange): HTMLElement {
    if (entry.status === 'unchanged') {
      return el('div', 'jp-Operator-cell-fold', foldLabel(entry));
    }
    const block = el('div', `jp-Operator-cell jp-Operator-cell-${entry.status}`);
    block.dataset.status = entry.status;
    const head = el('div', 'jp-Operator-cell-head');
    head.append(
      el('span', `jp-Operator-cell-badge jp-Operator-cell-badge-${entry.status}`, entry.status),
      el('span', 'jp-Operator-cell-where', whereLabel(entry)),
      el('span', 'jp-Operator-cell-type', typeLabel(entry))
    );
    for (const [text, cls] of [
      [idLabel(entry), 'jp-Operator-cell-id'],
      [originLabel(entry), 'jp-Operator-cell-origin']
    ]) {
      if (text) {
        head.append(el('span', cls, text));
      }
    }
    if (entry.added || entry.removed) {
      head.append(
        el('span', 'jp-Operator-cell-add', `+${entry.added}`),
        el('span', 'jp-Operator-cell-del', `−${entry.removed}`)
      );
    }
    block.append(head);
    if (entry.source_diff) {
      const host = el('div', 'jp-Operator-diff jp-Operator-cell-diff');
      host.append(plainRows(entry.source_diff));
      block.append(host);
      this._pending.push({ host, entry });
    }
    if (entry.stale_outputs) {
      const n = entry.stale_outputs;
      const text = `keeps ${n === 1 ? '1 output' : `${n} outputs`} of the old source: stale until the cell runs again`;
      block.append(el('p', 'jp-Operator-cell-stale-outputs jp-Operator-warning', text));
    }
    const notes = notesOf(entry);
    if (notes) {
      const details = el('details', 'jp-Operator-cell-notes');
      details.append(summary(notes.label));
      const list = el('ul');
      for (const line of notes.lines) {
        list.append(el('li', '', line));
      }
      details.append(list);
      block.append(details);
    }
    return block;
  }
}

/** A cell's source diff as plain rows: numbers, sign and text (all as text, never HTML). */
function plainRows(diff: string): HTMLElement {
  const box = el('div', 'jp-Operator-cell-rows');
  for (const row of cellRows(diff)) {
    const line = el(
      'div',
      `jp-Operator-cell-row${row.kind === 'ctx' || row.kind === 'gap' ? '' : ` jp-Operator-line-${row.kind}`}`
    );
    line.append(
      el('span', 'jp-Operator-cell-no', row.oldNo),
      el('span', 'jp-Operator-cell-no', row.newNo),
      el('span', `jp-Operator-sign-${row.kind}`, row.sign),
      el('span', 'jp-Operator-cell-text', row.text)
    );
    box.append(line);
  }
  return box;
}
