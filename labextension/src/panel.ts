/**
 * The Operator side panel: paste a reply (or take the active cell's), run it,
 * review every proposed change as a diff, decide, and copy the results back.
 *
 * The panel coordinates: it scans replies and makes one request at a time. Its parts live
 * apart: the workspace select (workspaceselect.ts), the header, reply box, messages and
 * results (panelcontrols.ts), the session on display with its cards and decisions
 * (sessionview.ts, itemcards.ts), open documents kept in step (paneldocs.ts), and undo,
 * redo and the History section (panelhistory.ts), and the proposals of MCP clients that wait
 * (proposals.ts).
 */
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ISignal, Signal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

import { AskView } from './ask';
import { threadKey } from './askthread';
import { saveDraft } from './draft';
import { OperatorClient, OperatorRequestError } from './client';
import { DialectChoice, dialectRow } from './dialect';
import { fixRequest, notebookInWorkspace } from './fixrequest';
import { button, el } from './dom';
import { operatorIcon } from './icon';
import { LiveChanges } from './livecells';
import { OpenDocuments, ListWidgets, ReadDocument } from './opendocs';
import { INotebookFinder } from './liverun';
import { copyText, PanelControls, plainError } from './panelcontrols';
import { IShownPlace, PanelDocuments } from './paneldocs';
import { PanelHistory } from './panelhistory';
import { ProposalWatch, sourceLabel } from './proposals';
import { LiveRuns } from './runs';
import { holdSaves } from './savegate';
import { SessionView } from './sessionview';
import { RunState } from './state';
import { WorkspaceSelect } from './workspaceselect';
import { Decision, IHistoryEntry, IOperatorItem, IPendingSession } from './types';

export { SESSION_KEY } from './workspaces';

type Message = Parameters<Widget['processMessage']>[0];

/** Options of {@link OperatorPanel.run}. */
export interface IRunOptions {
  /** A folder relative to the server's root (a notebook's own folder): the paths of the
   * reply are taken from there, as the notebook's kernel takes them. */
  folder?: string;
}

/** The panel's DOM id (also used by commands and tests). */
export const PANEL_ID = 'jupyter-operator-panel';

const CAPTION = 'Operator: review and approve file operations';
/** The key of the panel's title dataset that counts the waiting proposals on its tab. */
const BADGE_KEY = 'operator-proposals';

/** The side panel widget. */
export class OperatorPanel extends Widget {
  private _client: OperatorClient;
  private _languages: IEditorLanguageRegistry | null;
  private _busy = false;
  /** Ask mode: the server's model runs a task (see ask.ts). */
  readonly ask: AskView;
  /** Cell runs this page carries out in open notebooks (liverun.ts). */
  readonly runs: LiveRuns;

  private _workspaces: WorkspaceSelect;
  private _dialect: HTMLSelectElement;
  private _controls: PanelControls;
  /** The run on display, its cards and decisions. */
  private _session: SessionView;
  /** Documents open in this page that approved changes, undo and redo keep up to date. */
  private _docs: PanelDocuments;
  private _history: PanelHistory;
  /** Proposals of MCP clients that wait for a decision (proposals.ts). */
  private _proposals: ProposalWatch;
  /** Proposals that arrived while a request was in progress, shown once it ends. */
  private _arrivedWhileBusy: IPendingSession[] = [];
  /** Those of them not on display, each a button that shows it. */
  private _waiting: HTMLElement;
  private _proposalsArrived = new Signal<this, IPendingSession[]>(this);

  constructor(options: {
    client: OperatorClient;
    languages?: IEditorLanguageRegistry | null;
    tracker?: INotebookTracker | null;
    /** Reads a file's saved content (to tell the person's edits from kernel metadata). */
    readDocument?: ReadDocument | null;
    /** The main area's widgets, where open text files are found (notebooks: `tracker`). */
    mainWidgets?: ListWidgets | null;
    /** Opens a notebook (server path) for a cell run, or finds it open. */
    openNotebook?: INotebookFinder | null;
  }) {
    super();
    this._client = options.client;
    this._languages = options.languages ?? null;
    this._workspaces = new WorkspaceSelect(this._client, () => {
      if (this._history.isOpen) {
        void this.refreshHistory();
      }
    });
    this._docs = new PanelDocuments(
      new OpenDocuments(options.tracker ?? null, options.readDocument ?? null, options.mainWidgets ?? null),
      () => this._workspaces.list,
      () => this._shown(),
      index => this._session.cards.cardNode(index)
    );
    const tracker = options.tracker ?? null;
    const findOpen = (path: string): NotebookPanel | null =>
      tracker?.find(panel => panel.context.path === path) ?? null;
    this.runs = new LiveRuns(
      this._client,
      options.openNotebook ?? (async path => findOpen(path)),
      findOpen,
      async path => (await this._docs.open.check(path)).state !== 'edited',
      new LiveChanges(this._client, path => findOpen(path)?.content.model?.sharedModel ?? null, {
        holdSaves: (path, until) => {
          const context = findOpen(path)?.context;
          if (context) {
            holdSaves(context, until);
          }
        },
        shared: path => !!findOpen(path)?.context.model.collaborative
      })
    );
    this.id = PANEL_ID;
    this.addClass('jp-Operator-panel');
    this.title.icon = operatorIcon;
    this.title.caption = CAPTION;

    const dialect = dialectRow();
    this._dialect = dialect.select;
    const workspace = () => this._workspaces.value;
    this.ask = new AskView(this._client, this._languages, workspace, this._docs.askHost(this.runs));
    this._controls = new PanelControls({
      copySpec: () => void this.copySpec(),
      run: () => void this.run(),
      decideAll: decision => void this.decideAll(decision),
      undoLast: () => void this.undoLast()
    });
    // What the session on display and the history both need of the panel.
    const parts = {
      client: this._client,
      docs: this._docs,
      controls: this._controls,
      request: (action: () => Promise<void>) => this._request(action)
    };
    this._session = new SessionView({ ...parts, runs: this.runs, workspaces: this._workspaces }, this._languages);
    this._history = new PanelHistory(
      { ...parts, shown: () => this._shown(), resync: () => this._session.resync() },
      this._languages,
      notebook => void this.rebuildState(notebook)
    );

    this._waiting = el('div', 'jp-Operator-proposals');
    this._waiting.setAttribute('role', 'status');
    this._waiting.hidden = true;
    this._proposals = new ProposalWatch(
      () => this._client.sessions(),
      (arrived, waiting) => this._onProposals(arrived, waiting)
    );

    this.node.append(
      this._controls.header,
      this._waiting,
      this._workspaces.row,
      this._workspaces.outOfReach,
      dialect.row,
      this.ask.node,
      ...this._controls.aboveCards,
      this._session.cards.node,
      this._controls.results,
      this._history.node
    );

    // Proposals are looked for once the session of before a reload is back on display.
    void this.refreshWorkspaces()
      .then(() => this.reattach())
      .then(() => this._proposals.start());
    void this.showOutOfReach();
  }

  /** List what no workspace may reach, under the workspace selector. */
  showOutOfReach(): Promise<void> {
    return this._workspaces.showOutOfReach();
  }

  /** The run on display, if any. */
  get state(): RunState | null {
    return this._session.state;
  }

  /** Whether any item waits for a decision. */
  get hasPending(): boolean {
    return !!this.state && !this.state.done;
  }

  /** New proposals of MCP clients, oldest first, once each (a notification tells of them). */
  get proposalsArrived(): ISignal<this, IPendingSession[]> {
    return this._proposalsArrived;
  }

  /** Proposals of MCP clients that wait for a decision, newest first (as of the last look). */
  get waitingProposals(): readonly IPendingSession[] {
    return this._proposals.waiting;
  }

  /** Show a session (a proposal of an MCP client) with its cards. */
  async showSession(session: string): Promise<void> {
    await this._request(async () => {
      this._session.show(await this._client.session(session));
    });
    this._drawWaiting();
  }

  /** Whether there are results to copy. */
  get hasResults(): boolean {
    return !!this.state?.resultsText;
  }

  /** Put text in the input box; `origin` says where it came from. */
  setText(text: string, origin?: string): void {
    this._controls.setText(text, origin);
  }

  /** Load the workspaces (names and folders) from the server. */
  async refreshWorkspaces(): Promise<void> {
    try {
      await this._workspaces.refresh();
    } catch (reason) {
      this.showError(plainError(reason));
    }
  }

  /** Show the session this page had open before a reload (or a server restart), if any. */
  reattach(): Promise<void> {
    return this._session.reattach();
  }

  /** The folder of a workspace (and subfolder) as shown on cards, relative to the server root. */
  where(workspace: string, folder?: string | null): string {
    return this._workspaces.where(workspace, folder);
  }

  /** Scan the text in the input box (or the given text) and show its items. */
  async run(text?: string, options: IRunOptions = {}): Promise<void> {
    const input = this._controls.input;
    const reply = text ?? input.value;
    if (text !== undefined) {
      input.value = text;
    }
    saveDraft(reply); // at once: a reload right after Run must not lose the reply to the debounce
    if (!reply.trim()) {
      this.showError('Paste a reply with OPERATOR_CMD blocks first.');
      return;
    }
    let workspace = this._workspaces.value || null;
    let folder: string | null = null;
    if (options.folder !== undefined) {
      // Take the reply's paths from the given folder (a notebook's own), in the workspace
      // that holds it most closely, so the panel and the notebook's kernel agree.
      const picked = this._workspaces.pick(options.folder);
      if (!picked) {
        this.showError(
          `The notebook's folder (${options.folder || '.'}) is in no configured workspace.`
        );
        return;
      }
      ({ workspace, folder } = picked);
    }
    await this._request(async () => {
      const dialect = this._dialect.value as DialectChoice;
      const scan = await this._client.scan(reply, workspace, folder, dialect);
      // A write that changes nothing is settled by the engine ("No change"): nothing to ask.
      this._session.show(scan);
      // Changes a rule applied at once are on disk already: bring open documents up to date.
      await this._session.syncOpenDocuments(this.state?.items.map(i => i.index) ?? []);
    });
    if (this.state) {
      await this._session.carryOutRuns(this.state);
    }
  }

  /**
   * "Fix with Operator": start an Ask run on the error of cell `index` of the notebook at
   * `path` (server-relative), in the workspace that holds the notebook; `cells` are the
   * notebook's nbformat cells as open.
   */
  async fixError(path: string, cells: Parameters<typeof fixRequest>[1], index: number): Promise<void> {
    const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    const picked = this._workspaces.pick(folder);
    if (!picked) {
      this.showError(`The notebook's folder (${folder || '.'}) is in no configured workspace.`);
      return;
    }
    const fix = fixRequest(notebookInWorkspace(path, picked.folder), cells, index);
    if (!fix) {
      this.showError('This cell has no error to fix (run it first).');
      return;
    }
    this._workspaces.value = picked.workspace; // the run's cards and paths are taken there
    this.ask.node.open = true;
    await this.ask.ask(undefined, fix);
  }

  /** The notebook at `path` (server-relative) as a path of the workspace on display, or null
   * when that workspace does not hold it (its cells cannot be mentioned there). */
  inShownWorkspace(path: string): string | null {
    const folder = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
    const picked = this._workspaces.pick(folder);
    return picked && picked.workspace === this._workspaces.value ? notebookInWorkspace(path, picked.folder) : null;
  }

  /** The Ask thread of the document at `docPath` (server-relative; null: none) in the
   * workspace on display: one per notebook, one per folder for other files. */
  threadKeyOf(docPath: string | null): string {
    return threadKey(this._workspaces.list, this._workspaces.value, docPath);
  }

  /** Approve or reject one pending item (`content`: approve the person's edit of it). */
  decide(item: IOperatorItem, decision: Decision, reason?: string, content?: string, andRun = false): Promise<void> {
    return this._session.decide(item, decision, reason, content, andRun);
  }

  /** Approve or reject everything still pending. */
  decideAll(decision: Decision, reason?: string): Promise<void> {
    return this._session.decideAll(decision, reason);
  }

  /** Copy the results text to the clipboard. */
  copyResults(): Promise<void> {
    return this._controls.copyResults();
  }

  /** Copy the interface specification (what a model needs to write commands). */
  async copySpec(): Promise<void> {
    await this._request(async () => {
      await copyText(await this._client.spec());
      this._controls.showNote('Interface specification copied.');
    });
  }

  /** Undo the last applied change in the current workspace. */
  async undoLast(): Promise<void> {
    await this.undoOrRedo(null, 'undo');
  }

  /** Undo or redo one history entry (the latest change when `entry` is null). */
  undoOrRedo(entry: IHistoryEntry | null, action: 'undo' | 'redo'): Promise<void> {
    return this._history.undoOrRedo(entry, action);
  }

  /**
   * Propose a Rebuild state for `notebook` (workspace-relative): restart its kernel, then run
   * again the cells the ledger recorded, as one card to approve.
   */
  async rebuildState(notebook: string): Promise<void> {
    const id = `rebuild-${Date.now().toString(36)}`;
    const block = ['OPERATOR_CMD', 'version: 1', `id: ${id}`, 'action: nb.rebuildState', `notebook: ${notebook}`, 'END_OPERATOR_CMD', ''];
    await this.run(block.join('\n'));
  }

  /** The history of the workspace on display. */
  refreshHistory(): Promise<void> {
    return this._history.refresh();
  }

  protected onActivateRequest(): void {
    // Lab activates the panel after a click inside it too: focus stays where the person put it
    // (an edit box, a reason), or keystrokes typed meanwhile would land in the reply box.
    if (!this.node.contains(document.activeElement)) {
      this._controls.input.focus();
    }
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    // The sidebar sizes itself from its widgets' minimum widths only when asked to fit again:
    // ask, so the panel opens at its readable width (CSS) instead of a narrow default.
    this.parent?.fit();
    this.parent?.parent?.fit();
  }

  dispose(): void {
    this._proposals.stop();
    this.ask.dispose();
    this._session.cards.clear();
    this._history.dispose();
    super.dispose();
  }

  /** Show a message in the panel's error area (an empty message hides it). */
  showError(message: string): void {
    this._controls.showError(message);
  }

  private async _request(action: () => Promise<void>): Promise<void> {
    if (this._busy) {
      return;
    }
    this._busy = true;
    this._setBusy(true);
    // A note from an earlier action never stays beside a new result or error.
    this._controls.clearMessages();
    try {
      await action();
    } catch (reason) {
      if (!(reason instanceof OperatorRequestError)) {
        console.error('jupyter-operator:', reason);
      }
      this.showError(plainError(reason));
    } finally {
      this._busy = false;
      this._setBusy(false);
    }
    const arrived = this._arrivedWhileBusy.splice(0);
    if (arrived.length) {
      this._showArrived(arrived);
    }
  }

  private _setBusy(busy: boolean): void {
    this.node.toggleAttribute('aria-busy', busy);
    this._controls.setBusy(busy);
    this._session.cards.setBusy(busy);
  }

  /** What a look for proposals found: list them, count them on the tab, and show the newest
   * arrival at once when nothing else waits on display. */
  private _onProposals(arrived: IPendingSession[], waiting: IPendingSession[]): void {
    this._drawWaiting();
    const count = waiting.length;
    this.title.caption = count ? `${CAPTION} (${count} proposal${count === 1 ? '' : 's'} of MCP clients wait)` : CAPTION;
    // The tab's badge (style/base.css) reads the count from the title's dataset, which also
    // holds the shell's own keys (the tab's data-id). Lumino writes each key as `data-<key>`.
    const { [BADGE_KEY]: _, ...dataset } = this.title.dataset;
    this.title.dataset = count ? { ...dataset, [BADGE_KEY]: String(count) } : dataset;
    if (!arrived.length) {
      return;
    }
    this._proposalsArrived.emit(arrived);
    if (this._busy) {
      // shown once the request in progress ends (the watch reports each arrival only once)
      this._arrivedWhileBusy.push(...arrived);
      return;
    }
    this._showArrived(arrived);
  }

  /** Show a client's new call: its session when on display, else the newest, unless
   * something else waits for the person on display. */
  private _showArrived(arrived: IPendingSession[]): void {
    const shown = this.state?.session;
    if (shown && arrived.some(s => s.session === shown)) {
      // A new call of the client on display: its session now holds one more card.
      void this.showSession(shown);
    } else if (!this.hasPending) {
      void this.showSession(arrived[arrived.length - 1].session);
    }
  }

  /** The waiting proposals not on display, each a button that shows it. */
  private _drawWaiting(): void {
    const shown = this.state?.session;
    const others = this._proposals.waiting.filter(s => s.session !== shown);
    this._waiting.hidden = !others.length;
    this._waiting.replaceChildren();
    if (!others.length) {
      return;
    }
    this._waiting.append(el('span', 'jp-Operator-proposals-title', `Proposals waiting (${others.length}):`));
    for (const proposal of others) {
      const changes = proposal.pending === 1 ? '1 change' : `${proposal.pending} changes`;
      this._waiting.append(
        button(
          `${sourceLabel(proposal.label)}: ${changes}`,
          'jp-Operator-proposal',
          () => void this.showSession(proposal.session),
          'Show this proposal in the panel'
        )
      );
    }
  }

  /** The workspace, session and subfolder on display: paths, undo and history are taken there. */
  private _shown(): IShownPlace {
    const state = this.state;
    const workspace = state?.workspace ?? this._workspaces.value;
    return { workspace, session: state?.session, folder: state?.folder };
  }
}
