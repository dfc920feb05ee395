/**
 * The `@` completion of the Ask box: typing `@` lists the workspace's files (`GET
 * agent/mentions`, walked through the server's jail) and the open notebook's cells; a pick
 * puts `@token` in the text and remembers what it attaches (mentions.ts).
 */
import { el } from './dom';
import {
  cellChoices,
  fileChoices,
  IAttachment,
  IMentionCell,
  IMentionChoice,
  insertMention,
  keptAttachments,
  mentionAt
} from './mentions';

/** The open notebook, its path relative to the Ask view's workspace. */
export interface IMentionNotebook {
  notebook: string;
  cells: IMentionCell[];
}

/** Choices shown at once (the server lists more; typing narrows them). */
const SHOWN = 30;

/** The completion list under the task box. */
export class MentionPicker {
  readonly node: HTMLUListElement;
  private _choices: IMentionChoice[] = [];
  private _active = 0;
  private _picked = new Map<string, IAttachment>();
  private _asked = 0;
  private _timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private _box: HTMLTextAreaElement,
    private _listFiles: (query: string) => Promise<string[]>,
    private _notebook: () => IMentionNotebook | null
  ) {
    this.node = el('ul', 'jp-Operator-mention-list');
    this.node.setAttribute('role', 'listbox');
    this.node.setAttribute('aria-label', 'Files and cells to attach');
    this.node.hidden = true;
    _box.addEventListener('input', () => this._typed());
    _box.addEventListener('blur', () => setTimeout(() => this.close(), 150));
    _box.addEventListener('keydown', event => this._key(event), true);
  }

  /** The attachments of the mentions picked and still in the text. */
  attachments(): IAttachment[] {
    return keptAttachments(this._box.value, this._picked);
  }

  close(): void {
    this.node.hidden = true;
    this._choices = [];
    this._asked++; // an answer still on its way is dropped
  }

  private _typed(): void {
    const found = mentionAt(this._box.value, this._box.selectionStart ?? this._box.value.length);
    if (!found) {
      this.close();
      return;
    }
    if (this._timer) {
      clearTimeout(this._timer);
    }
    this._timer = setTimeout(() => void this._list(found.query), 120);
  }

  private async _list(query: string): Promise<void> {
    const asked = ++this._asked;
    const open = this._notebook();
    const cells = open ? cellChoices(open.notebook, open.cells, query) : [];
    let files: IMentionChoice[] = [];
    try {
      files = fileChoices(await this._listFiles(query));
    } catch {
      files = []; // no listing (another workspace, the server away): cells only
    }
    if (asked !== this._asked) {
      return;
    }
    this._choices = [...cells, ...files].slice(0, SHOWN);
    this._active = 0;
    this._render();
  }

  private _render(): void {
    this.node.replaceChildren();
    this._choices.forEach((choice, index) => {
      const item = el('li', 'jp-Operator-mention-choice', choice.label);
      item.setAttribute('role', 'option');
      item.dataset.token = choice.token;
      item.setAttribute('aria-selected', String(index === this._active));
      item.classList.toggle('jp-mod-active', index === this._active);
      item.addEventListener('mousedown', event => {
        event.preventDefault(); // keep the focus in the box
        this._pick(choice);
      });
      this.node.append(item);
    });
    this.node.hidden = this._choices.length === 0;
  }

  private _key(event: KeyboardEvent): void {
    if (this.node.hidden || !this._choices.length) {
      return;
    }
    const count = this._choices.length;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      this._active = (this._active + (event.key === 'ArrowDown' ? 1 : count - 1)) % count;
      this._render();
    } else if ((event.key === 'Enter' && !event.ctrlKey && !event.metaKey) || event.key === 'Tab') {
      this._pick(this._choices[this._active]);
    } else if (event.key === 'Escape') {
      this.close();
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  }

  private _pick(choice: IMentionChoice): void {
    const caret = this._box.selectionStart ?? this._box.value.length;
    const found = mentionAt(this._box.value, caret);
    if (!found) {
      return;
    }
    const next = insertMention(this._box.value, found.start, caret, choice.token);
    this._box.value = next.text;
    this._box.setSelectionRange(next.caret, next.caret);
    this._picked.set(choice.token, choice.attachment);
    this.close();
    this._box.focus();
  }
}
