/**
 * One card per item of a run: a read with its result, an invalid block with its
 * error, or a mutation with its diff and the decision buttons.
 */
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { hasSuspiciousAdditions, hasSuspiciousLines, visibleText } from './diff';
import { CellDiffView } from './celldiffview';
import { DiffView } from './diffview';
import { detailsNode } from './carddetails';
import { CARD_KEYS_HINT, cardKeyAction } from './cardkeys';
import { button, el, whenVisible } from './dom';
import { EditPane } from './editor';
import { foreignNode } from './foreign';
import { shellBlock } from './jsonops';
import { kernelNode, SourceView, sourcesOf } from './runcard';
import { dependencyNote, isPending, personText, STATUS_LABELS } from './state';
import { Decision, IEditContent, IOperatorItem } from './types';

/** What a card asks its panel to do; `content` approves the person's edit instead. */
export type DecideHandler = (
  item: IOperatorItem,
  decision: Decision,
  reason?: string,
  content?: string,
  andRun?: boolean
) => void;

/** Where a card gets the text to edit (editor.ts); without it cards offer no Edit. */
export type ContentLoader = (item: IOperatorItem) => Promise<IEditContent>;

const CHANGE_LABELS: Record<string, string> = {
  create: 'new file',
  modify: 'modify',
  delete: 'delete'
};

/** The card of one item; `update` refreshes it in place (the diff view is kept). */
export class ItemCard {
  readonly node: HTMLElement;
  private _item: IOperatorItem;
  private _header: HTMLElement;
  private _status: HTMLElement;
  private _summary: HTMLElement;
  private _details: HTMLElement;
  private _shell: HTMLElement;
  private _actions: HTMLElement | null = null;
  private _approve: HTMLButtonElement | null = null;
  private _reason: HTMLInputElement | null = null;
  private _dependency: HTMLElement;
  private _rule: HTMLElement;
  private _diff: DiffView | null = null;
  private _diffHost: HTMLElement | null = null;
  private _edit: EditPane | null = null;
  private _editButton: HTMLButtonElement | null = null;
  /** The diff this card draws (`update` keeps the view; a new diff needs a new card). */
  private readonly _shownDiff: string | null;
  private _cells: CellDiffView | null = null;
  private _sources: SourceView[] = [];
  private _stopWaiting: () => void = () => undefined;

  constructor(
    item: IOperatorItem,
    readonly onDecide: DecideHandler,
    readonly languages: IEditorLanguageRegistry | null,
    readonly where?: string,
    readonly loadContent?: ContentLoader,
    /** Draw the diff only once the card is near the viewport (long runs in a notebook). */
    readonly lazy = false
  ) {
    this._item = item;
    this._shownDiff = item.diff;
    const node = (this.node = el('section', 'jp-Operator-card'));
    node.setAttribute('aria-label', `${item.action ?? 'invalid command'} ${item.id}`);
    // The card takes the focus (Tab, or a click on its frame); its keys act on it alone.
    node.tabIndex = 0;
    node.addEventListener('keydown', event => this._onKey(event));

    const header = (this._header = el('header', 'jp-Operator-card-header'));
    header.append(
      el('span', 'jp-Operator-card-action', item.action ?? 'invalid'),
      el('span', 'jp-Operator-card-path', item.path === null ? '' : visibleText(item.path)),
      el('span', 'jp-Operator-card-id', item.id)
    );
    if (item.change) {
      header.append(el('span', 'jp-Operator-card-change', CHANGE_LABELS[item.change] ?? item.change));
    }
    this._status = el('span', 'jp-Operator-status');
    header.append(this._status);
    header.title = CARD_KEYS_HINT;
    this._summary = el('p', 'jp-Operator-card-summary');
    this._details = el('div', 'jp-Operator-card-details');
    node.append(header);
    if (item.foreign) {
      node.append(foreignNode(item.foreign));
    }
    if (where && item.path !== null) {
      // Which folder the path is taken from, relative to the server's root.
      const location = el('div', 'jp-Operator-card-where', `in ${visibleText(where)}`);
      location.title = 'The workspace folder this path is relative to';
      node.append(location);
    }
    this._dependency = el('p', 'jp-Operator-dependency');
    this._dependency.setAttribute('role', 'note');
    this._shell = el('div', 'jp-Operator-shell-host');
    // Which rule decided (or asks about) this item: the policy is never a mystery.
    this._rule = el('p', 'jp-Operator-card-rule');
    node.append(this._dependency, this._rule, this._summary, this._shell);

    if (item.kind === 'run' && item.execution) {
      // What will run, where, and with what reach: the person decides on exactly this.
      const run = el('div', 'jp-Operator-runcard');
      run.append(kernelNode(item));
      for (const [id, source] of sourcesOf(item)) {
        if (id) {
          run.append(el('p', 'jp-Operator-run-cell', `cell ${visibleText(id)}`));
        }
        const host = el('div', 'jp-Operator-run-source');
        run.append(host);
        this._sources.push(new SourceView(host, source, languages));
      }
      node.append(run);
    }
    if (item.kind === 'mutation' && item.cells) {
      // A notebook change: its cells by default, the JSON diff one click away.
      this._cells = new CellDiffView(item.cells, languages, host => this._mountDiff(host));
      this._diffHost = this._cells.node;
      node.append(this._cells.node);
    } else if (item.kind === 'mutation' && item.diff) {
      const host = (this._diffHost = el('div', 'jp-Operator-diff'));
      node.append(host);
      if (lazy) {
        this._stopWaiting = whenVisible(host, () => this._mountDiff(host));
      } else {
        this._mountDiff(host);
      }
    }
    if (isPending(item)) {
      node.append(this._buildActions());
    }
    node.append(this._details);
    this._render();
  }

  /** The item as last shown. */
  get item(): IOperatorItem {
    return this._item;
  }

  /**
   * Whether `item` (a newer state of this card's item) needs a new card: a JSON
   * operation reached later in its batch becomes pending with a diff and buttons
   * that a card built while it was waiting does not have.
   */
  needsRebuild(item: IOperatorItem): boolean {
    // A new diff (a change re-planned after the one it builds on was decided, or what an
    // edited approval wrote) is drawn afresh.
    const newDiff = item.kind === 'mutation' && !!item.diff && item.diff !== this._shownDiff;
    // A diff waiting to be scrolled into view counts as drawn.
    const drawn = Boolean(this._diff || this._cells || this._diffHost);
    return (
      newDiff ||
      (isPending(item) && (!this._actions || (item.kind === 'mutation' && !!item.diff && !drawn)))
    );
  }

  /** Name who proposed the item (`claude-code 2.1 via MCP`, see proposals.ts) in its header,
   * before its status: text only, it is the client's own word. */
  showSource(source: string): void {
    const chip = el('span', 'jp-Operator-card-source', source);
    chip.title = 'The MCP client that proposed this change';
    this._header.insertBefore(chip, this._status);
  }

  /** Show a newer state of the same item. */
  update(item: IOperatorItem): void {
    this._item = item;
    this._render();
  }

  /** Enable or disable the decision controls (while a request is in flight). */
  setBusy(busy: boolean): void {
    if (this._actions) {
      for (const control of Array.from(this._actions.querySelectorAll('button, input'))) {
        (control as HTMLButtonElement | HTMLInputElement).disabled = busy || !isPending(this._item);
      }
    }
    // A change previewed on top of an undecided one can be approved once that one is decided
    // (the server then clears builds_on); it can still be rejected.
    const base = isPending(this._item) ? this._item.builds_on : null;
    this._edit?.setBusy(busy);
    if (this._editButton) {
      // An edit waits for the change it builds on too (deciding that one plans this again).
      this._editButton.disabled ||= Boolean(base);
    }
    if (this._approve) {
      this._approve.disabled ||= Boolean(base) || this._edit !== null;
      this._approve.title = base ? `Decide ${base} first: this change builds on it` : '';
    }
  }

  /** Put the cursor in the reason box (Reject with reason). */
  focusReason(): void {
    this._reason?.focus();
  }

  /** Free the diff editor. */
  dispose(): void {
    this._stopWaiting();
    this._diff?.dispose();
    this._diff = null;
    this._cells?.dispose();
    this._cells = null;
    for (const view of this._sources) {
      view.dispose();
    }
    this._sources = [];
    this._closeEditor();
  }

  /** Open the editor of the new content (editor.ts) in place of the diff, or close it. */
  async toggleEditor(): Promise<void> {
    if (this._edit) {
      this._closeEditor();
      return;
    }
    if (!this.loadContent || !this._actions) {
      return;
    }
    let content;
    try {
      content = await this.loadContent(this._item);
    } catch (reason) {
      const message = reason instanceof Error ? reason.message : String(reason);
      this._details.replaceChildren(
        el('p', 'jp-Operator-warning', `Could not load the content to edit: ${message}`)
      );
      return;
    }
    if (this._edit || !isPending(this._item) || !content.editable || content.proposed === null) {
      return;
    }
    this._edit = new EditPane({
      content,
      languages: this.languages,
      onApprove: text => this.onDecide(this._item, 'approve', undefined, text),
      onCancel: () => this._closeEditor()
    });
    this._actions.before(this._edit.node);
    if (this._diffHost) {
      this._diffHost.hidden = true;
    }
    this.setBusy(false);
    this._edit.editor.focus();
  }

  private _closeEditor(): void {
    this._edit?.node.remove();
    this._edit?.dispose();
    this._edit = null;
    if (this._diffHost) {
      this._diffHost.hidden = false;
    }
    this.setBusy(false);
  }

  /** Draw the item's unified diff into `host`, warning about invisible characters. */
  private _mountDiff(host: HTMLElement): void {
    const diff = this._item.diff ?? '';
    if (!host.classList.contains('jp-Operator-diff')) {
      const inner = el('div', 'jp-Operator-diff');
      host.append(inner);
      host = inner;
    }
    this._diff = new DiffView(host, { diff, path: this._item.path, languages: this.languages });
    if (this._diff.layout.lines.length === 0 || !this._diff.consistent) {
      // No text hunks (e.g. "Binary files a/x and b/x differ"): show the diff's own words.
      this._diff.dispose();
      this._diff = null;
      host.replaceWith(el('pre', 'jp-Operator-details-text', visibleText(diff)));
    } else if (hasSuspiciousLines(this._diff.layout.lines)) {
      const added = hasSuspiciousAdditions(this._diff.layout.lines);
      const warning = el(
        'p',
        'jp-Operator-warning',
        `Warning: the ${added ? 'new' : 'unchanged or removed'} text holds invisible, ` +
          'control or direction-changing characters, marked <U+....> in the diff. ' +
          'Check them before approving.'
      );
      warning.setAttribute('role', 'note');
      host.before(warning);
    }
  }

  /** A shortcut key on the focused card (cardkeys.ts): the same as clicking the button. */
  private _onKey(event: KeyboardEvent): void {
    cardKeyAction(event, this.node, {
      approve: this._approve,
      edit: this._editButton,
      reject: this._actions?.querySelector<HTMLButtonElement>('.jp-Operator-reject') ?? null,
      hidden: !this._actions || this._actions.hidden
    });
  }

  private _buildActions(): HTMLElement {
    const actions = (this._actions = el('div', 'jp-Operator-card-actions'));
    const reason = (this._reason = el('input', 'jp-Operator-reason'));
    reason.type = 'text';
    reason.placeholder = 'Reason (optional)';
    reason.setAttribute('aria-label', `Reason for rejecting ${this._item.id}`);
    reason.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        event.preventDefault();
        this.onDecide(this._item, 'reject', reason.value);
      }
    });
    const run = this._item.kind === 'run';
    this._approve = button(run ? 'Run' : 'Approve', 'jp-mod-accept jp-Operator-approve', () =>
      this.onDecide(this._item, 'approve')
    );
    actions.append(this._approve);
    if (this._item.can_run) {
      actions.append(
        button(
          'Approve & Run',
          'jp-mod-accept jp-Operator-approve-run',
          () => this.onDecide(this._item, 'approve', undefined, undefined, true),
          'Apply the change, then run the cell in the notebook\u2019s kernel'
        )
      );
    }
    if (this.loadContent && this._item.editable) {
      this._editButton = button(
        'Edit',
        'jp-mod-styled jp-Operator-edit-button',
        () => void this.toggleEditor(),
        'Change the new content yourself, then approve it'
      );
      actions.append(this._editButton);
    }
    actions.append(
      button('Reject', 'jp-mod-reject jp-Operator-reject', () =>
        this.onDecide(this._item, 'reject', reason.value)
      ),
      reason,
      button(
        'Reject with reason',
        'jp-mod-styled jp-Operator-reject-reason',
        () => {
          if (!reason.value.trim()) {
            reason.focus();
            return;
          }
          this.onDecide(this._item, 'reject', reason.value);
        },
        'Type a reason, then press Enter or this button'
      )
    );
    return actions;
  }

  private _render(): void {
    const item = this._item;
    this.node.dataset.status = item.status;
    this.node.dataset.kind = item.kind;
    this.node.dataset.id = item.id;
    this._status.textContent = STATUS_LABELS[item.status] ?? item.status;
    const base = item.builds_on;
    const waitsForBase = Boolean(base) && (isPending(item) || item.status === 'waiting');
    this._dependency.hidden = !waitsForBase;
    this._dependency.textContent = !waitsForBase
      ? ''
      : dependencyNote(item.kind, base!);
    this._rule.textContent = item.rule_note ? visibleText(item.rule_note) : '';
    this._rule.hidden = !item.rule_note;
    this._status.className = `jp-Operator-status jp-Operator-status-${item.status}`;
    this._summary.textContent =
      item.kind === 'mutation' && item.change === 'modify' && item.diff === ''
        ? 'No change: the file already holds exactly this content, so nothing needs approving.'
        : personText(item.summary);
    if (item.error_code && item.ok === false) {
      // The code, apart from the sentence: what to look up in the docs.
      this._summary.append(' ', el('span', 'jp-Operator-card-code', `(${item.error_code})`));
    }
    const shell = shellBlock(item);
    this._shell.replaceChildren(...(shell ? [shell] : []));
    const details = detailsNode(item);
    this._details.replaceChildren(...(details ? [details] : []));
    if (this._actions) {
      const pending = isPending(item);
      if (!pending) {
        this._closeEditor();
      }
      this._actions.hidden = !pending;
      this.setBusy(false);
    }
  }
}
