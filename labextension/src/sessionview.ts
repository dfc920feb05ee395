/**
 * The session on display in the panel: its run state and item cards, the decisions taken on
 * them, and what follows each answer of the server (cards and results updated, open documents
 * reloaded, cell runs carried out). The session shown is remembered, so a page reload reopens
 * it. Apart from panel.ts, which scans replies and makes one request at a time, so that a
 * decision's path from click to reload reads in one place.
 */
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { OperatorClient, OperatorRequestError } from './client';
import { endedMessage } from './dialect';
import { ItemCards } from './itemcards';
import { PanelControls } from './panelcontrols';
import { PanelDocuments } from './paneldocs';
import type { LiveReport } from './livecells';
import { LiveRuns } from './runs';
import { RunState } from './state';
import { Decision, IAnsweredItem, IDecideResponse, IOperatorItem, IScanResponse } from './types';
import { remember, remembered } from './workspaces';
import { WorkspaceSelect } from './workspaceselect';

/** What the session on display needs of the panel. */
export interface ISessionHost {
  readonly client: OperatorClient;
  readonly docs: PanelDocuments;
  readonly runs: LiveRuns;
  /** Where the run's status, results and notes are shown. */
  readonly controls: PanelControls;
  /** Names a session's folder on its cards, and shows its workspace as the chosen one. */
  readonly workspaces: WorkspaceSelect;
  /** Run an action as the panel's one request at a time (a failure is shown in the panel). */
  request(action: () => Promise<void>): Promise<void>;
}

/** The run on display and its cards. */
export class SessionView {
  readonly cards: ItemCards;
  private _state: RunState | null = null;

  constructor(
    private _host: ISessionHost,
    languages: IEditorLanguageRegistry | null
  ) {
    this.cards = new ItemCards((i, d, r, c, run) => void this.decide(i, d, r, c, run), languages);
  }

  /** The run on display, if any. */
  get state(): RunState | null {
    return this._state;
  }

  /** Show a scanned (or reopened) session, and remember it for a page reload. */
  show(scan: IScanResponse): void {
    const { client, docs, runs, workspaces } = this._host;
    this.cards.clear();
    const state = (this._state = new RunState(scan));
    remember(scan.session);
    if (scan.workspace && workspaces.value !== scan.workspace) {
      workspaces.value = scan.workspace;
    }
    const where = workspaces.where(scan.workspace, scan.folder);
    // Cards of the session fetch the text to edit from it (editor.ts).
    const loadContent = (item: IOperatorItem) => client.content(scan.session, item.id);
    this.cards.show(state.items, where, loadContent, state.label);
    for (const item of state.items) {
      void runs.shown(scan.session, item, path => docs.docPath(path));
    }
    this._host.controls.render(state);
  }

  /** Show the session this page had open before a reload (or a server restart), if any. */
  async reattach(): Promise<void> {
    const session = remembered();
    if (!session || this._state) {
      return;
    }
    try {
      this.show(await this._host.client.session(session));
      this._host.controls.showNote('Reopened the session this page had before it was reloaded.');
      const state = this._state as RunState | null;
      if (state) {
        // A cell the old page was running: the server ends it once that page is gone.
        void this._host.runs.awaitLost(session, state.items, async () => {
          if (this._state !== state) {
            return null; // another session is on display now
          }
          await this.resync();
          return state.items;
        });
      }
    } catch (reason) {
      remember(null); // expired or unknown: start afresh
      this._host.controls.showNote(endedMessage(reason) ?? '');
    }
  }

  /** Approve or reject one pending item (`content`: approve the person's edit of it). */
  async decide(
    item: IOperatorItem,
    decision: Decision,
    reason?: string,
    content?: string,
    andRun = false
  ): Promise<void> {
    const state = this._state;
    const before = decision === 'approve' ? await this._host.docs.beforeApproving([item]) : new Map();
    if (!state || !before) {
      return;
    }
    // The page applies an approved notebook change first (livecells.ts): it shows at the
    // click, not after the round trip; the engine's answer confirms it or puts it back.
    const docPath = (path: string | null) => this._host.docs.docPath(path);
    if (decision === 'approve' && content === undefined) {
      await this._host.runs.applyFirst(state.session, item, docPath, andRun);
    }
    let report: LiveReport | null = null;
    try {
      await this._host.request(async () => {
        let answer: IDecideResponse;
        try {
          answer = await this._host.client.decide(state.session, item.id, decision, reason, content, andRun);
        } catch (reason) {
          if (reason instanceof OperatorRequestError && reason.code === 'already_decided') {
            // decided elsewhere meanwhile (another page, a client, a rule): the card shows
            // what it is now, not "Waiting for you" beside the refusal
            await this.resync();
          }
          throw reason;
        }
        report = await this._applyLive(state, answer.item ? [answer.item] : []);
        await this._answered(state, answer, before);
      });
      await this._report(state, report);
    } finally {
      await this._host.runs.settle(state.session, item.id);
    }
    await this.carryOutRuns(state);
  }

  /** Approve or reject everything still pending. */
  async decideAll(decision: Decision, reason?: string): Promise<void> {
    const state = this._state;
    if (!state || state.done) {
      return;
    }
    const before = decision === 'approve' ? await this._host.docs.beforeApproving(state.pending) : new Map();
    if (!before) {
      return;
    }
    let report: LiveReport | null = null;
    await this._host.request(async () => {
      const answer = await this._host.client.decideAll(state.session, decision, reason);
      report = await this._applyLive(state, answer.decided ?? []);
      await this._answered(state, answer, before);
    });
    await this._report(state, report);
    await this.carryOutRuns(state);
  }

  /**
   * The edits a decision's answer carries for a notebook open here land in it first, before
   * the cards are drawn again: the change shows as soon as the answer arrives.
   */
  private _applyLive(state: RunState, decided: readonly IAnsweredItem[]): Promise<LiveReport> {
    return this._host.runs.applyLive(state.session, decided, path => this._host.docs.docPath(path));
  }

  /** Tell the server what the page did with the changes {@link _applyLive} applied. */
  private async _report(state: RunState, report: LiveReport | null): Promise<void> {
    await report?.(async answer => this._answered(state, answer));
  }

  /** Run the cells the server says are running (approved here, or by an allowing rule). */
  async carryOutRuns(state: RunState): Promise<void> {
    const docPath = (path: string | null) => this._host.docs.docPath(path);
    await this._host.runs.carryOut(state.session, state.items, docPath, async answer => this._answered(state, answer));
  }

  /** Bring the session up to date with the server (after an undo or redo changed it). */
  async resync(): Promise<void> {
    const state = this._state;
    if (state) {
      try {
        this._apply(state.update(await this._host.client.session(state.session)));
      } catch {
        // The session may have expired; the history still tells the truth.
      }
    }
  }

  /** Reload the open documents the items at these indices just changed on disk. */
  syncOpenDocuments(indices: readonly number[], before?: Map<string, string>): Promise<void> {
    const items = indices.map(i => this._state?.item(i)).filter((i): i is IOperatorItem => !!i);
    return this._host.docs.afterChange(items, before);
  }

  private async _answered(state: RunState, answer: IDecideResponse, before?: Map<string, string>): Promise<void> {
    await this.syncOpenDocuments(this._apply(state.update(answer)), before);
  }

  /** Show what the server now says of these items; the indices are passed on for chaining. */
  private _apply(changed: number[]): number[] {
    const state = this._state;
    if (!state) {
      return changed;
    }
    this.cards.update(state, changed);
    this._host.controls.render(state);
    return changed;
  }
}
