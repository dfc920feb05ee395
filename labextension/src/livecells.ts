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
 *
 * The page applies first. A pending change's card carries its cell edits and guards
 * (`IOperatorItem.plan`); at the click on Approve the page checks the guards on its own
 * notebook and, when they hold, applies the edits at once as a provisional change
 * ({@link LiveChanges.applyFirst}) while the decision travels: the change shows as fast as a
 * paste, not after a round trip to the server. The engine still decides. Its answer routes the
 * same edits to this page (then the page answers `applied` without applying them twice, and the
 * change stays once the engine has recorded it) or it refuses, routes the change elsewhere, or
 * plans other edits: then the touched cells are put back exactly as they were
 * ({@link restoreCells}) and the answer is handled as it would have been. Saves of the notebook
 * wait meanwhile, so a provisional change never reaches the disk unconfirmed.
 */
import type { ISharedNotebook } from '@jupyter/ydoc';

import { OperatorClient } from './client';
import { IDecideResponse, ILiveChange, ILiveOp, ILivePlan, IOperatorItem } from './types';

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

/** The part of a notebook's shared model the edits use (`ISharedNotebook`); its undo manager
 * (a Yjs `UndoManager`) when it has one. */
export type LiveNotebook = Pick<
  ISharedNotebook,
  'cells' | 'insertCell' | 'deleteCell' | 'moveCell' | 'transact'
> & { undoManager?: IUndoStack | null };

/** What of Yjs' `UndoManager` a provisional change uses: its own step, taken out if refused. */
export interface IUndoStack {
  undoStack: unknown[];
  stopCapturing(): void;
}

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

/** The touched cells of a notebook as they were before a change: enough to put them back. */
export interface ICellsBefore {
  /** Every cell id, in order. */
  order: string[];
  /** Each cell the change rewrites, deletes or moves, whole (`toJSON`). */
  cells: Map<string, Record<string, unknown>>;
  /** The ids of the cells the change inserts. */
  inserted: string[];
}

/** The cells `ops` touch, as they are now. */
export function cellsBefore(notebook: LiveNotebook, ops: readonly ILiveOp[]): ICellsBefore {
  const cells = new Map<string, Record<string, unknown>>();
  const inserted: string[] = [];
  for (const op of ops) {
    if (op.op === 'insert') {
      inserted.push(String(op.cell.id));
      continue;
    }
    const at = indexOf(notebook, op.id);
    if (at >= 0 && !cells.has(op.id)) {
      cells.set(op.id, JSON.parse(JSON.stringify(notebook.cells[at].toJSON())));
    }
  }
  return { order: notebook.cells.map(cell => cell.id), cells, inserted };
}

/**
 * Put the cells a change touched back exactly as `before` holds them (source, outputs,
 * execution count, metadata, attachments, type and place), in transactions the person's undo
 * does not track (nothing to redo into a refused change). Cells the change did not touch are
 * left as they are now, with whatever the person did to them meanwhile. Like the change, one
 * edit per transaction (see {@link applyGuarded}).
 */
export function restoreCells(notebook: LiveNotebook, before: ICellsBefore): void {
  const untracked = (edit: () => void) => notebook.transact(edit, false);
  for (const id of before.inserted) {
    const at = indexOf(notebook, id);
    if (at >= 0) {
      untracked(() => notebook.deleteCell(at));
    }
  }
  for (const [id, json] of before.cells) {
    const at = indexOf(notebook, id);
    if (at < 0) {
      continue; // deleted by the change: inserted again in its place below
    }
    const now = notebook.cells[at].toJSON() as Record<string, unknown>;
    if (now.cell_type !== json.cell_type || JSON.stringify(now.attachments) !== JSON.stringify(json.attachments)) {
      untracked(() => {
        notebook.deleteCell(at);
        notebook.insertCell(at, json as never);
      });
    } else {
      const { source, metadata, outputs, execution_count } = json;
      untracked(() => setFields(notebook, at, { source: String(source ?? ''), metadata, outputs, execution_count }));
    }
  }
  // Every touched cell goes back after the cell it followed (or first), in the old order.
  for (const [k, id] of before.order.entries()) {
    const json = before.cells.get(id);
    if (!json) {
      continue;
    }
    let previous: string | null = null;
    for (let j = k - 1; j >= 0 && previous === null; j--) {
      previous = indexOf(notebook, before.order[j]) >= 0 ? before.order[j] : null;
    }
    const to = previous === null ? 0 : indexOf(notebook, previous) + 1;
    const from = indexOf(notebook, id);
    if (from < 0) {
      untracked(() => notebook.insertCell(to, json as never));
    } else if (from !== to) {
      untracked(() => notebook.moveCell(from, from < to ? to - 1 : to));
    }
  }
}

/**
 * Check a change's guards on an open notebook: each guarded cell must still be there with the
 * source the preview saw (other cells may have changed freely). The sources seen, by cell id,
 * or the first cell that fails.
 */
async function checkGuards(
  notebook: LiveNotebook,
  guards: Record<string, string>
): Promise<Map<string, string> | { stale: string }> {
  const seen = new Map<string, string>();
  for (const [id, expected] of Object.entries(guards)) {
    const at = indexOf(notebook, id);
    if (at < 0) {
      return { stale: id };
    }
    const source = notebook.cells[at].getSource();
    if ((await sourceHash(source)) !== expected) {
      return { stale: id };
    }
    seen.set(id, source); // checked again, unhashed, just before the edits (applyGuarded)
  }
  return seen;
}

/** A change applied: what it touched before, and its step of the notebook's undo. */
interface IApplied {
  before: ICellsBefore;
  step: unknown;
}

/**
 * Apply a change's cell edits to an open notebook, or refuse it whole when a guard fails.
 * Sources are hashed first, then checked again unchanged and edited synchronously (one step
 * of the notebook's undo of its own), so nothing the person types can slip in between.
 */
async function applyGuarded(notebook: LiveNotebook, change: ILivePlan): Promise<IApplied | { stale: string }> {
  const seen = await checkGuards(notebook, change.guards);
  if (!(seen instanceof Map)) {
    return seen;
  }
  for (const [id, source] of seen) {
    const at = indexOf(notebook, id);
    if (at < 0 || notebook.cells[at].getSource() !== source) {
      return { stale: id }; // typed while the hashes were computed
    }
  }
  const before = cellsBefore(notebook, change.ops);
  const undo = notebook.undoManager ?? null;
  undo?.stopCapturing(); // not merged into the person's last typing
  const depth = undo?.undoStack.length ?? 0;
  // One transaction per edit: the notebook's cell list follows its shared array only when a
  // transaction ends, so a second structural edit in the same one would find cells by stale
  // indices. The undo manager merges them into one step (they follow one another at once,
  // with no await in between, so nothing the person types comes between them either).
  for (const op of change.ops) {
    notebook.transact(() => applyOp(notebook, op), true);
  }
  undo?.stopCapturing(); // nor the person's next typing into it
  const step = undo && undo.undoStack.length > depth ? undo.undoStack[undo.undoStack.length - 1] : null;
  return { before, step };
}

/**
 * Apply a change's cell edits to an open notebook, or refuse it whole: each guarded cell must
 * still be there with the source the preview saw (other cells may have changed freely).
 */
export async function applyLiveChange(notebook: LiveNotebook, change: ILivePlan): Promise<ILiveAnswer> {
  const applied = await applyGuarded(notebook, change);
  return 'stale' in applied ? { state: 'stale', cell: applied.stale } : { state: 'applied' };
}

/**
 * Apply several changes in their order (the undo of a run: its notebook changes newest first),
 * all or none: each change's guards are checked against what the changes before it leave
 * (their `sources`; a cell they delete is gone), every cell read from a notebook is checked
 * again unchanged, then each notebook's edits are made at once, one step of its undo (one
 * transaction per edit, as {@link applyGuarded} says why). A notebook that is not open here
 * (null) answers `gone`, and nothing is applied.
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
    const undo = notebook.undoManager ?? null;
    undo?.stopCapturing();
    for (const [target, change] of changes) {
      if (target === notebook) {
        for (const op of change.ops) {
          notebook.transact(() => applyOp(notebook, op), true);
        }
      }
    }
    undo?.stopCapturing();
  }
  return { state: 'applied' };
}

/** Approve & Run: the cells whose source the change replaces lose the old source's outputs
 * and execution count in the same step (as the engine's `clear_replaced` plans it). */
export function clearReplaced(plan: ILivePlan): ILivePlan {
  const ops = plan.ops.map(op => {
    if (op.op !== 'set' || !('source' in op.fields)) {
      return op;
    }
    const fields = { ...op.fields };
    if (!('outputs' in fields)) {
      fields.outputs = [];
    }
    if (!('execution_count' in fields)) {
      fields.execution_count = null;
    }
    return { ...op, fields };
  });
  return { ops, guards: plan.guards };
}

/** JSON with sorted keys: two plans compare equal whatever order their keys came in. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v
  );
}

/** Whether the engine sent exactly the edits and guards the page applied first. */
export function sameEdits(a: ILivePlan, b: ILivePlan): boolean {
  return canonical({ ops: a.ops, guards: a.guards }) === canonical({ ops: b.ops, guards: b.guards });
}

/** Finds the shared model of the notebook open at a server path, if it is open here. */
export type FindLiveNotebook = (path: string) => LiveNotebook | null;

/** What the page around the notebooks offers a provisional change. */
export interface ILivePage {
  /** Saves of the notebook at `path` wait until `until` settles. */
  holdSaves(path: string, until: Promise<void>): void;
  /** Whether the notebook at `path` is a collaborative room's document: the server applies
   * changes there itself, so the page never applies one first. */
  shared(path: string): boolean;
}

/** An item as the server names it: enough to tell whether it waits for this page. */
export type LiveItem = Pick<IOperatorItem, 'id' | 'status' | 'live'>;

/** What this page did with the changes it applied, to tell the server. */
export type LiveReport = (update: (answer: IDecideResponse) => void | Promise<void>) => Promise<void>;

/** A change applied at the click on Approve, before the engine's answer. */
interface IProvisional {
  notebook: LiveNotebook;
  plan: ILivePlan;
  applied: IApplied;
  /** The engine routed these very edits to this page: the page answers `applied`. */
  adopted: boolean;
  /** The engine recorded the change: it stays. */
  confirmed: boolean;
  /** Settles once the page has told the engine (adopted changes). */
  reported: Promise<void>;
  report: () => void;
  /** Lets the notebook's saves go on. */
  release: () => void;
}

/** Carries out, once per page, the changes the server sent to notebooks open here. */
export class LiveChanges {
  private _started = new Set<string>();
  private _provisional = new Map<string, IProvisional>();

  constructor(
    private _client: OperatorClient,
    private _find: FindLiveNotebook,
    private _page?: ILivePage
  ) {}

  /**
   * At the click on Approve: apply the pending change's planned edits (`item.plan`) to the
   * notebook open here at once, when every guard holds, as one step of its undo; its saves
   * wait until {@link settle}. True when applied. Nothing is applied for an edited approval,
   * a notebook not open here or in a collaborative room, or a failed guard (the engine
   * refuses the change as stale, as it would have).
   */
  async applyFirst(session: string, item: IOperatorItem, docPath: (path: string | null) => string | null, andRun = false): Promise<boolean> {
    const key = `${session}:${item.id}`;
    const path = item.plan && item.status === 'pending' ? docPath(item.path) : null;
    if (!item.plan || !path || this._provisional.has(key) || this._started.has(key) || this._page?.shared(path)) {
      return false;
    }
    const notebook = this._find(path);
    if (!notebook) {
      return false;
    }
    const plan = andRun ? clearReplaced(item.plan) : item.plan;
    let applied: IApplied | { stale: string };
    try {
      applied = await applyGuarded(notebook, plan);
    } catch {
      return false; // the engine's answer is handled as without a provisional change
    }
    if ('stale' in applied) {
      return false;
    }
    let release = (): void => undefined;
    const until = new Promise<void>(resolve => (release = resolve));
    let report = (): void => undefined;
    const reported = new Promise<void>(resolve => (report = resolve));
    this._provisional.set(key, {
      notebook,
      plan,
      applied,
      adopted: false,
      confirmed: false,
      reported,
      report,
      release
    });
    this._page?.holdSaves(path, until);
    return true;
  }

  /**
   * The decision of an item is over (answered, reported, or failed): a change applied first
   * stays only when the engine confirmed it; otherwise its cells are put back. Saves go on.
   */
  async settle(session: string, id: string): Promise<void> {
    const key = `${session}:${id}`;
    const provisional = this._provisional.get(key);
    if (!provisional) {
      return;
    }
    if (provisional.adopted) {
      await provisional.reported;
    }
    this._provisional.delete(key);
    if (!provisional.confirmed) {
      this._takeBack(provisional);
    }
    provisional.release();
  }

  private _takeBack(provisional: IProvisional): void {
    const { notebook, applied } = provisional;
    restoreCells(notebook, applied.before);
    const stack = notebook.undoManager?.undoStack;
    const at = stack && applied.step !== null ? stack.indexOf(applied.step) : -1;
    if (stack && at >= 0) {
      stack.splice(at, 1); // no undo step left for a change that never was
    }
  }

  /**
   * Apply now each item waiting for a page (the page that decided applies the edits its
   * decision's answer carries, before anything else is drawn); the returned report tells the
   * server, whose answers go to `update`. The server stays the authority: the item ends only
   * with that report, and a stale guard refuses the whole change here as there. A change the
   * page applied first is not applied again when the engine sent exactly its edits; any other
   * answer puts its cells back before it is handled.
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
      const first = this._provisional.get(key);
      const waits = item.status === 'running' && !!live && live.route === 'page' && live.state === 'waiting';
      if (first && !first.adopted && item.status !== 'pending') {
        if (waits && !this._started.has(key) && sameEdits(live, first.plan)) {
          first.adopted = true;
          this._started.add(key);
          answers.push([item.id, { state: 'applied' }]);
          continue;
        }
        this._provisional.delete(key);
        this._takeBack(first);
        first.release();
      }
      if (!waits || this._started.has(key)) {
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
        const first = this._provisional.get(`${session}:${id}`);
        let reply: IDecideResponse;
        try {
          reply = await this._client.live(session, id, answer);
          if (first?.adopted) {
            first.confirmed = reply.item?.live?.state === 'applied';
          }
        } finally {
          first?.report();
        }
        await update(reply);
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
