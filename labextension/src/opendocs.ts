/**
 * Documents open in JupyterLab (or Notebook 7) that a change from the panel touches: notebooks,
 * and text files open in an editor.
 *
 * A notebook open here is changed in the page, never beneath it: this page reports its open
 * notebooks to the server, which sends an approved change to one of them (and its undo and
 * redo) back as cell edits that livecells.ts applies to the open notebook's model. The
 * person's unsaved edits elsewhere stay, and saving asks nothing. Such a change is never held
 * here for unsaved edits (the server's per-cell guard refuses it when a cell it touches was
 * edited since the preview) and never reloaded from disk afterwards.
 *
 * Any other open document whose content is still the file's (see {@link OpenDocuments}) is
 * reloaded from disk once the server changed the file: the person sees the new content, and
 * JupyterLab never shows "File changed on disk" (reloading records the file's new time). It is
 * reloaded rather than edited and saved, so the file on disk stays exactly the bytes the
 * person approved (a save would write JupyterLab's own serialisation). One the person changed
 * and did not save is never touched: the panel refuses to approve, undo or redo a change to
 * it, since writing under unsaved edits would leave a tab whose next save silently drops the
 * approved change while the model is told it was applied. The person saves (the preview is
 * then checked against the saved file, and a stale one is refused) or reverts, then decides
 * again.
 */
import { INotebookModel, INotebookTracker } from '@jupyterlab/notebook';
import { JSONExt, ReadonlyPartialJSONValue } from '@lumino/coreutils';

import type { LiveNotebook } from './livecells';
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

function isNotebookPath(path: string): boolean {
  return path.toLowerCase().endsWith('.ipynb');
}

/** What the person is told when a change to an open document with unsaved changes is held. */
export function dirtyMessage(path: string, what: 'approve' | 'undo' | 'redo'): string {
  const verb = what === 'approve' ? 'approved' : what === 'undo' ? 'undone' : 'redone';
  const kind = isNotebookPath(path) ? 'notebook' : 'file';
  return (
    `Not ${verb}: ${path} is open with unsaved changes. Save them (the change is then checked ` +
    `against your saved ${kind}) or revert them, then ${what} again.`
  );
}

/** What the person is told when a change reached the disk under an open, edited document. */
export function notReloadedMessage(path: string): string {
  const menu = isNotebookPath(path) ? 'File > Reload Notebook from Disk' : 'File > Reload File from Disk';
  return (
    `Written on disk, but the open ${path} has unsaved changes and was not reloaded: ` +
    `saving it would overwrite this change (${menu} shows it).`
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

/** What the panel found about an open document before changing its file. */
export interface IOpenCheck {
  /** `closed`: not open here; `unchanged`: its content is the file's; `edited`: it differs. */
  state: 'closed' | 'unchanged' | 'edited';
  /** The open document's content as compared (see {@link contentKey}) when it is open. */
  cells?: string;
}

/**
 * An open document as handled here: JupyterLab's document widgets, typed by what is used so
 * the plugin needs no file-editor token (every document widget of Lab and Notebook 7 has these).
 */
export interface IOpenDocument {
  readonly isDisposed: boolean;
  readonly context: {
    readonly path: string;
    /** `collaborative`: the model is a collaborative room's shared document. */
    readonly model: { dirty: boolean; collaborative?: boolean; toJSON(): unknown; toString(): string };
    revert(): Promise<void>;
  };
}

/** Whether a main-area widget is a document widget (see {@link IOpenDocument}). */
export function isOpenDocument(widget: unknown): widget is IOpenDocument {
  const context = (widget as { context?: IOpenDocument['context'] } | null)?.context;
  return (
    !!context &&
    typeof context.path === 'string' &&
    typeof context.revert === 'function' &&
    !!context.model &&
    typeof context.model.toString === 'function'
  );
}

/**
 * An open document's content as compared with its file: a notebook's cells (see
 * {@link cellsKey}), any other document's text.
 */
export function contentKey(path: string, model: { toJSON(): unknown; toString(): string }): string {
  return isNotebookPath(path) ? cellsKey(model.toJSON()) : model.toString();
}

/** The same key for a file's saved content as {@link ReadDocument} returns it. */
export function savedKey(path: string, saved: unknown): string | null {
  if (isNotebookPath(path)) {
    return cellsKey(saved);
  }
  return typeof saved === 'string' ? saved : null;
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

/** Reads a file's saved content (JupyterLab's contents service): a notebook's JSON, or the
 * text of any other file. */
export type ReadDocument = (path: string) => Promise<unknown>;

/** The main area's widgets (the shell's), where open documents are found. */
export type ListWidgets = () => Iterable<unknown>;

/**
 * The documents open in this page, by their path relative to the server's root.
 *
 * "Unchanged" means the open document's content is the file's. JupyterLab marks a notebook
 * dirty as soon as its kernel starts (it records the kernel's language in the metadata); that
 * alone is not an edit of the person's, so cells are compared with the file.
 */
export class OpenDocuments {
  constructor(
    private _tracker: INotebookTracker | null,
    private _read: ReadDocument | null,
    private _widgets: ListWidgets | null = null
  ) {}

  /** Whether `path` is a notebook open in this page: its changes are applied in the page
   * (livecells.ts), never held here nor reloaded. */
  isLiveNotebook(path: string | null): boolean {
    return !!path && isNotebookPath(path) && !!this._tracker?.find(p => !p.isDisposed && p.context.path === path);
  }

  /** Whether `path` is open here as a collaborative room's shared document (real-time
   * collaboration): the server applies changes, undo and redo in the room itself, which saves
   * the file. Its unsaved state is the room's, never held here, and it is never reloaded from
   * the file (that would put the older file back into the room). */
  isShared(path: string | null): boolean {
    return this.isLiveNotebook(path) || this._find(path)?.context.model.collaborative === true;
  }

  /** The shared model of the notebook open here at `path` (livecells.ts edits it), or null. */
  liveNotebook(path: string | null): LiveNotebook | null {
    if (!path || !isNotebookPath(path)) {
      return null;
    }
    const panel = this._tracker?.find(p => !p.isDisposed && p.context.path === path);
    return panel?.content.model?.sharedModel ?? null;
  }

  /** Whether the document at `path` is open, and whether its content differs from the file. */
  async check(path: string | null): Promise<IOpenCheck> {
    const doc = this._find(path);
    if (!doc || !path) {
      return { state: 'closed' };
    }
    const model = doc.context.model;
    const cells = contentKey(path, model);
    if (!model.dirty) {
      return { state: 'unchanged', cells };
    }
    try {
      const saved = this._read ? savedKey(path, await this._read(path)) : null;
      return { state: saved === cells ? 'unchanged' : 'edited', cells };
    } catch {
      return { state: 'edited', cells }; // cannot tell: keep the person's tab as it is
    }
  }

  /**
   * Bring the open document at `path` up to date with the disk (after the server changed it):
   * reloaded when it is not dirty, or when its content is still `before` (what {@link check}
   * saw just before the change). Returns `edited` when it was left alone.
   */
  async reload(path: string | null, before?: string): Promise<IOpenCheck['state']> {
    const doc = this._find(path);
    if (!doc || !path) {
      return 'closed';
    }
    const model = doc.context.model;
    if (model.dirty && (before === undefined || contentKey(path, model) !== before)) {
      return 'edited';
    }
    await doc.context.revert();
    // The model now holds exactly the file (JupyterLab's revert leaves it marked dirty).
    model.dirty = false;
    if (isNotebookPath(path) && 'metadataChanged' in model) {
      keepCleanWhileKernelEchoes(model as unknown as INotebookModel);
    }
    return 'unchanged';
  }

  private _find(path: string | null): IOpenDocument | null {
    if (!path) {
      return null;
    }
    const notebook = this._tracker?.find(p => !p.isDisposed && p.context.path === path);
    if (notebook) {
      return notebook as unknown as IOpenDocument;
    }
    for (const widget of this._widgets?.() ?? []) {
      if (isOpenDocument(widget) && !widget.isDisposed && widget.context.path === path) {
        return widget;
      }
    }
    return null;
  }
}

/** What {@link beforeApproving} and {@link afterChange} need to know
 * of the panel: where an item's path is, and the card that shows it. */
export interface IPanelView {
  /** An item's path relative to the server's root (null: no document there can be open). */
  docPath(path: string | null): string | null;
  /** The card node of the item at this index, if shown. */
  cardNode(index: number): HTMLElement | null;
}

/**
 * Before approving `items`: the content of the open documents they change, by path, or null
 * (with a note on each such card) when one has edits the person has not saved.
 */
export async function beforeApproving(
  open: OpenDocuments,
  view: IPanelView,
  items: readonly IOperatorItem[]
): Promise<Map<string, string> | null> {
  const before = new Map<string, string>();
  let held = false;
  for (const item of items) {
    const docPath = item.kind === 'mutation' ? view.docPath(item.path) : null;
    const path = open.isShared(docPath) ? null : docPath;
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

/** After a decision: reload the open documents that these (changed) items wrote or undid. */
export async function afterChange(
  open: OpenDocuments,
  view: IPanelView,
  items: readonly IOperatorItem[],
  before: ReadonlyMap<string, string> = new Map()
): Promise<void> {
  for (const item of items) {
    // 'running': a change approved with Approve & Run is on disk; its cell runs next.
    if (item.kind !== 'mutation' || !['applied', 'undone', 'running'].includes(item.status)) {
      continue;
    }
    if (item.live) {
      continue; // applied in the open notebook itself (livecells.ts): the file is not newer
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
