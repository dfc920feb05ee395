/**
 * The panel's side of keeping open documents in step (opendocs.ts): where the paths of the
 * session on display are on the server, the check for unsaved edits before approving, and
 * the reload after a change, for the reply's cards and for Ask mode's. Apart from panel.ts
 * because all of it only needs the workspaces, the place on display and the cards.
 */
import type { IAskHost } from './askturn';
import type { LiveRuns } from './runs';
import { afterChange, beforeApproving, IPanelView, OpenDocuments, serverPath } from './opendocs';
import { IOperatorItem, IWorkspace } from './types';

/** The workspace (with session and subfolder, when a session is on display) the panel shows. */
export interface IShownPlace {
  workspace: string;
  session?: string;
  folder?: string | null;
}

/** Open documents as the panel's approvals, undo and redo touch them. */
export class PanelDocuments {
  constructor(
    /** Documents open in this page that approved changes, undo and redo keep up to date. */
    readonly open: OpenDocuments,
    private _workspaces: () => readonly IWorkspace[],
    private _shown: () => IShownPlace,
    private _cardNode: (index: number) => HTMLElement | null
  ) {}

  /** A path of the session on display, relative to the server's root (open documents). */
  docPath(path: string | null): string | null {
    const shown = this._shown();
    return serverPath(this._workspaces(), shown.workspace, shown.folder, path);
  }

  /** The panel as open-document handling sees it (see opendocs.ts). */
  get view(): IPanelView {
    return {
      docPath: path => this.docPath(path),
      cardNode: index => this._cardNode(index)
    };
  }

  /** The open documents' content before approving `items`, or null: one has unsaved edits. */
  beforeApproving(items: readonly IOperatorItem[]): Promise<Map<string, string> | null> {
    return beforeApproving(this.open, this.view, items);
  }

  /** Reload the open documents these (changed) items wrote on disk. */
  afterChange(items: readonly IOperatorItem[], before?: Map<string, string>): Promise<void> {
    return afterChange(this.open, this.view, items, before);
  }

  /** What Ask mode needs of the panel: its turns name their own workspace and cards. */
  askHost(runs: LiveRuns): IAskHost {
    const docPath = (workspace: string, path: string | null) =>
      serverPath(this._workspaces(), workspace, null, path);
    return {
      runs,
      docPath,
      beforeApproving: (workspace, items, cardNode) =>
        beforeApproving(this.open, { docPath: path => docPath(workspace, path), cardNode }, items),
      afterChange: (workspace, items, before) =>
        afterChange(this.open, { docPath: path => docPath(workspace, path), cardNode: () => null }, items, before)
    };
  }
}
