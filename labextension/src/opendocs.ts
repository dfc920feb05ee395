/**
 * Notebooks open in JupyterLab (or Notebook 7) that a change from the panel touches.
 *
 * When the server applies (or undoes, or redoes) a change to a notebook that is open and whose
 * cells are still the file's (see {@link OpenNotebooks}), the open document is reloaded from
 * disk at once: the person sees the new cells, and
 * JupyterLab never shows "File changed on disk" (reloading records the file's new time). The
 * document is reloaded rather than edited and saved, so the file on disk stays exactly the
 * bytes the person approved (a save would write JupyterLab's own serialisation).
 *
 * An open notebook whose cells the person changed and did not save is never touched. The panel refuses to approve, undo
 * or redo a change to it: the change was previewed against the file on disk, and writing it
 * under unsaved edits would leave a tab whose next save silently drops the approved change
 * while the model is told it was applied. The person saves (the preview is then checked
 * against the saved notebook, and a stale one is refused) or reverts, then decides again.
 */
import { INotebookModel, INotebookTracker } from '@jupyterlab/notebook';
import { JSONExt, ReadonlyPartialJSONValue } from '@lumino/coreutils';

import { IOperatorItem, IWorkspace } from './types';

/** Where a change's path is, relative to the server's root: `ws.path/folder/path`, or null
 * when the workspace is outside the server's root (no document there can be open). */
export function serverPath(
  workspaces: readonly IWorkspace[],
  workspace: string,
  folder: string | null | undefined,
  path: string | null
): string | null {
  const ws = workspaces.find(w => w.name === workspace);
  if (!ws || ws.path === null || ws.path === undefined || path === null) {
    return null;
  }
  const parts: string[] = [];
  for (const piece of [ws.path, folder ?? '', path]) {
    for (const segment of piece.split('/')) {
      if (segment === '..') {
        return null; // never resolved by hand: the server refuses such paths anyway
      }
      if (segment && segment !== '.') {
        parts.push(segment);
      }
    }
  }
  return parts.join('/');
}

/** What the person is told when a change to an open notebook with unsaved changes is held. */
export function dirtyMessage(path: string, what: 'approve' | 'undo' | 'redo'): string {
  const verb = what === 'approve' ? 'approved' : what === 'undo' ? 'undone' : 'redone';
  return (
    `Not ${verb}: ${path} is open with unsaved changes. Save them (the change is then checked ` +
    `against your saved notebook) or revert them, then ${what} again.`
  );
}

/** What the person is told when a change reached the disk under an open, edited notebook. */
export function notReloadedMessage(path: string): string {
  return (
    `Written on disk, but the open ${path} has unsaved changes and was not reloaded: ` +
    'saving it would overwrite this change (File > Reload Notebook from Disk shows it).'
  );
}

/** A notebook's cells as compared here: types, sources and outputs (ids, metadata and
 * execution counts aside), with multi-line strings joined as nbformat allows either form. */
export function cellsKey(notebook: unknown): string {
  const cells = (notebook as { cells?: unknown[] } | null)?.cells;
  if (!Array.isArray(cells)) {
    return '';
  }
  const joined = (value: unknown): unknown =>
    Array.isArray(value) && value.every(v => typeof v === 'string')
      ? value.join('')
      : Array.isArray(value)
        ? value.map(joined)
        : value && typeof value === 'object'
          ? Object.fromEntries(
              Object.entries(value as Record<string, unknown>)
                .filter(([k]) => k !== 'execution_count' && k !== 'metadata')
                .sort(([a], [b]) => (a < b ? -1 : 1))
                .map(([k, v]) => [k, joined(v)])
            )
          : value;
  return JSON.stringify(
    cells.map(cell => {
      const c = cell as Record<string, unknown>;
      return { type: c.cell_type, source: joined(c.source), outputs: joined(c.outputs ?? []) };
    })
  );
}

/** What the panel found about an open notebook before changing its file. */
export interface IOpenCheck {
  /** `closed`: not open here; `unchanged`: its cells are the file's; `edited`: they differ. */
  state: 'closed' | 'unchanged' | 'edited';
  /** The open notebook's cells (see {@link cellsKey}) when it is open. */
  cells?: string;
}

/** How long after a reload the kernel's own metadata echo is not counted as an edit. */
const ECHO_MS = 5000;

/**
 * After a reload JupyterLab writes the kernel's name and language into the notebook's metadata
 * again, which marks it dirty although nothing changed. Within a few seconds of the reload,
 * a metadata write that leaves the value the file holds keeps the notebook clean.
 */
function keepCleanWhileKernelEchoes(model: INotebookModel): void {
  const saved = ((model.toJSON() as { metadata?: unknown }).metadata ?? {}) as Record<string, unknown>;
  const cells = cellsKey(model.toJSON());
  const onChange = (_: unknown, change: { key: string; newValue?: unknown }) => {
    const same = JSONExt.deepEqual(
      (saved[change.key] ?? null) as ReadonlyPartialJSONValue,
      (change.newValue ?? null) as ReadonlyPartialJSONValue
    );
    if (same) {
      // After the change is recorded (the dirty flag is set once the signal has run).
      setTimeout(() => {
        if (!model.isDisposed && cellsKey(model.toJSON()) === cells) {
          model.dirty = false;
        }
      }, 0);
    }
  };
  model.metadataChanged.connect(onChange);
  setTimeout(() => model.metadataChanged.disconnect(onChange), ECHO_MS);
}

/** Reads a file's saved content (JupyterLab's contents service). */
export type ReadNotebook = (path: string) => Promise<unknown>;

/**
 * The notebooks open in this page, by their path relative to the server's root.
 *
 * "Unchanged" means the open notebook's cells are the file's cells. JupyterLab marks a
 * notebook dirty as soon as its kernel starts (it records the kernel's language in the
 * metadata); that alone is not an edit of the person's, so cells are compared with the file.
 */
export class OpenNotebooks {
  constructor(
    private _tracker: INotebookTracker | null,
    private _read: ReadNotebook | null
  ) {}

  /** Whether the notebook at `path` is open, and whether its cells differ from the file. */
  async check(path: string | null): Promise<IOpenCheck> {
    const panel = this._find(path);
    if (!panel || !path) {
      return { state: 'closed' };
    }
    const model = panel.context.model;
    const cells = cellsKey(model.toJSON());
    if (!model.dirty) {
      return { state: 'unchanged', cells };
    }
    try {
      const saved = this._read ? cellsKey(await this._read(path)) : null;
      return { state: saved === cells ? 'unchanged' : 'edited', cells };
    } catch {
      return { state: 'edited', cells }; // cannot tell: keep the person's tab as it is
    }
  }

  /**
   * Bring the open notebook at `path` up to date with the disk (after the server changed it):
   * reloaded when it is not dirty, or when its cells are still `before` (what {@link check}
   * saw just before the change). Returns `edited` when it was left alone.
   */
  async reload(path: string | null, before?: string): Promise<IOpenCheck['state']> {
    const panel = this._find(path);
    if (!panel) {
      return 'closed';
    }
    const model = panel.context.model;
    if (model.dirty && (before === undefined || cellsKey(model.toJSON()) !== before)) {
      return 'edited';
    }
    await panel.context.revert();
    // The model now holds exactly the file (JupyterLab's revert leaves it marked dirty).
    model.dirty = false;
    keepCleanWhileKernelEchoes(model);
    return 'unchanged';
  }

  private _find(path: string | null) {
    if (!path || !this._tracker) {
      return null;
    }
    return this._tracker.find(panel => !panel.isDisposed && panel.context.path === path) ?? null;
  }
}

/** What {@link OpenNotebooks.beforeApproving} and {@link OpenNotebooks.afterChange} need to know
 * of the panel: where an item's path is, and the card that shows it. */
export interface IPanelView {
  /** An item's path relative to the server's root (null: no document there can be open). */
  docPath(path: string | null): string | null;
  /** The card node of the item at this index, if shown. */
  cardNode(index: number): HTMLElement | null;
}

/**
 * Before approving `items`: the cells of the open notebooks they change, by path, or null
 * (with a note on each such card) when one has cell edits the person has not saved.
 */
export async function beforeApproving(
  open: OpenNotebooks,
  view: IPanelView,
  items: readonly IOperatorItem[]
): Promise<Map<string, string> | null> {
  const before = new Map<string, string>();
  let held = false;
  for (const item of items) {
    const path = item.kind === 'mutation' ? view.docPath(item.path) : null;
    const checked = await open.check(path);
    const edited = checked.state === 'edited' && !!path;
    if (path && checked.cells !== undefined) {
      before.set(path, checked.cells);
    }
    const card = view.cardNode(item.index);
    if (card) {
      noteOnCard(card, edited && path ? dirtyMessage(path, 'approve') : '');
    }
    held ||= edited;
  }
  return held ? null : before;
}

/** After a decision: reload the open notebooks that these (changed) items wrote or undid. */
export async function afterChange(
  open: OpenNotebooks,
  view: IPanelView,
  items: readonly IOperatorItem[],
  before: ReadonlyMap<string, string> = new Map()
): Promise<void> {
  for (const item of items) {
    if (item.kind !== 'mutation' || !['applied', 'undone'].includes(item.status)) {
      continue;
    }
    const path = view.docPath(item.path);
    const card = view.cardNode(item.index);
    const reloaded = await open.reload(path, path ? before.get(path) : undefined);
    if (reloaded === 'edited' && path && card) {
      noteOnCard(card, notReloadedMessage(path));
    }
  }
}

/** Show (or replace) the open-notebook note on a card; an empty text removes it. */
export function noteOnCard(card: HTMLElement, text: string): void {
  let note = card.querySelector<HTMLElement>(':scope > .jp-Operator-opendoc-note');
  if (!text) {
    note?.remove();
    return;
  }
  if (!note) {
    note = document.createElement('p');
    note.className = 'jp-Operator-opendoc-note jp-Operator-warning';
    note.setAttribute('role', 'note');
    card.append(note);
  }
  note.textContent = text;
}
