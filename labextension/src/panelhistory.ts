/**
 * Undo and redo from the panel, and its History section (history.ts draws it): an undo or
 * redo of a notebook open in this page is applied to that notebook (the server sends its cell
 * edits; livecells.ts); of any other open document it is refused while the document has
 * unsaved edits, and afterwards the document is reloaded. Then the cards, the results and the
 * history show what is true now. Apart from panel.ts because it needs of the panel only what `IHistoryHost` lists.
 */
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { OperatorClient } from './client';
import { HistoryView, RebuildAction } from './history';
import { applyLiveChange, applyLiveChanges, ILiveAnswer, LiveNotebook } from './livecells';
import { dirtyMessage, IOpenCheck, notReloadedMessage } from './opendocs';
import { PanelControls, plainError } from './panelcontrols';
import { IShownPlace, PanelDocuments } from './paneldocs';
import { IHistoryEntry, ILiveChange } from './types';

/** What undo, redo and the History section need of the panel. */
export interface IHistoryHost {
  readonly client: OperatorClient;
  readonly docs: PanelDocuments;
  /** The workspace (and session, subfolder) whose changes are undone and listed. */
  shown(): IShownPlace;
  /** Run an action as the panel's one request at a time (a failure is shown in the panel). */
  request(action: () => Promise<void>): Promise<void>;
  /** Where errors and what an undo or redo did are shown. */
  readonly controls: PanelControls;
  /** Bring the session on display up to date with the server (an undo or redo changed it). */
  resync(): Promise<void>;
}

/** The History section, and undo and redo of the workspace on display. */
export class PanelHistory {
  private _view: HistoryView;

  constructor(
    private _host: IHistoryHost,
    languages: IEditorLanguageRegistry | null,
    rebuild: RebuildAction
  ) {
    this._view = new HistoryView(
      (entry, action) => void this.undoOrRedo(entry, action),
      () => void this.refresh(),
      languages,
      rebuild,
      (run, confirmed) => void this.undoRun(run, confirmed)
    );
  }

  get node(): HTMLDetailsElement {
    return this._view.node;
  }

  /** Whether the section is open (only then is it kept up to date). */
  get isOpen(): boolean {
    return this._view.isOpen;
  }

  /** Undo or redo one history entry (the latest change when `entry` is null). */
  async undoOrRedo(entry: IHistoryEntry | null, action: 'undo' | 'redo'): Promise<void> {
    const host = this._host;
    const workspace = host.shown().workspace;
    const target = entry ? host.docs.docPath(entry.path) : null;
    // A notebook open here is undone in the page itself (livecells.ts), a document in a
    // collaborative room in the room: never held.
    const open: IOpenCheck = host.docs.open.isShared(target)
      ? { state: 'closed' }
      : await host.docs.open.check(target);
    if (target && open.state === 'edited') {
      host.controls.showError(dirtyMessage(target, action));
      return;
    }
    await host.request(async () => {
      const call = action === 'undo' ? host.client.undo : host.client.redo;
      const { session, folder } = host.shown();
      let answer;
      try {
        answer = await call.call(host.client, workspace, entry?.entry_id, session, folder);
        if (answer.live) {
          // The server sent the undo (redo) to this page's open notebook: apply, then answer.
          const notebook = host.docs.open.liveNotebook(host.docs.docPath(answer.live.notebook));
          const applied: ILiveAnswer = notebook ? await applyLiveChange(notebook, answer.live) : { state: 'gone' };
          answer = await call.call(host.client, workspace, answer.live.entry_id, session, folder, applied);
        }
      } finally {
        // Whatever happened, cards, results and history show what is true now.
        await this._refreshAfterChange();
      }
      const done = answer.entry;
      const where = done.path ? ` of ${done.path}` : '';
      const verb = action === 'undo' ? 'Undid' : 'Redid';
      host.controls.showNote(`${verb} ${done.action}${where} (${done.command_id}).`);
      const changed = host.docs.docPath(done.path);
      if (done.route === 'room' || host.docs.open.isLiveNotebook(changed)) {
        return; // changed in the open notebook or the room itself: nothing to reload
      }
      const same = changed === target ? open.cells : undefined;
      if ((await host.docs.open.reload(changed, same)) === 'edited' && changed) {
        host.controls.showError(notReloadedMessage(changed));
      }
    });
  }

  /**
   * "Undo this run": first show what it restores (and the cell runs it cannot take back);
   * once confirmed, undo every change of the run in one step. The server refuses the run as
   * a whole when any of its files changed since; an open document with unsaved edits
   * refuses it here, as for a single undo.
   */
  async undoRun(run: string, confirmed: boolean): Promise<void> {
    const host = this._host;
    const { workspace, folder } = host.shown();
    await host.request(async () => {
      try {
        await this._undoRun(workspace, folder, run, confirmed);
      } catch (reason) {
        this._view.showRunError(run, plainError(reason));
        throw reason; // the panel shows it too
      }
    });
  }

  private async _undoRun(workspace: string, folder: string | null | undefined, run: string, confirmed: boolean): Promise<void> {
    const host = this._host;
    const preview = await host.client.undoRun(workspace, run, folder, true);
    if (!confirmed) {
      this._view.showRunPreview(run, preview.entries, preview.executions);
      return;
    }
    const targets = [...new Set(preview.entries.map(e => host.docs.docPath(e.path)))];
    for (const target of targets) {
      if (target && !host.docs.open.isShared(target) && (await host.docs.open.check(target)).state === 'edited') {
        host.controls.showError(dirtyMessage(target, 'undo'));
        this._view.showRunError(run, dirtyMessage(target, 'undo'));
        return;
      }
    }
    let answer;
    try {
      answer = await host.client.undoRun(workspace, run, folder);
      if (answer.live?.length) {
        // The run changed notebooks open here: this page restores their cells (all or none),
        // then the server undoes the files.
        const changes = answer.live.map((change): [LiveNotebook | null, ILiveChange] => [
          host.docs.open.liveNotebook(host.docs.docPath(change.notebook)),
          change
        ]);
        const applied: ILiveAnswer = await applyLiveChanges(changes);
        answer = await host.client.undoRun(workspace, run, folder, false, applied);
      }
    } finally {
      await this._refreshAfterChange();
    }
    const count = answer.entries.length === 1 ? '1 change' : `${answer.entries.length} changes`;
    host.controls.showNote(`Undid ${count} of run ${run.slice(0, 8)}, newest first.`);
    for (const target of targets) {
      if (host.docs.open.isLiveNotebook(target)) {
        continue; // changed in the open notebook itself: nothing to reload
      }
      if ((await host.docs.open.reload(target)) === 'edited' && target) {
        host.controls.showError(notReloadedMessage(target));
      }
    }
  }

  /** Show the history of the workspace on display. */
  async refresh(): Promise<void> {
    const shown = this._host.shown();
    if (!shown.workspace) {
      return;
    }
    try {
      const answer = await this._host.client.history(shown.workspace, shown.folder);
      this._view.render(answer.history, answer.executions ?? []);
    } catch (reason) {
      this._host.controls.showError(plainError(reason));
    }
  }

  dispose(): void {
    this._view.dispose();
  }

  private async _refreshAfterChange(): Promise<void> {
    await this._host.resync();
    if (this.isOpen) {
      await this.refresh();
    }
  }
}
