/**
 * Ask mode of the Operator panel: give the server's model a task and follow the run.
 *
 * The server calls the model (its key never reaches the browser) and streams the
 * run as server-sent events; this view shows the model's prose as it arrives, a
 * "received" card as soon as a command block is complete, then each turn's real
 * cards. Decisions go through the existing decide API (the turn's session).
 */
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { IMentionNotebook, MentionPicker } from './askmentions';
import { IModelList, ModelPicker } from './askmodels';
import { fetchJson, followEvents, IAskStarted, IWaitingRun } from './askrequests';
import { costText, IAgentEvent, usageText } from './askstream';
import { ThreadView } from './askthreadview';
import { IAskHost, TurnView } from './askturn';
import { IFixRequest } from './fixrequest';
import { attachedText, IAttached } from './mentions';
import { ItemCard } from './card';
import { OperatorClient, OperatorRequestError } from './client';
import { button, el, summary } from './dom';
import { QuestionBox, questionText } from './question';
import { decidedAndChanged, mergeItem } from './state';
import { Decision, IAnsweredItem, IDecideResponse, IOperatorItem } from './types';

export type { IAskHost } from './askturn';

/** The Ask section: a task box, Ask and Stop, the run's status and its turns. */
export class AskView {
  readonly node: HTMLDetailsElement;
  private _task: HTMLTextAreaElement;
  private _askButton: HTMLButtonElement;
  private _stopButton: HTMLButtonElement;
  private _status: HTMLElement;
  private _error: HTMLElement;
  private _turnsNode: HTMLElement;
  private _turns: TurnView[] = [];
  private _run: string | null = null;
  private _tokens = 0;
  /** What the run cost so far (null: no price known). */
  private _cost: number | null = null;
  /** Some of the run's tokens were estimated (an offline model reports no usage). */
  private _estimated = false;
  private _models: ModelPicker;
  /** A fix asked for while no model was configured: it starts once one is saved. */
  private _pendingFix: IFixRequest | null = null;
  private _turn = 0;
  private _maxTurns = 0;
  private _state = '';
  /** Events of the run received so far (an answer's stream starts after them). */
  private _seen = 0;
  /** The conversation of the person's notebook (or folder) a run continues (askthread.ts). */
  private _thread: ThreadView;
  /** The `@` completion of the task box (files of the workspace, cells of the open notebook). */
  private _mentions: MentionPicker;
  private _notebook: () => IMentionNotebook | null = () => null;

  constructor(
    private _client: OperatorClient,
    private _languages: IEditorLanguageRegistry | null,
    private _workspace: () => string,
    private _host: IAskHost | null = null
  ) {
    this.node = el('details', 'jp-Operator-ask');
    this.node.append(summary('Ask a model', 'jp-Operator-ask-summary'));
    this._models = new ModelPicker(
      this._client.settings,
      () => {
        this._askButton.disabled = !this._models.available;
      },
      reason => this._showError(reason)
    );
    this._task = el('textarea', 'jp-Operator-ask-task');
    this._task.placeholder = 'A task for the model, e.g. "add a README for this folder"';
    this._task.setAttribute('aria-label', 'Task for the model');
    this._task.rows = 3;
    this._task.title = 'Type @ to attach a workspace file or a cell of the open notebook';
    this._mentions = new MentionPicker(
      this._task,
      async query => {
        const params = { workspace: this._workspace() || 'default', query };
        const listed = await fetchJson<{ paths: string[] }>(this._client.settings, ['agent', 'mentions'], undefined, params);
        return listed.paths;
      },
      () => this._notebook()
    );
    this._task.addEventListener('keydown', event => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        void this.ask();
      }
    });
    const row = el('div', 'jp-Operator-row');
    this._askButton = button('Ask', 'jp-mod-accept jp-Operator-ask-button', () => void this.ask(), 'Run the task (Ctrl+Enter)');
    this._stopButton = button('Stop', 'jp-mod-reject jp-Operator-ask-stop', () => void this.stop(), 'Stop the run');
    this._stopButton.disabled = true;
    this._status = el('span', 'jp-Operator-ask-status');
    this._status.setAttribute('aria-live', 'polite');
    row.append(this._askButton, this._stopButton, this._status);
    this._error = el('div', 'jp-Operator-error');
    this._error.setAttribute('role', 'alert');
    this._error.hidden = true;
    this._turnsNode = el('div', 'jp-Operator-ask-turns');
    this._thread = new ThreadView(
      (segments, body, query) => fetchJson(this._client.settings, segments, body, query),
      this._workspace,
      () => 'folder:.',
      () => this._clear()
    );
    this.node.append(this._models.node, this._task, this._mentions.node, row, this._error, this._thread.node, this._turnsNode);
    this._models.listed.connect((_, list) => {
      if (!this._run) {
        this._status.textContent = this._modelStatus(list);
      }
    });
    // A fix asked for before any model was configured starts once one is saved.
    this._models.added.connect(() => {
      const fix = this._pendingFix;
      this._pendingFix = null;
      if (fix) {
        void this.ask(undefined, fix);
      }
    });
    this.node.addEventListener('toggle', () => {
      // Read afresh on each opening: an endpoint added from a notebook or a terminal shows up.
      if (this.node.open) {
        void this.refreshInfo();
      }
      if (this.node.open) {
        void this.threadChanged();
      }
    });
  }

  /** Where the key of the person's thread comes from (the document they work in). */
  setThreadSource(source: () => string): void {
    this._thread.setSource(source);
  }

  /** Where the open notebook's cells come from, for `@` mentions (null: no notebook). */
  setNotebookSource(source: () => IMentionNotebook | null): void {
    this._notebook = source;
  }

  /** The person may work in another document now: show its thread (not while a run streams). */
  async threadChanged(): Promise<void> {
    if (!this.node.open || !this._stopButton.disabled || !this._thread.moved) {
      return;
    }
    this._clear(); // the turns on display belong to the thread left
    try {
      await this._thread.refresh();
      await this._findQuestion();
    } catch (reason) {
      this._showError(reason);
    }
  }

  /**
   * A run of this thread that ended with a question the person has not answered yet (asked
   * before a page reload): show the question again, and the answer continues that run.
   */
  private async _findQuestion(): Promise<void> {
    const workspace = this._workspace();
    const query: Record<string, string> = { thread: this._thread.key };
    if (workspace) {
      query.workspace = workspace;
    }
    const { runs } = await this._fetchJson<{ runs: IWaitingRun[] }>(['agent', 'runs'], undefined, query);
    const waiting = runs.find(run => run.finished && run.question);
    if (!waiting || this._run || !this._stopButton.disabled) {
      return; // nothing waits, or a run of this page is shown already
    }
    this._run = waiting.run;
    this._seen = waiting.events; // the answer's events follow what was said before
    this._turn = waiting.turn;
    this._maxTurns = waiting.max_turns;
    this._tokens = waiting.tokens;
    this._estimated = waiting.tokens_estimated;
    this._cost = waiting.cost;
    this._renderStatus('the model asks you a question (below)');
    this._askPerson(waiting.run, questionText(waiting.question ?? ''));
  }

  /** The model picker and its "Add model" form. */
  get models(): ModelPicker {
    return this._models;
  }

  /** The run being shown, if any. */
  get runId(): string | null {
    return this._run;
  }

  /** Ask the server which models Ask mode can use (never a key); the status says (`listed`). */
  async refreshInfo(): Promise<void> {
    try {
      await this._models.refresh();
      this._askButton.disabled = !this._models.available;
    } catch (reason) {
      this._showError(reason);
    }
  }

  /**
   * With no model on the server at all, open Ask on its "Add model" form (the keyboard stays
   * where it is): the first thing a person needs, found without looking for it. Once per
   * browser: who only pastes replies is not asked again (Ask's status still says how).
   */
  async offerModel(): Promise<void> {
    const OFFERED = 'jupyter-operator:add-model-offered';
    try {
      if (window.localStorage?.getItem(OFFERED)) {
        return;
      }
      const list = await this._models.refresh();
      if (!list.default.available && !list.models.length) {
        this.node.open = true;
        this._models.openForm(false);
        window.localStorage?.setItem(OFFERED, '1');
      }
    } catch {
      // no server yet, or no storage: Ask says how to add a model when opened
    }
  }

  /** The status line while no run is shown: the model a run would ask, or what to do. */
  private _modelStatus(list: IModelList): string {
    const chosen = this._models.chosen;
    if (chosen) {
      return chosen.label;
    }
    if (list.default.available) {
      return list.default.label ?? list.default.model ?? 'The server\'s default model';
    }
    return list.models.length ? 'Pick a model above.' : 'No model configured on the server: add one with "Add model".';
  }

  /**
   * Start a run of the task in the box; with `fix` (a cell whose run ended in an error), the
   * server writes the task from the cell and its notebook, and `task` adds the person's words.
   */
  async ask(task?: string, fix?: IFixRequest): Promise<void> {
    if (fix && !this._stopButton.disabled) {
      this._showError(new OperatorRequestError('BUSY', 'A run is going on: stop it before asking for a fix.'));
      return;
    }
    const text = (task ?? (fix ? '' : this._task.value)).trim();
    if (!text && !fix) {
      this._showError(new OperatorRequestError('EMPTY', 'Write a task for the model first.'));
      return;
    }
    if (task !== undefined) {
      this._task.value = task;
    }
    this._error.hidden = true;
    if (!this._models.available) {
      await this.refreshInfo(); // Ask may not have been opened yet: read the list first
    }
    if (!this._models.available) {
      // No model to ask: offer the form; a fix waits for it and starts once it is saved.
      this._pendingFix = fix ?? null;
      this.node.open = true;
      this._models.openForm();
      this._showError(
        new OperatorRequestError(
          'NO_MODEL',
          fix
            ? 'Add a model to fix this error (Add model above): the fix starts once it is saved.'
            : 'Add a model first (Add model above).'
        )
      );
      return;
    }
    this._askButton.disabled = true;
    this._thread.setBusy(true);
    try {
      const choice = this._models.choice();
      // The thread as saved, the last run included, then this run's turns below it.
      await this._thread.refresh(true);
      this._clear();
      const body: Record<string, unknown> = fix ? { task: text, fix } : { task: text };
      const attachments = fix ? [] : this._mentions.attachments();
      if (attachments.length) {
        body.attachments = attachments;
      }
      body.thread = this._thread.key;
      const workspace = this._workspace();
      if (workspace) {
        body.workspace = workspace;
      }
      if (choice.model) {
        body.model = choice.model;
      }
      if (choice.max_tokens !== undefined) {
        body.max_tokens = choice.max_tokens;
      }
      if (choice.max_cost !== undefined) {
        body.max_cost = choice.max_cost;
      }
      const started = await this._fetchJson<IAskStarted>(['agent', 'runs'], body);
      this._run = started.run;
      if (fix && started.task) {
        // The fix's task the server wrote; a task with mentions stays as typed (the attached
        // texts are on the card, and asking again attaches them afresh).
        this._task.value = started.task;
      }
      this._showAttached(started.attachments ?? []);
      this._maxTurns = started.max_turns;
      this._stopButton.disabled = false;
      this._state = started.label ?? `${started.model} at ${started.endpoint}`;
      this._renderStatus();
      await this._follow(started.run);
    } catch (reason) {
      this._showError(reason);
    } finally {
      this._askButton.disabled = !this._models.available;
      this._stopButton.disabled = true;
      this._thread.setBusy(false);
    }
  }

  /** Stop the run: the reply being streamed is dropped, pending changes are rejected. */
  async stop(): Promise<void> {
    if (!this._run) {
      return;
    }
    this._stopButton.disabled = true;
    try {
      await this._fetchJson(['agent', 'runs', this._run, 'stop'], {});
    } catch (reason) {
      this._showError(reason);
    }
  }

  dispose(): void {
    this._clear();
  }

  private async _follow(run: string): Promise<void> {
    await followEvents(this._client.settings, run, this._seen, event => {
      this._seen += 1;
      this._onEvent(event);
    });
  }

  /** The request's card: what went with the task (the run's turns follow it). */
  private _showAttached(attached: IAttached[]): void {
    if (!attached.length) {
      return;
    }
    const card = el('section', 'jp-Operator-ask-attached');
    card.append(el('h3', 'jp-Operator-subtitle', 'Attached'));
    const list = el('ul', 'jp-Operator-ask-attached-list');
    for (const item of attached) {
      list.append(el('li', `jp-Operator-ask-attached-${item.kind}`, attachedText(item)));
    }
    card.append(list);
    this._turnsNode.prepend(card);
  }

  private _current(): TurnView {
    return this._turns[this._turns.length - 1];
  }

  private _onEvent(event: IAgentEvent): void {
    switch (event.kind) {
      case 'turn_started': {
        const view = new TurnView(event.turn ?? this._turns.length + 1);
        this._turns.push(view);
        this._turnsNode.append(view.node);
        this._turn = view.turn;
        this._maxTurns = event.max_turns ?? this._maxTurns;
        this._renderStatus('model replying');
        break;
      }
      case 'delta': {
        const view = this._current();
        const prose = view?.filter.feed(event.text ?? '');
        if (prose) {
          view.showProse(prose);
        }
        break;
      }
      case 'block': {
        const card = el('div', 'jp-Operator-ask-block');
        card.append(
          el('span', 'jp-Operator-status', 'Received'),
          el('span', 'jp-Operator-card-action', event.action ?? 'command'),
          el('span', 'jp-Operator-card-path', event.path ?? ''),
          el('span', 'jp-Operator-card-id', event.id ?? '')
        );
        this._current()?.received.append(card);
        break;
      }
      case 'planned':
        // The reply's usage is known once it ended: shown while its turn waits for decisions.
        this._tokens = event.tokens ?? this._tokens;
        this._cost = event.cost ?? this._cost;
        this._estimated = this._estimated || Boolean(event.usage?.estimated);
        if (this._current()) {
          this._current().usage.textContent = `· ${usageText(event.usage, event.turn_cost)}`;
        }
        this._showCards(event);
        break;
      case 'item': {
        const item = event.item as IOperatorItem | undefined;
        const view = this._current();
        if (item && view) {
          this._refreshCard(view, item);
        }
        this._renderStatus();
        break;
      }
      case 'turn_finished':
        this._tokens = event.tokens ?? this._tokens;
        this._cost = event.cost ?? this._cost;
        this._renderStatus('running');
        break;
      case 'notice': {
        const note = el('p', 'jp-Operator-ask-notice', event.message ?? '');
        this._current()?.node.append(note);
        break;
      }
      case 'stopped':
        this._tokens = event.tokens ?? this._tokens;
        this._cost = event.cost ?? this._cost;
        this._stopButton.disabled = true;
        if (event.reason === 'question' && this._run) {
          this._renderStatus('the model asks you a question (below)');
          this._askPerson(this._run, questionText(event.message ?? ''));
        } else {
          this._renderStatus(`ended: ${event.message ?? ''}`);
        }
        break;
    }
  }

  /** The model's question with a box for the answer; Answer continues the run. */
  private _askPerson(run: string, question: string): void {
    const box = new QuestionBox(question, async text => {
      await this._fetchJson(['agent', 'runs', run, 'answer'], { text });
      void this._goOn(run);
    });
    // After a reload no turn is on display: the question stands under the thread.
    (this._current()?.node ?? this._turnsNode).append(box.node);
  }

  /** Follow the run again after an answer, from the first event not seen yet. */
  private async _goOn(run: string): Promise<void> {
    this._stopButton.disabled = false;
    this._renderStatus('model replying');
    try {
      await this._follow(run);
    } catch (reason) {
      this._showError(reason);
    } finally {
      this._stopButton.disabled = true;
    }
  }

  private _showCards(event: IAgentEvent): void {
    const view = this._current();
    if (!view) {
      return;
    }
    view.session = event.session ?? null;
    view.received.replaceChildren();
    const items = (event.items ?? []) as IOperatorItem[];
    const session = view.session;
    const load = session ? (i: IOperatorItem) => this._client.content(session, i.id) : undefined;
    const workspace = this._workspace();
    for (const item of items) {
      const decide = (i: IOperatorItem, d: Decision, r?: string, c?: string, run?: boolean): void =>
        void this._decide(view, i, d, r, c, run);
      const card = new ItemCard(item, decide, this._languages, undefined, load);
      view.cards.set(item.index, card);
      view.cardsNode.append(card.node);
      if (session && this._host) {
        void this._host.runs.shown(session, item, path => this._host!.docPath(workspace, path));
      }
    }
    void this._afterAnswer(view, items, true);
    this._renderStatus(items.some(i => i.status === 'pending') ? 'waiting for you' : 'running');
  }

  private async _decide(
    view: TurnView,
    item: IOperatorItem,
    decision: Decision,
    reason?: string,
    content?: string,
    andRun = false
  ): Promise<void> {
    if (!view.session) {
      return;
    }
    let before: Map<string, string> | undefined;
    if (decision === 'approve' && this._host) {
      const found = await this._host.beforeApproving(
        this._workspace(),
        [item],
        index => view.cards.get(index)?.node ?? null
      );
      if (!found) {
        return; // the open notebook has edits of the person's: said on the card
      }
      before = found;
    }
    // The page applies an approved notebook change first (livecells.ts): it shows at the
    // click, not after the round trip; the engine's answer confirms it or puts it back.
    const host = this._host;
    const session = view.session;
    if (host && decision === 'approve' && content === undefined) {
      const workspace = this._workspace();
      await host.runs.applyFirst(session, item, path => host.docPath(workspace, path), andRun);
    }
    try {
      const answer: IDecideResponse = await this._client.decide(session, item.id, decision, reason, content, andRun);
      // Everything in the answer counts as changed: the run's own events may have refreshed
      // the cards already, and the decided change must still reach the open notebook.
      await this._afterAnswer(view, decidedAndChanged(answer), true, before);
    } catch (reason) {
      this._showError(reason);
    } finally {
      await host?.runs.settle(session, item.id);
    }
  }

  /**
   * Show what changed, bring open documents up to date, then run the cells the server says
   * are running (in the open notebook) and show each outcome.
   */
  private async _afterAnswer(
    view: TurnView,
    answered: IAnsweredItem[],
    fresh = false,
    before?: Map<string, string>
  ): Promise<void> {
    const items = answered.map(next => mergeItem(view.cards.get(next.index)?.item, next));
    // Only what changed with this answer is reloaded (a notebook is not reverted again and again).
    const changed = items.filter(next => fresh || view.cards.get(next.index)?.item.status !== next.status);
    for (const next of items) {
      this._refreshCard(view, next);
    }
    const host = this._host;
    const session = view.session;
    if (!host || !session) {
      return;
    }
    const workspace = this._workspace();
    await host.afterChange(workspace, changed, before);
    await host.runs.carryOut(session, items, path => host.docPath(workspace, path), answer =>
      this._afterAnswer(view, decidedAndChanged(answer))
    );
  }

  /** Show a newer state of an item; a new diff (what an edited approval wrote) needs a new card. */
  private _refreshCard(view: TurnView, item: IOperatorItem): void {
    const card = view.cards.get(item.index);
    if (card?.needsRebuild(item)) {
      const fresh = new ItemCard(item, card.onDecide, card.languages, card.where, card.loadContent);
      card.node.replaceWith(fresh.node);
      card.dispose();
      view.cards.set(item.index, fresh);
    } else {
      card?.update(item);
    }
  }

  private _renderStatus(state?: string): void {
    if (state !== undefined) {
      this._state = state;
    }
    const count = this._tokens.toLocaleString('en-US');
    const about = this._estimated ? '~' : '';
    const cost = this._cost === null ? '' : ` · ${about}${costText(this._cost)}`;
    const tokens = this._estimated ? `~${count} tokens (estimate)${cost}` : `${count} tokens${cost}`;
    // The run's total so far (each turn's own tokens are in its heading).
    this._status.textContent = `Turn ${this._turn}/${this._maxTurns} · ${tokens} · ${this._state}`;
  }

  private _clear(): void {
    for (const turn of this._turns) {
      turn.dispose();
    }
    this._turns = [];
    this._turnsNode.replaceChildren();
    this._run = null;
    this._tokens = 0;
    this._cost = null;
    this._estimated = false;
    this._turn = 0;
    this._seen = 0;
  }

  private _showError(reason: unknown): void {
    const message =
      reason instanceof OperatorRequestError
        ? reason.message
        : 'Something went wrong in Ask mode; see the browser console.';
    if (!(reason instanceof OperatorRequestError)) {
      console.error('jupyter-operator:', reason);
    }
    this._error.textContent = message;
    this._error.hidden = false;
  }

  private _fetchJson<T>(segments: string[], body?: unknown, query?: Record<string, string>): Promise<T> {
    return fetchJson<T>(this._client.settings, segments, body, query);
  }
}
