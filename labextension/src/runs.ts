/**
 * The panel's side of a cell run: once the server says an item is `running`
 * (the person approved it, or Approve & Run), this page runs the cell in the open
 * notebook (liverun.ts) and posts the outcome back; the server then tells the
 * model. Shared by the reply cards and Ask mode.
 *
 * A run is carried out once per page: an item this page did not see start (a page
 * reloaded while a cell ran) is not run again. While its runs last, the page tells the
 * server every few seconds that it still holds them; a run whose page went away without a
 * word ends on the server as interrupted, and a reloaded page shows that once it happened
 * ({@link LiveRuns.awaitLost}).
 */
import { NotebookPanel } from '@jupyterlab/notebook';

import { OperatorClient } from './client';
import type { LiveChanges, LiveItem, LiveReport } from './livecells';
import { INotebookFinder, kernelIdentity, runAtPath } from './liverun';
import { IDecideResponse, IOperatorItem } from './types';

/** Maps an item's notebook path (workspace-relative) to its path on the server. */
export type DocPath = (path: string | null) => string | null;

/** How often a page says it still runs its cells (the server's lease is much longer). */
export const ALIVE_MS = 3000;

export class LiveRuns {
  private _started = new Set<string>();
  /** Runs this page started that have no outcome yet: session and item of each. */
  private _holding = new Map<string, [string, string]>();
  private _alive: number | null = null;
  private _expected = new Map<string, string | null>();
  /** Runs go one after another (a run and its save end before the next starts: two saves
   * at once make JupyterLab ask whether to overwrite the file). */
  private _queue: Promise<unknown> = Promise.resolve();

  constructor(
    private _client: OperatorClient,
    private _find: INotebookFinder,
    private _findOpen: (path: string) => NotebookPanel | null,
    private _unedited?: (path: string) => Promise<boolean>,
    /** Applies the approved changes sent to notebooks open here (before any cell runs). */
    private _live?: LiveChanges
  ) {
    // A reload or a closed tab: the server hears it now rather than once the lease lapses.
    window.addEventListener('pagehide', () => {
      for (const [session, id] of this._holding.values()) {
        this._client.executionGone(session, id);
      }
    });
  }

  /**
   * Note the kernel a pending run card is shown with: approving it later runs only in that
   * kernel (a restart in between makes it stale).
   */
  async shown(session: string, item: IOperatorItem, docPath: DocPath): Promise<void> {
    const key = `${session}:${item.id}`;
    if (item.status !== 'pending' || !item.execution || this._expected.has(key)) {
      return;
    }
    const path = docPath(item.execution.request.notebook);
    const panel = path ? this._findOpen(path) : null;
    this._expected.set(key, panel ? await kernelIdentity(panel) : null);
  }

  /**
   * Apply at once the changes a decision's answer sends to notebooks open here (no wait for
   * the next look at the session); the returned report tells the server what was done.
   */
  async applyLive(session: string, items: readonly LiveItem[], docPath: DocPath): Promise<LiveReport> {
    return this._live ? this._live.applyNow(session, items, docPath) : async () => undefined;
  }

  /**
   * At the click on Approve: apply the pending change to the notebook open here before the
   * engine answers (`LiveChanges.applyFirst`); {@link settle} ends it once the decision is over.
   */
  applyFirst(session: string, item: IOperatorItem, docPath: DocPath, andRun = false): Promise<boolean> {
    return this._live ? this._live.applyFirst(session, item, docPath, andRun) : Promise.resolve(false);
  }

  /** The decision of an item is over: a change applied first stays only if the engine confirmed it. */
  settle(session: string, id: string): Promise<void> {
    return this._live ? this._live.settle(session, id) : Promise.resolve();
  }

  /** Run what this page saw start; `update` receives each server answer. */
  async carryOut(
    session: string,
    items: readonly IOperatorItem[],
    docPath: DocPath,
    update: (answer: IDecideResponse) => void | Promise<void>
  ): Promise<void> {
    await this._live?.carryOut(session, items, docPath, update);
    for (const item of items) {
      const key = `${session}:${item.id}`;
      if (item.status !== 'running' || !item.execution || this._started.has(key)) {
        continue;
      }
      this._started.add(key);
      this._hold(key, session, item.id);
      const request = item.execution.request;
      const job = this._queue.then(() =>
        runAtPath(
          this._find,
          docPath(request.notebook),
          request,
          this._expected.get(key) ?? null,
          this._unedited
        )
      );
      this._queue = job.catch(() => undefined);
      let outcome;
      try {
        outcome = await job;
      } finally {
        this._release(key);
      }
      await update(await this._client.execution(session, item.id, outcome));
    }
  }

  /**
   * Until no cell run of `items` that this page did not start is left running, ask the
   * server again every few seconds (`refresh`): a reloaded page shows a run lost with its
   * old page as interrupted (or with its result, when that page answered first).
   */
  async awaitLost(
    session: string,
    items: readonly IOperatorItem[],
    refresh: () => Promise<readonly IOperatorItem[] | null>
  ): Promise<void> {
    const lost = (list: readonly IOperatorItem[]) =>
      list.some(i => i.status === 'running' && !!i.execution && !this.started(session, i));
    let now: readonly IOperatorItem[] | null = items;
    while (now && lost(now)) {
      await new Promise(resolve => window.setTimeout(resolve, ALIVE_MS));
      now = await refresh();
    }
  }

  /** Note a run this page holds, and keep telling the server while any is held. */
  private _hold(key: string, session: string, id: string): void {
    this._holding.set(key, [session, id]);
    void this._client.executionAlive(session, id).catch(() => undefined);
    if (this._alive === null) {
      this._alive = window.setInterval(() => this._sayAlive(), ALIVE_MS);
    }
  }

  private _release(key: string): void {
    this._holding.delete(key);
    if (!this._holding.size && this._alive !== null) {
      window.clearInterval(this._alive);
      this._alive = null;
    }
  }

  private _sayAlive(): void {
    for (const [session, id] of this._holding.values()) {
      // A refusal (the run ended) needs nothing: the outcome's post gets its answer.
      void this._client.executionAlive(session, id).catch(() => undefined);
    }
  }

  /** Whether this page started the run of an item (else a reload lost it). */
  started(session: string, item: IOperatorItem): boolean {
    return this._started.has(`${session}:${item.id}`);
  }
}
