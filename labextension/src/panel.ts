/**
 * The Operator side panel: paste a reply (or take the active cell's), run it,
 * review every proposed change as a diff, decide, and copy the results back.
 */
import { Clipboard } from '@jupyterlab/apputils';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import { AskView } from './ask';
import { ContentLoader, DecideHandler, ItemCard } from './card';
import { loadDraft, saveDraft, saveDraftSoon } from './draft';
import { OperatorClient, OperatorRequestError } from './client';
import { DialectChoice, dialectRow, endedMessage } from './dialect';
import { button, el } from './dom';
import { HistoryView } from './history';
import { operatorIcon } from './icon';
import {
  afterChange,
  beforeApproving,
  dirtyMessage,
  IPanelView,
  notReloadedMessage,
  OpenDocuments,
  ListWidgets,
  ReadDocument,
  serverPath
} from './opendocs';
import { INotebookFinder } from './liverun';
import { LiveRuns } from './runs';
import { cutWarning, RunState, statusLine } from './state';
import { pickWorkspace, remember, remembered, whereText } from './workspaces';
import {
  Decision,
  IDecideResponse,
  IHistoryEntry,
  IOperatorItem,
  IScanResponse,
  IWorkspace
} from './types';

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

/** Put text on the clipboard. */
async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // No clipboard permission (or an insecure origin): JupyterLab's copy-event path.
    Clipboard.copyToSystem(text);
  }
}

/** Turn anything thrown into a sentence for the person. */
function plainError(reason: unknown): string {
  if (reason instanceof OperatorRequestError) {
    return reason.code.startsWith('HTTP_') || reason.code === 'NETWORK'
      ? reason.message
      : `${reason.message} (${reason.code})`;
  }
  return 'Something went wrong in the Operator panel; see the browser console.';
}

/** The side panel widget. */
export class OperatorPanel extends Widget {
  private _client: OperatorClient;
  private _languages: IEditorLanguageRegistry | null;
  private _state: RunState | null = null;
  private _cards = new Map<number, ItemCard>();
  private _busy = false;
  /** Ask mode: the server's model runs a task (see ask.ts). */
  readonly ask: AskView;

  private _workspace: HTMLSelectElement;
  private _dialect: HTMLSelectElement;
  private _input: HTMLTextAreaElement;
  private _source: HTMLElement;
  private _error: HTMLElement;
  private _status: HTMLElement;
  private _banner: HTMLElement;
  private _batch: HTMLElement;
  private _cardsNode: HTMLElement;
  private _results: HTMLElement;
  private _resultsText: HTMLTextAreaElement;
  private _copyNote: HTMLElement;
  private _note: HTMLElement;
  private _runButton: HTMLButtonElement;
  private _undoButton: HTMLButtonElement;
  private _history: HistoryView;
  private _workspaces: IWorkspace[] = [];
  private _outOfReach: HTMLDetailsElement;
  /** Documents open in this page that approved changes, undo and redo keep up to date. */
  private _open: OpenDocuments;
  /** Cell runs this page carries out in open notebooks (liverun.ts). */
  readonly runs: LiveRuns;

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
    const tracker = options.tracker ?? null;
    const findOpen = (path: string): NotebookPanel | null =>
      tracker?.find(panel => panel.context.path === path) ?? null;
    this.runs = new LiveRuns(
      this._client,
      options.openNotebook ?? (async path => findOpen(path)),
      findOpen,
      async path => (await this._open.check(path)).state !== 'edited'
    );
    this._languages = options.languages ?? null;
    this._open = new OpenDocuments(
      options.tracker ?? null,
      options.readDocument ?? null,
      options.mainWidgets ?? null
    );
    this.id = PANEL_ID;
    this.addClass('jp-Operator-panel');
    this.title.icon = operatorIcon;
    this.title.caption = 'Operator: review and approve file operations';

    const root = this.node;
    const header = el('div', 'jp-Operator-row jp-Operator-header');
    header.append(
      el('h2', 'jp-Operator-title', 'Operator'),
      button(
        'Copy spec',
        'jp-Operator-copy-spec',
        () => void this.copySpec(),
        'Copy the Operator Interface Specification to give to a model'
      )
    );
    root.append(header);

    const workspaceRow = el('label', 'jp-Operator-row');
    workspaceRow.append(el('span', 'jp-Operator-label', 'Workspace'));
    this._workspace = el('select', 'jp-mod-styled jp-Operator-workspace');
    this._workspace.title = 'The folder the reply\'s paths are relative to';
    this._workspace.addEventListener('change', () => {
      if (this._history.isOpen) {
        void this.refreshHistory();
      }
    });
    workspaceRow.append(this._workspace);
    root.append(workspaceRow);
    // Out of reach whatever the rules say (the server's token lives in Jupyter's runtime folder).
    this._outOfReach = el('details', 'jp-Operator-out-of-reach');
    this._outOfReach.append(el('summary', '', 'Out of reach of every workspace'));
    this._outOfReach.hidden = true;
    root.append(this._outOfReach);
    const dialect = dialectRow();
    this._dialect = dialect.select;
    root.append(dialect.row);

    this.ask = new AskView(this._client, this._languages, () => this._workspace.value, {
      runs: this.runs,
      docPath: (workspace, path) => serverPath(this._workspaces, workspace, null, path),
      beforeApproving: (workspace, items, cardNode) =>
        beforeApproving(
          this._open,
          { docPath: path => serverPath(this._workspaces, workspace, null, path), cardNode },
          items
        ),
      afterChange: (workspace, items, before) =>
        afterChange(
          this._open,
          { docPath: path => serverPath(this._workspaces, workspace, null, path), cardNode: () => null },
          items,
          before
        )
    });
    root.append(this.ask.node);

    this._input = el('textarea', 'jp-Operator-input');
    this._input.placeholder =
      "Paste a model's reply (OPERATOR_CMD blocks or JSON operations), or slash commands";
    this._input.setAttribute('aria-label', 'Reply to run');
    this._input.rows = 8;
    this._input.spellcheck = false;
    // The reply survives a page reload, beside the session's cards (see draft.ts).
    this._input.value = loadDraft();
    this._input.addEventListener('input', () => saveDraftSoon(() => this._input.value));
    // A reload inside the debounce still keeps what was typed last.
    window.addEventListener('pagehide', () => saveDraft(this._input.value));
    this._input.addEventListener('keydown', event => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void this.run();
      }
    });
    root.append(this._input);

    const runRow = el('div', 'jp-Operator-row');
    this._runButton = button('Run', 'jp-mod-accept jp-Operator-run', () => void this.run(), 'Run the reply (Ctrl+Enter)');
    this._source = el('span', 'jp-Operator-source');
    runRow.append(this._runButton, this._source);
    root.append(runRow);

    this._error = el('div', 'jp-Operator-error');
    this._error.setAttribute('role', 'alert');
    this._error.hidden = true;
    root.append(this._error);

    this._status = el('p', 'jp-Operator-run-status');
    this._status.setAttribute('aria-live', 'polite');
    root.append(this._status);

    // Commands lost to the scan window: a warning banner, not a note in the status line.
    this._banner = el('div', 'jp-Operator-warning jp-Operator-banner');
    this._banner.setAttribute('role', 'alert');
    this._banner.hidden = true;
    root.append(this._banner);

    // What the last action did (an undo, a copy of the spec); cleared by the next action.
    this._note = el('p', 'jp-Operator-note');
    this._note.setAttribute('aria-live', 'polite');
    root.append(this._note);

    this._batch = el('div', 'jp-Operator-row jp-Operator-batch');
    this._batch.append(
      button('Approve all', 'jp-mod-accept jp-Operator-approve-all', () => void this.decideAll('approve')),
      button('Reject all', 'jp-mod-reject jp-Operator-reject-all', () => void this.decideAll('reject'))
    );
    this._batch.hidden = true;
    root.append(this._batch);

    this._cardsNode = el('div', 'jp-Operator-cards');
    root.append(this._cardsNode);

    this._results = el('div', 'jp-Operator-results');
    this._results.append(el('h3', 'jp-Operator-subtitle', 'Results for the model'));
    this._resultsText = el('textarea', 'jp-Operator-results-text');
    this._resultsText.readOnly = true;
    this._resultsText.rows = 8;
    this._resultsText.setAttribute('aria-label', 'OPERATOR_RESULT blocks');
    this._copyNote = el('span', 'jp-Operator-copy-note');
    this._copyNote.setAttribute('aria-live', 'polite');
    const resultButtons = el('div', 'jp-Operator-row');
    this._undoButton = button(
      'Undo last change',
      'jp-mod-styled jp-Operator-undo',
      () => void this.undoLast(),
      'Restore the file changed last in this workspace'
    );
    resultButtons.append(
      button('Copy', 'jp-mod-accept jp-Operator-copy', () => void this.copyResults()),
      this._undoButton,
      this._copyNote
    );
    this._results.append(this._resultsText, resultButtons);
    this._results.hidden = true;
    root.append(this._results);

    this._history = new HistoryView(
      (entry, action) => void this.undoOrRedo(entry, action),
      () => void this.refreshHistory(),
      this._languages,
      notebook => void this.rebuildState(notebook)
    );
    root.append(this._history.node);

    void this.refreshWorkspaces().then(() => this.reattach());
    void this.showOutOfReach();
  }

  /** List what no workspace may reach, under the workspace selector. */
  async showOutOfReach(): Promise<void> {
    try {
      const paths = await this._client.outOfReach();
      const list = el('p', 'jp-Operator-out-of-reach-list', paths.join(', '));
      const note = el(
        'p',
        'jp-Operator-out-of-reach-note',
        'Refused for every action, reads included, whatever the rules say: Jupyter\'s ' +
          'runtime, config and data folders hold the server\'s token and settings.'
      );
      this._outOfReach.append(note, list);
      this._outOfReach.hidden = paths.length === 0;
    } catch {
      // An older server without the list: nothing to show.
    }
  }

  /** The run on display, if any. */
  get state(): RunState | null {
    return this._state;
  }

  /** Whether any item waits for a decision. */
  get hasPending(): boolean {
    return !!this._state && !this._state.done;
  }

  /** Whether there are results to copy. */
  get hasResults(): boolean {
    return !!this._state?.resultsText;
  }

  /** Put text in the input box; `origin` says where it came from. */
  setText(text: string, origin?: string): void {
    this._input.value = text;
    saveDraft(text);
    this._source.textContent = origin ?? '';
  }

  /** Load the workspaces (names and folders) from the server. */
  async refreshWorkspaces(): Promise<void> {
    try {
      const workspaces = (this._workspaces = await this._client.workspaces());
      const current = this._workspace.value;
      this._workspace.replaceChildren();
      for (const ws of workspaces) {
        const folder = ws.path === '.' ? 'the server root' : ws.path ?? 'outside the server root';
        const option = el('option', '', `${ws.name}: ${folder}`);
        option.value = ws.name;
        this._workspace.append(option);
      }
      if (workspaces.some(w => w.name === current)) {
        this._workspace.value = current;
      }
      this._workspace.disabled = workspaces.length <= 1;
    } catch (reason) {
      this.showError(plainError(reason));
    }
  }

  /** Show the session this page had open before a reload (or a server restart), if any. */
  async reattach(): Promise<void> {
    const session = remembered();
    if (!session || this._state) {
      return;
    }
    try {
      this._show(await this._client.session(session));
      this._note.textContent = 'Reopened the session this page had before it was reloaded.';
    } catch (reason) {
      remember(null); // expired or unknown: start afresh
      this._note.textContent = endedMessage(reason) ?? '';
    }
  }

  /** The folder of a workspace (and subfolder) as shown on cards, relative to the server root. */
  where(workspace: string, folder?: string | null): string {
    return whereText(this._workspaces, workspace, folder);
  }

  /** Scan the text in the input box (or the given text) and show its items. */
  async run(text?: string, options: IRunOptions = {}): Promise<void> {
    const reply = text ?? this._input.value;
    if (text !== undefined) {
      this._input.value = text;
    }
    saveDraft(reply); // at once: a reload right after Run must not lose the reply to the debounce
    if (!reply.trim()) {
      this.showError('Paste a reply with OPERATOR_CMD blocks first.');
      return;
    }
    let workspace = this._workspace.value || null;
    let folder: string | null = null;
    if (options.folder !== undefined) {
      // Take the reply's paths from the given folder (a notebook's own), in the workspace
      // that holds it most closely, so the panel and the notebook's kernel agree.
      const picked = pickWorkspace(this._workspaces, options.folder);
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
      this._show(scan);
      // Changes a rule applied at once are on disk already: bring open documents up to date.
      await this._syncOpenDocuments(this._state?.items.map(i => i.index) ?? []);
    });
    if (this._state) {
      await this._carryOutRuns(this._state);
    }
  }

  private _show(scan: IScanResponse): void {
    this._clearCards();
    this._state = new RunState(scan);
    remember(scan.session);
    if (scan.workspace && this._workspace.value !== scan.workspace) {
      this._workspace.value = scan.workspace;
    }
    const where = this.where(scan.workspace, scan.folder);
    const fragment = document.createDocumentFragment();
    for (const item of this._state.items) {
      const card = new ItemCard(
        item,
        (i, d, r, c, run) => void this.decide(i, d, r, c, run),
        this._languages,
        where,
        this._contentLoader(scan.session)
      );
      this._cards.set(item.index, card);
      fragment.append(card.node);
      void this.runs.shown(scan.session, item, path => this._docPath(path));
    }
    this._cardsNode.append(fragment);
    this._renderRun();
  }

  /** Run the cells the server says are running (approved here, or by an allowing rule). */
  private async _carryOutRuns(state: RunState): Promise<void> {
    await this.runs.carryOut(state.session, state.items, path => this._docPath(path), async answer =>
      this._answered(state, answer)
    );
  }

  private async _answered(state: RunState, answer: IDecideResponse, before?: Map<string, string>): Promise<void> {
    await this._syncOpenDocuments(this._apply(state.update(answer)), before);
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
    const before = decision === 'approve' ? await beforeApproving(this._open, this._view, [item]) : new Map();
    if (!state || !before) {
      return;
    }
    await this._request(async () => {
      const answer = await this._client.decide(state.session, item.id, decision, reason, content, andRun);
      await this._answered(state, answer, before);
    });
    await this._carryOutRuns(state);
  }

  /** Approve or reject everything still pending. */
  async decideAll(decision: Decision, reason?: string): Promise<void> {
    const state = this._state;
    if (!state || state.done) {
      return;
    }
    const before = decision === 'approve' ? await beforeApproving(this._open, this._view, state.pending) : new Map();
    if (!before) {
      return;
    }
    await this._request(async () => {
      const answer = await this._client.decideAll(state.session, decision, reason);
      await this._answered(state, answer, before);
    });
    await this._carryOutRuns(state);
  }

  /** Copy the results text to the clipboard. */
  async copyResults(): Promise<void> {
    const text = this._resultsText.value;
    if (!text) {
      return;
    }
    await copyText(text);
    this._copyNote.textContent = 'Copied.';
  }

  /** Copy the interface specification (what a model needs to write commands). */
  async copySpec(): Promise<void> {
    await this._request(async () => {
      await copyText(await this._client.spec());
      this._note.textContent = 'Interface specification copied.';
    });
  }

  /** Undo the last applied change in the current workspace. */
  async undoLast(): Promise<void> {
    await this.undoOrRedo(null, 'undo');
  }

  /** Undo or redo one history entry (the latest change when `entry` is null). */
  async undoOrRedo(entry: IHistoryEntry | null, action: 'undo' | 'redo'): Promise<void> {
    const workspace = this._state?.workspace ?? this._workspace.value;
    const target = entry ? this._docPath(entry.path) : null;
    const open = await this._open.check(target);
    if (target && open.state === 'edited') {
      this.showError(dirtyMessage(target, action));
      return;
    }
    await this._request(async () => {
      const call = action === 'undo' ? this._client.undo : this._client.redo;
      let answer;
      try {
        answer = await call.call(
          this._client,
          workspace,
          entry?.entry_id,
          this._state?.session,
          this._state?.folder
        );
      } finally {
        // Whatever happened, cards, results and history show what is true now.
        await this._refreshAfterChange();
      }
      const done = answer.entry;
      const where = done.path ? ` of ${done.path}` : '';
      const verb = action === 'undo' ? 'Undid' : 'Redid';
      this._note.textContent = `${verb} ${done.action}${where} (${done.command_id}).`;
      const changed = this._docPath(done.path);
      const same = changed === target ? open.cells : undefined;
      if ((await this._open.reload(changed, same)) === 'edited' && changed) {
        this.showError(notReloadedMessage(changed));
      }
    });
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
  async refreshHistory(): Promise<void> {
    const workspace = this._state?.workspace ?? this._workspace.value;
    if (!workspace) {
      return;
    }
    try {
      const folder = this._state?.folder;
      const answer = await this._client.history(workspace, folder);
      this._history.render(answer.history, answer.executions ?? []);
    } catch (reason) {
      this.showError(plainError(reason));
    }
  }

  private async _refreshAfterChange(): Promise<void> {
    const state = this._state;
    if (state) {
      try {
        this._apply(state.update(await this._client.session(state.session)));
      } catch {
        // The session may have expired; the history below still tells the truth.
      }
    }
    if (this._history.isOpen) {
      await this.refreshHistory();
    }
  }

  protected onActivateRequest(): void {
    // Lab activates the panel after a click inside it too: focus stays where the person put it
    // (an edit box, a reason), or keystrokes typed meanwhile would land in the reply box.
    if (!this.node.contains(document.activeElement)) {
      this._input.focus();
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
    this.ask.dispose();
    this._clearCards();
    this._history.dispose();
    super.dispose();
  }

  private async _request(action: () => Promise<void>): Promise<void> {
    if (this._busy) {
      return;
    }
    this._busy = true;
    this._setBusy(true);
    // A note from an earlier action never stays beside a new result or error.
    this.showError('');
    this._copyNote.textContent = '';
    this._note.textContent = '';
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
  }

  private _setBusy(busy: boolean): void {
    this.node.toggleAttribute('aria-busy', busy);
    this._runButton.disabled = busy;
    for (const b of Array.from(this._batch.querySelectorAll('button'))) {
      b.disabled = busy;
    }
    for (const card of this._cards.values()) {
      card.setBusy(busy);
    }
    this._undoButton.disabled = busy;
  }

  /** How cards of a session fetch the text to edit (editor.ts). */
  private _contentLoader(session: string): ContentLoader {
    return item => this._client.content(session, item.id);
  }

  private _apply(changed: number[]): number[] {
    const state = this._state;
    if (!state) {
      return changed;
    }
    for (const index of changed) {
      const item = state.item(index);
      const card = this._cards.get(index);
      if (item && card?.needsRebuild(item)) {
        const decide: DecideHandler = (i, d, r, c, run) => void this.decide(i, d, r, c, run);
        const fresh = new ItemCard(item, decide, card.languages, card.where, card.loadContent);
        card.node.replaceWith(fresh.node);
        card.dispose();
        this._cards.set(index, fresh);
      } else if (item) {
        card?.update(item);
      }
    }
    this._renderRun();
    return changed;
  }

  /** A path of the session on display, relative to the server's root (open documents). */
  private _docPath(path: string | null): string | null {
    const workspace = this._state?.workspace ?? this._workspace.value;
    return serverPath(this._workspaces, workspace, this._state?.folder, path);
  }

  /** The panel as open-document handling sees it (see opendocs.ts). */
  private get _view(): IPanelView {
    return {
      docPath: path => this._docPath(path),
      cardNode: index => this._cards.get(index)?.node ?? null
    };
  }

  /** Reload the open documents the items at these indices just changed on disk. */
  private _syncOpenDocuments(indices: readonly number[], before?: Map<string, string>): Promise<void> {
    const items = indices.map(i => this._state?.item(i)).filter((i): i is IOperatorItem => !!i);
    return afterChange(this._open, this._view, items, before);
  }

  private _renderRun(): void {
    const state = this._state;
    if (!state) {
      return;
    }
    const c = state.counts();
    this._status.textContent = statusLine(state);
    const warning = cutWarning(state);
    this._banner.textContent = warning ?? '';
    this._banner.hidden = !warning;
    this._batch.hidden = state.pending.length < 1;
    this._resultsText.value = state.resultsText;
    this._results.hidden = !state.done || !state.resultsText;
    this._undoButton.hidden = c.applied === 0;
  }

  private _clearCards(): void {
    for (const card of this._cards.values()) {
      card.dispose();
    }
    this._cards.clear();
    this._cardsNode.replaceChildren();
  }

  /** Show a message in the panel's error area (an empty message hides it). */
  showError(message: string): void {
    this._error.textContent = message;
    this._error.hidden = !message;
  }
}
