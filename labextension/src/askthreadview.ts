/**
 * The Ask view's thread (askthread.ts): its name, New thread, and the conversation saved on
 * the server, shown above the run on display. A run asked here continues this thread; a page
 * reload shows it again. Text only (never HTML): a conversation holds the model's words.
 */
import { IThread, shownMessages, threadName } from './askthread';
import { button, el } from './dom';

/** Fetches JSON from the agent API (`askrequests.fetchJson` with the panel's settings). */
export type ThreadFetch = <T>(segments: string[], body?: unknown, query?: Record<string, string>) => Promise<T>;

/** The thread bar and its saved conversation. */
export class ThreadView {
  readonly node: HTMLElement;
  private _key = '';
  private _workspaceShown = '';
  private _name: HTMLElement;
  private _log: HTMLElement;
  private _new: HTMLButtonElement;

  constructor(
    private _fetch: ThreadFetch,
    private _workspace: () => string,
    private _source: () => string,
    onNew: () => void
  ) {
    this.node = el('div', 'jp-Operator-ask-thread');
    const bar = el('div', 'jp-Operator-row jp-Operator-ask-thread-bar');
    this._name = el('span', 'jp-Operator-ask-thread-name');
    this._new = button(
      'New thread',
      'jp-mod-styled jp-Operator-ask-new-thread',
      () => void this.startAfresh().then(onNew),
      'Start this thread afresh: the model no longer sees its conversation (kept aside on the server)'
    );
    bar.append(this._name, this._new);
    this._log = el('div', 'jp-Operator-ask-thread-log');
    this.node.append(bar, this._log);
  }

  /** The thread asked in (`notebook:<path>` or `folder:<path>`). */
  get key(): string {
    return this._key;
  }

  /** Set the source of the thread's key (the document the person works in). */
  setSource(source: () => string): void {
    this._source = source;
  }

  /** While a run streams, the thread cannot be started afresh. */
  setBusy(busy: boolean): void {
    this._new.disabled = busy;
  }

  /** Whether the person's document now belongs to another thread than the one shown. */
  get moved(): boolean {
    return this._source() !== this._key || this._workspace() !== this._workspaceShown;
  }

  /** Load and show the thread of the person's document (again when `force`). */
  async refresh(force = false): Promise<void> {
    const workspace = this._workspace();
    if (!workspace || (!force && !this.moved)) {
      return;
    }
    const key = this._source();
    this._key = key;
    this._workspaceShown = workspace;
    this._name.textContent = `Thread: ${threadName(key)}`;
    const thread = await this._fetch<IThread>(['agent', 'threads'], undefined, { workspace, key });
    if (thread.key === this._key) {
      this._render(thread);
    }
  }

  /** Start the thread afresh on the server and show it empty. */
  async startAfresh(): Promise<void> {
    const workspace = this._workspace();
    const thread = await this._fetch<IThread>(['agent', 'threads'], { workspace, key: this._key });
    this._render(thread);
  }

  private _render(thread: IThread): void {
    this._log.replaceChildren();
    const shown = shownMessages(thread.messages);
    this._log.hidden = shown.length === 0;
    for (const message of shown) {
      if (message.who === 'results') {
        const details = el('details', 'jp-Operator-ask-thread-results');
        details.append(el('summary', '', 'Results sent to the model'), el('pre', '', message.text));
        this._log.append(details);
        continue;
      }
      const row = el('div', `jp-Operator-ask-thread-message jp-Operator-ask-thread-${message.who}`);
      row.append(el('span', 'jp-Operator-ask-thread-who', message.who === 'you' ? 'You' : 'Model'));
      const commands = message.commands ? ` [${message.commands} command${message.commands === 1 ? '' : 's'}]` : '';
      row.append(el('span', 'jp-Operator-ask-thread-text', `${message.text}${commands}`));
      this._log.append(row);
    }
  }
}
