/**
 * "Fix with Operator": a cell whose run ended in an error gets a button on its error output
 * (and the command behind it a shortcut) that starts an Ask run on the error. The server
 * writes the model's task from what is sent here (server/fix_error.py): the cell, its outputs
 * (the traceback loses its colour codes there) and the notebook's cells as open in the page.
 *
 * The request's shape is pure (fixrequest.ts); the buttons follow each open notebook's cells.
 */
import { Cell, CodeCell } from '@jupyterlab/cells';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import { button } from './dom';
import { errorIndex } from './fixrequest';

const FIX_CLASS = 'jp-Operator-fix-error';
/** On the output row that holds the button (it wraps, see cells.css). */
const WITH_FIX_CLASS = 'jp-Operator-with-fix';

/**
 * Puts a "Fix with Operator" button on the error output of every code cell of the notebooks
 * open in `tracker`; a click calls `onFix` with the notebook and the cell's id.
 */
export class FixButtons {
  private _watched = new WeakSet<Cell>();

  constructor(
    tracker: INotebookTracker,
    private _onFix: (panel: NotebookPanel, cellId: string) => void
  ) {
    tracker.widgetAdded.connect((_, panel) => this._watchNotebook(panel));
    tracker.forEach(panel => this._watchNotebook(panel));
  }

  private _watchNotebook(panel: NotebookPanel): void {
    const watchCells = () => {
      for (const cell of panel.content.widgets) {
        this._watchCell(panel, cell);
      }
    };
    // Cell widgets are made by the notebook on the same signal, before this handler runs.
    const cellsChanged = () => watchCells();
    const attach = () => {
      panel.content.model?.cells.changed.connect(cellsChanged);
      watchCells();
    };
    panel.content.modelChanged.connect(attach);
    void panel.context.ready.then(attach);
  }

  private _watchCell(panel: NotebookPanel, cell: Cell): void {
    if (!(cell instanceof CodeCell) || this._watched.has(cell)) {
      return;
    }
    this._watched.add(cell);
    const place = () => this._place(panel, cell);
    cell.outputArea.model.changed.connect(place);
    place();
  }

  /** The button on the cell's first error output (none when the cell has no error). */
  private _place(panel: NotebookPanel, cell: CodeCell): void {
    if (cell.isDisposed) {
      return;
    }
    const area = cell.outputArea;
    for (const old of Array.from(area.node.querySelectorAll(`.${FIX_CLASS}`))) {
      old.parentElement?.classList.remove(WITH_FIX_CLASS);
      old.remove();
    }
    const index = errorIndex(area.model.toJSON());
    const child = index >= 0 ? area.widgets[index] : undefined;
    if (!child) {
      return;
    }
    const fix = button(
      'Fix with Operator',
      `jp-mod-accept ${FIX_CLASS}`,
      () => this._onFix(panel, cell.model.id),
      'Ask the model to fix this error (the cell, its traceback and the notebook go with it)'
    );
    // The output row wraps so the button goes below the traceback, not beside it (beside,
    // it would take the traceback's width and wrap its lines).
    child.node.classList.add(WITH_FIX_CLASS);
    child.node.append(fix);
  }
}
