/**
 * Approved notebook changes applied to the notebook open in this page, not to its file.
 *
 * A notebook open here is the person's working copy (unsaved edits, outputs, execution
 * counts). The page tells the server which notebooks it has open ({@link OpenNotebookReport});
 * an approved change to one of them comes back as an item `running` with `live` cell edits
 * (the server's `engine/live_route.py`), which {@link LiveChanges} applies to the open
 * notebook's model in one step of JupyterLab's own undo, and answers: `applied`, `stale` (a
 * cell the change rewrites or deletes was edited since the preview: nothing is changed), or
 * `gone` (not open here any more: the server writes the file). The notebook is left dirty and
 * the person saves it as usual; the file is never written beneath it, so no "File changed on
 * disk" dialog.
 */
import type { ISharedNotebook } from '@jupyter/ydoc';

import { OperatorClient } from './client';
import { IDecideResponse, ILiveChange, ILiveOp, IOperatorItem } from './types';

/** What the page answers the server about a change sent to it. */
export interface ILiveAnswer {
  state: 'applied' | 'stale' | 'gone';
  cell?: string;
}

/** sha256 of a cell's source, hex: the guard the server sent for each touched cell. */
export async function sourceHash(source: string): Promise<string> {
  const data = new TextEncoder().encode(source);
  const digest = await crypto.subtle.digest('SHA-256', data);
  return Array.from(new Uint8Array(digest), b => b.toString(16).padStart(2, '0')).join('');
}

/** The part of a notebook's shared model the edits use (`ISharedNotebook`). */
export type LiveNotebook = Pick<
  ISharedNotebook,
  'cells' | 'insertCell' | 'deleteCell' | 'moveCell' | 'transact'
>;

function indexOf(notebook: LiveNotebook, id: string | null): number {
  return id === null ? -1 : notebook.cells.findIndex(cell => cell.id === id);
}

/** Where a cell placed after `after` goes: right after it, or at `index` when it is gone. */
function placeAfter(notebook: LiveNotebook, after: string | null, index: number): number {
  if (after === null) {
    return 0;
  }
  const found = indexOf(notebook, after);
  return found >= 0 ? found + 1 : Math.min(index, notebook.cells.length);
}

function setFields(notebook: LiveNotebook, at: number, fields: Record<string, unknown>): void {
  const cell = notebook.cells[at];
  if (fields.cell_type !== undefined && fields.cell_type !== cell.cell_type) {
    // A new type is a new cell with the same id (its source and metadata kept unless set).
    const json = { ...cell.toJSON(), ...fields, id: cell.id } as Record<string, unknown>;
    if (json.cell_type !== 'code') {
      delete json.outputs;
      delete json.execution_count;
    } else {
      json.outputs ??= [];
      json.execution_count ??= null;
    }
    notebook.deleteCell(at);
    notebook.insertCell(at, json as never);
    return;
  }
  if (typeof fields.source === 'string') {
    cell.setSource(fields.source);
  }
  if (fields.metadata !== undefined) {
    cell.setMetadata((fields.metadata ?? {}) as never);
  }
  const code = cell as unknown as {
    setOutputs?: (outputs: unknown[]) => void;
    execution_count?: number | null;
  };
  if (fields.outputs !== undefined && code.setOutputs) {
    code.setOutputs((fields.outputs ?? []) as unknown[]);
  }
  if (fields.execution_count !== undefined && 'execution_count' in code) {
    code.execution_count = (fields.execution_count ?? null) as number | null;
  }
}

function applyOp(notebook: LiveNotebook, op: ILiveOp): void {
  if (op.op === 'delete') {
    const at = indexOf(notebook, op.id);
    if (at >= 0) {
      notebook.deleteCell(at);
    }
  } else if (op.op === 'insert') {
    notebook.insertCell(placeAfter(notebook, op.after, op.index), op.cell as never);
  } else if (op.op === 'move') {
    const from = indexOf(notebook, op.id);
    let to = placeAfter(notebook, op.after, op.index);
    if (from >= 0) {
      to = from < to ? to - 1 : to;
      if (from !== to) {
        notebook.moveCell(from, to);
      }
    }
  } else {
    const at = indexOf(notebook, op.id);
    if (at >= 0) {
      setFields(notebook, at, op.fields);
    }
  }
}

/**
 * Apply a change's cell edits to an open notebook, or refuse it whole: each guarded cell must
 * still be there with the source the preview saw (other cells may have changed freely).
 * Sources are hashed first, then checked again unchanged and edited in one transaction, so
 * nothing the person types can slip in between.
 */
export async function applyLiveChange(notebook: LiveNotebook, change: ILiveChange): Promise<ILiveAnswer> {
  return applyLiveChanges([[notebook, change]]);
}

/**
 * Apply several changes in their order (the undo of a run: its notebook changes newest first),
 * all or none: each change's guards are checked against what the changes before it leave
 * (their `sources`; a cell they delete is gone), every cell read from a notebook is checked
 * again unchanged, then each notebook is edited in one transaction. A notebook that is not
 * open here (null) answers `gone`, and nothing is applied.
 */
export async function applyLiveChanges(changes: [LiveNotebook | null, ILiveChange][]): Promise<ILiveAnswer> {
  const after = new Map<LiveNotebook, Map<string, string | null>>();
  const seen: [LiveNotebook, string, string][] = [];
  for (const [notebook, change] of changes) {
    if (!notebook) {
      return { state: 'gone' };
    }
    const planned = after.get(notebook) ?? new Map<string, string | null>();
    after.set(notebook, planned);
    for (const [id, expected] of Object.entries(change.guards)) {
      let source: string | null;
      if (planned.has(id)) {
        source = planned.get(id) ?? null;
      } else {
        const at = indexOf(notebook, id);
        source = at < 0 ? null : notebook.cells[at].getSource();
        if (source !== null) {
          seen.push([notebook, id, source]);
        }
      }
      if (source === null || (await sourceHash(source)) !== expected) {
        return { state: 'stale', cell: id };
      }
    }
    for (const op of change.ops) {
      if (op.op === 'delete') {
        planned.set(op.id, null);
      }
    }
    for (const [id, source] of Object.entries(change.sources ?? {})) {
      planned.set(id, source);
    }
  }
  for (const [notebook, id, source] of seen) {
    const at = indexOf(notebook, id);
    if (at < 0 || notebook.cells[at].getSource() !== source) {
      return { state: 'stale', cell: id }; // typed while the hashes were computed
    }
  }
  for (const notebook of after.keys()) {
    notebook.transact(() => {
      for (const [target, change] of changes) {
        if (target === notebook) {
          for (const op of change.ops) {
            applyOp(notebook, op);
          }
        }
      }
    }, true);
  }
  return { state: 'applied' };
}

/** Finds the shared model of the notebook open at a server path, if it is open here. */
export type FindLiveNotebook = (path: string) => LiveNotebook | null;

/** An item as the server names it: enough to tell whether it waits for this page. */
export type LiveItem = Pick<IOperatorItem, 'id' | 'status' | 'live'>;

/** What this page did with the changes it applied, to tell the server. */
export type LiveReport = (update: (answer: IDecideResponse) => void | Promise<void>) => Promise<void>;

/** Carries out, once per page, the changes the server sent to notebooks open here. */
export class LiveChanges {
  private _started = new Set<string>();

  constructor(
    private _client: OperatorClient,
    private _find: FindLiveNotebook
  ) {}

  /**
   * Apply now each item waiting for a page (the page that decided applies the edits its
   * decision's answer carries, before anything else is drawn); the returned report tells the
   * server, whose answers go to `update`. The server stays the authority: the item ends only
   * with that report, and a stale guard refuses the whole change here as there.
   */
  async applyNow(
    session: string,
    items: readonly LiveItem[],
    docPath: (path: string | null) => string | null
  ): Promise<LiveReport> {
    const answers: [string, ILiveAnswer][] = [];
    for (const item of items) {
      const live = item.live;
      const key = `${session}:${item.id}`;
      if (item.status !== 'running' || !live || live.state !== 'waiting' || this._started.has(key)) {
        continue;
      }
      this._started.add(key);
      const path = docPath(live.notebook);
      const notebook = path ? this._find(path) : null;
      let answer: ILiveAnswer;
      try {
        answer = notebook ? await applyLiveChange(notebook, live) : { state: 'gone' };
      } catch {
        answer = { state: 'gone' }; // the page cannot edit it: the server writes the file
      }
      answers.push([item.id, answer]);
    }
    return async update => {
      for (const [id, answer] of answers) {
        await update(await this._client.live(session, id, answer));
      }
    };
  }

  /** Apply each item waiting for a page; `update` receives each server answer. */
  async carryOut(
    session: string,
    items: readonly LiveItem[],
    docPath: (path: string | null) => string | null,
    update: (answer: IDecideResponse) => void | Promise<void>
  ): Promise<void> {
    await (await this.applyNow(session, items, docPath))(update);
  }
}

/** How often the open notebooks are reported when nothing changed (the server's heartbeat). */
const HEARTBEAT_MS = 10_000;

/** The open notebooks of this page, as the server learns them (`POST open-notebooks`). */
export class OpenNotebookReport {
  readonly page = `page-${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  private _timer: ReturnType<typeof setInterval> | null = null;

  constructor(
    private _client: OperatorClient,
    private _paths: () => string[]
  ) {}

  /** Report now, then on every heartbeat; `changed` reports at once. */
  start(): void {
    void this.changed();
    this._timer = setInterval(() => void this.changed(), HEARTBEAT_MS);
    window.addEventListener('pagehide', () => this.stop());
  }

  async changed(): Promise<void> {
    try {
      await this._client.openNotebooks(this.page, this._paths());
    } catch {
      // The server is away: its record expires, and changes go to the disk.
    }
  }

  stop(): void {
    if (this._timer !== null) {
      clearInterval(this._timer);
      this._timer = null;
    }
    void this._client.openNotebooks(this.page, [], true).catch(() => undefined);
  }
}
