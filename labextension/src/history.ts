/**
 * The panel's History view: every change applied in the workspace, newest first, with its
 * time, action, path, session, who decided it (a person or a rule) and who proposed it (an MCP
 * client), its diff, and Undo or
 * Redo on any entry. Refusals (a later change to the same file must be undone first, or the
 * file changed since) come back from the server with their reason and are shown as errors.
 */
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { visibleText } from './diff';
import { DiffView } from './diffview';
import { button, el, summary } from './dom';
import { cellRunText, groupByRun, IRunGroup, restoreText } from './historyruns';
import { proposedBy } from './proposals';
import { IExecutionRecord, IHistoryEntry } from './types';

/** What a history row asks its panel to do. */
/** How a history row names where its change landed. */
const ROUTE_NOTES: Record<string, string> = {
  disk: ', applied on disk',
  page: ', applied in the open notebook',
  room: ', applied in the shared notebook (collaborative room)'
};

export type HistoryAction = (entry: IHistoryEntry, action: 'undo' | 'redo') => void;

/** Propose a Rebuild state for a notebook (a card to approve, like any other run). */
export type RebuildAction = (notebook: string) => void;

/** "Undo this run": preview what it restores (`confirmed` false), or undo it. */
export type RunUndoAction = (run: string, confirmed: boolean) => void;

/** Said on every cell change and run: undo restores files and cells, never a kernel. */
export const KERNEL_NOT_ROLLED_BACK =
  'Undo restores the cell, not the kernel: variables and imports made by runs stay as they are. ' +
  'Use Rebuild state to bring the kernel back in line with the notebook.';

/** Who decided a change, in words. */
export function decisionText(entry: IHistoryEntry): string {
  if (entry.decided_by === 'rule') {
    // "auto-approved by rule 2: auto fs.write notes/**", as on the item's card.
    return entry.rule ? `auto-approved by ${entry.rule}` : 'auto-approved by a rule';
  }
  if (entry.decided_by === 'person') {
    return 'approved by a person';
  }
  return 'approved';
}

/** A time of day (and the date when it is not today). */
function when(seconds: number | undefined): string {
  if (!seconds) {
    return '';
  }
  const date = new Date(seconds * 1000);
  const today = new Date().toDateString() === date.toDateString();
  return today ? date.toLocaleTimeString() : date.toLocaleString();
}

/** The History section of the panel. */
export class HistoryView {
  readonly node: HTMLDetailsElement;
  private _list: HTMLElement;
  private _empty: HTMLElement;
  private _diffs: DiffView[] = [];
  private _runs: HTMLElement;

  constructor(
    private _onAction: HistoryAction,
    private _onRefresh: () => void,
    private _languages: IEditorLanguageRegistry | null,
    private _onRebuild: RebuildAction | null = null,
    private _onRunUndo: RunUndoAction | null = null
  ) {
    this.node = el('details', 'jp-Operator-history');
    const title = summary('History', 'jp-Operator-history-title');
    this.node.append(title);
    const bar = el('div', 'jp-Operator-row');
    bar.append(
      button('Refresh', 'jp-mod-styled jp-Operator-history-refresh', () => this._onRefresh())
    );
    this._empty = el('p', 'jp-Operator-history-empty', 'No changes applied in this workspace yet.');
    this._list = el('ol', 'jp-Operator-history-list');
    this._list.setAttribute('reversed', '');
    this._runs = el('div', 'jp-Operator-ledger');
    this.node.append(bar, this._empty, this._list, this._runs);
    this.node.addEventListener('toggle', () => {
      if (this.node.open) {
        this._onRefresh();
      }
    });
  }

  /** Whether the section is open (only then is it kept up to date). */
  get isOpen(): boolean {
    return this.node.open;
  }

  /** Show these entries (oldest first, as the server sends them), newest at the top. */
  render(entries: readonly IHistoryEntry[], runs: readonly IExecutionRecord[] = []): void {
    this._clear();
    this._empty.hidden = entries.length > 0;
    for (const group of groupByRun(entries)) {
      this._list.append(this._group(group));
    }
    this._renderRuns(runs);
  }

  /**
   * Show under a run what "Undo this run" restores, newest first (files and cells), and its
   * cell runs, which no undo takes back (Rebuild state offered); the person confirms or not.
   */
  showRunPreview(run: string, entries: readonly IHistoryEntry[], runs: readonly IExecutionRecord[]): void {
    const host = this._runPreview(run);
    if (!host) {
      return;
    }
    host.replaceChildren();
    host.hidden = false;
    const count = entries.length === 1 ? '1 change' : `${entries.length} changes`;
    host.append(el('p', 'jp-Operator-run-preview-title', `Undo this run restores, newest first (${count}):`));
    const list = el('ol', 'jp-Operator-run-preview-list');
    for (const entry of entries) {
      const row = el('li', 'jp-Operator-run-preview-entry', visibleText(restoreText(entry)));
      row.dataset.entry = entry.entry_id;
      list.append(row);
    }
    host.append(list);
    if (runs.length) {
      host.append(el('p', 'jp-Operator-run-preview-title', 'Cell runs of this run (not undoable):'));
      const ran = el('ul', 'jp-Operator-run-preview-runs');
      for (const record of runs) {
        ran.append(el('li', 'jp-Operator-run-preview-run', visibleText(cellRunText(record))));
      }
      host.append(ran, el('p', 'jp-Operator-history-meta', KERNEL_NOT_ROLLED_BACK));
      for (const notebook of new Set(runs.map(r => r.notebook))) {
        host.append(
          button(`Rebuild state of ${visibleText(notebook)}`, 'jp-mod-styled jp-Operator-rebuild', () => this._onRebuild?.(notebook))
        );
      }
    }
    const actions = el('div', 'jp-Operator-card-actions');
    actions.append(
      button(`Undo ${count}`, 'jp-mod-warn jp-Operator-run-undo-confirm', () => this._onRunUndo?.(run, true), 'Undo all of them in one step'),
      button('Cancel', 'jp-mod-styled jp-Operator-run-undo-cancel', () => {
        host.hidden = true;
        host.replaceChildren();
      })
    );
    host.append(actions);
  }

  /** Say under the run why its undo was refused (the panel's error is far above). */
  showRunError(run: string, message: string): void {
    const host = this._runPreview(run);
    if (!host) {
      return;
    }
    host.replaceChildren();
    host.hidden = false;
    const error = el('p', 'jp-Operator-error jp-Operator-run-undo-error', message);
    error.setAttribute('role', 'alert');
    const close = button('Close', 'jp-mod-styled jp-Operator-run-undo-cancel', () => {
      host.hidden = true;
      host.replaceChildren();
    });
    host.append(error, close);
  }

  private _runPreview(run: string): HTMLElement | null {
    return this._list.querySelector<HTMLElement>(`.jp-Operator-history-run[data-run="${CSS.escape(run)}"] .jp-Operator-run-preview`);
  }

  /** A run's changes, with "Undo this run" when the history knows the run. */
  private _group(group: IRunGroup): HTMLElement {
    const node = el('li', 'jp-Operator-history-run');
    node.dataset.run = group.run;
    const head = el('div', 'jp-Operator-history-run-header');
    const count = group.entries.length === 1 ? '1 change' : `${group.entries.length} changes`;
    const label = group.entries.find(e => e.label)?.label;
    const name = group.run ? `Run ${group.run.slice(0, 8)}` : 'Earlier changes';
    head.append(el('span', 'jp-Operator-history-run-title', `${name}${label ? ` (${visibleText(label)})` : ''} · ${count}`));
    if (group.run && this._onRunUndo) {
      const undo = button('Undo this run', 'jp-mod-styled jp-Operator-history-undo-run', () => this._onRunUndo?.(group.run, false), 'Show what undoing every change of this run restores, then undo them in one step');
      undo.disabled = group.live === 0;
      head.append(undo);
    }
    const preview = el('div', 'jp-Operator-run-preview');
    preview.hidden = true;
    const rows = el('ol', 'jp-Operator-history-list jp-Operator-history-run-list');
    for (const entry of group.entries) {
      rows.append(this._row(entry));
    }
    node.append(head, preview, rows);
    return node;
  }

  /** The execution ledger, by notebook, newest first, with Rebuild state for each notebook. */
  private _renderRuns(runs: readonly IExecutionRecord[]): void {
    this._runs.replaceChildren();
    if (!runs.length) {
      return;
    }
    this._runs.append(el('h3', 'jp-Operator-subtitle', 'Cell runs'));
    const notebooks = [...new Set(runs.map(r => r.notebook))];
    for (const notebook of notebooks) {
      const group = el('section', 'jp-Operator-ledger-notebook');
      group.dataset.notebook = notebook;
      const head = el('div', 'jp-Operator-card-header');
      head.append(el('span', 'jp-Operator-card-path', visibleText(notebook)));
      if (this._onRebuild) {
        head.append(
          button(
            'Rebuild state',
            'jp-mod-styled jp-Operator-rebuild',
            () => this._onRebuild?.(notebook),
            'Propose: restart the kernel, then run again the cells recorded as run in it'
          )
        );
      }
      const list = el('ol', 'jp-Operator-ledger-list');
      list.setAttribute('reversed', '');
      for (const run of runs.filter(r => r.notebook === notebook).reverse()) {
        const what = run.action === 'nb.runCell' ? `cell ${run.cell_id}` : run.action;
        const count = run.execution_count ? ` [${run.execution_count}]` : '';
        const row = el(
          'li',
          `jp-Operator-ledger-row jp-Operator-ledger-${run.status}`,
          `${when(run.time)} ${visibleText(what)}${count}: ${run.status} (${run.kernel_name}, ${run.where}; ${run.command_id})`
        );
        list.append(row);
      }
      group.append(head, el('p', 'jp-Operator-history-meta', KERNEL_NOT_ROLLED_BACK), list);
      this._runs.append(group);
    }
  }

  /** Free the diff editors. */
  dispose(): void {
    this._clear();
  }

  private _clear(): void {
    for (const diff of this._diffs) {
      diff.dispose();
    }
    this._diffs = [];
    this._list.replaceChildren();
  }

  private _row(entry: IHistoryEntry): HTMLElement {
    const row = el('li', 'jp-Operator-history-row');
    row.dataset.entry = entry.entry_id;
    row.dataset.undone = String(entry.undone);
    const head = el('div', 'jp-Operator-card-header');
    head.append(
      el('span', 'jp-Operator-history-time', when(entry.time)),
      el('span', 'jp-Operator-card-action', entry.action),
      el('span', 'jp-Operator-card-path', entry.path === null ? '' : visibleText(entry.path)),
      el('span', 'jp-Operator-card-id', `${entry.command_id} (${entry.entry_id})`)
    );
    const status = el(
      'span',
      `jp-Operator-status jp-Operator-status-${entry.undone ? 'undone' : 'applied'}`,
      entry.undone ? 'Undone' : 'Applied'
    );
    head.append(status);
    const session = entry.session ? `session ${entry.session.slice(0, 8)}` : 'an earlier session';
    // Where it landed: the file, the open notebook's cells (the person saves them), or the
    // shared notebook of a collaborative room (which saves it).
    const where = ROUTE_NOTES[entry.route ?? 'disk'] ?? '';
    const meta = el(
      'div',
      'jp-Operator-history-meta',
      `${decisionText(entry)}${proposedBy(entry.label)}${where}, in ${session}`
    );
    if (entry.action.startsWith('nb.')) {
      // A cell change or a run's saved outputs: the kernel's state is not part of an undo.
      meta.append(el('div', 'jp-Operator-kernel-note', KERNEL_NOT_ROLLED_BACK));
    }
    const actions = el('div', 'jp-Operator-card-actions');
    actions.append(
      entry.undone
        ? button('Redo', 'jp-mod-styled jp-Operator-history-redo', () =>
            this._onAction(entry, 'redo')
          )
        : button(
            'Undo',
            'jp-mod-styled jp-Operator-history-undo',
            () => this._onAction(entry, 'undo'),
            'Restore what this change replaced'
          )
    );
    row.append(head, meta);
    if (entry.diff) {
      const details = el('details', 'jp-Operator-history-diff');
      details.append(summary('Diff'));
      const host = el('div', 'jp-Operator-diff');
      details.append(host);
      const diff = entry.diff;
      details.addEventListener('toggle', () => {
        if (details.open && !host.firstChild) {
          this._diffs.push(
            new DiffView(host, { diff, path: entry.path, languages: this._languages })
          );
        }
      });
      row.append(details);
    }
    row.append(actions);
    return row;
  }
}
