/**
 * "Workspace files": the reference client of the Editor File API, inside
 * JupyterLab. It speaks only the WebSocket API (`capabilities`, `file_list`,
 * `file_read`, `file_write`), so a person sees the workspace exactly as the
 * API does: a flat list of one folder, one file open at a time in CodeMirror 6,
 * Save with a status indicator, and the API's refusals (over 1 MB, not UTF-8,
 * outside the workspace) shown as messages. Text nodes only, never innerHTML.
 */
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState } from '@codemirror/state';
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers
} from '@codemirror/view';
import { Dialog, showDialog } from '@jupyterlab/apputils';
import {
  IEditorLanguageRegistry,
  jupyterHighlightStyle,
  jupyterTheme
} from '@jupyterlab/codemirror';
import { Widget } from '@lumino/widgets';

import { button, el } from './dom';
import { EditorModel } from './filestate';
import { FileSocket } from './filesocket';
import {
  decodeText,
  describeCode,
  encodeText,
  FileApiError,
  sizeLabel,
  IFileItem,
  joinPath,
  lineSeparatorOf,
  parentPath,
  sortItems
} from './fileproto';
import { operatorIcon } from './icon';

/** Options of {@link WorkspaceFilesView}. */
export interface IWorkspaceFilesOptions {
  socket: FileSocket;
  languages?: IEditorLanguageRegistry | null;
}

function codeOf(reason: unknown): string {
  return reason instanceof FileApiError ? reason.code : 'connection_lost';
}

/** The "Workspace files" main-area view. */
export class WorkspaceFilesView extends Widget {
  readonly model = new EditorModel();
  private _socket: FileSocket;
  private _languages: IEditorLanguageRegistry | null;
  private _workspace = 'default';
  private _folder = '.';
  private _select = el('select', 'jp-OperatorFiles-workspace');
  private _workspaceRow = el('label', 'jp-OperatorFiles-workspaceRow');
  private _where = el('div', 'jp-OperatorFiles-where');
  private _list = el('ul', 'jp-OperatorFiles-list');
  private _listError = el('div', 'jp-OperatorFiles-listError');
  private _pathLabel = el('span', 'jp-OperatorFiles-path');
  private _status = el('span', 'jp-OperatorFiles-status');
  private _save: HTMLButtonElement;
  private _notice = el('div', 'jp-OperatorFiles-notice');
  private _host = el('div', 'jp-OperatorFiles-editor');
  private _view: EditorView;
  private _language = new Compartment();
  private _listToken = 0;

  constructor(options: IWorkspaceFilesOptions) {
    super();
    this._socket = options.socket;
    this._languages = options.languages ?? null;
    this.id = 'jupyter-operator-files';
    this.title.label = 'Workspace files';
    this.title.caption = 'Files of the Operator workspace, through the file API';
    this.title.icon = operatorIcon;
    this.title.closable = true;
    this.addClass('jp-OperatorFiles');

    const side = el('div', 'jp-OperatorFiles-side');
    this._workspaceRow.append(el('span', '', 'Workspace '), this._select);
    this._workspaceRow.hidden = true;
    this._select.addEventListener('change', () => void this._chooseWorkspace(this._select.value));
    const refresh = button('Refresh', 'jp-OperatorFiles-refresh', () => void this.refresh());
    const tools = el('div', 'jp-OperatorFiles-tools');
    tools.append(this._workspaceRow, refresh);
    this._list.setAttribute('aria-label', 'Files');
    this._listError.setAttribute('role', 'alert');
    this._listError.hidden = true;
    side.append(tools, this._where, this._listError, this._list);

    const main = el('div', 'jp-OperatorFiles-main');
    const header = el('div', 'jp-OperatorFiles-header');
    this._save = button('Save', 'jp-mod-accept jp-OperatorFiles-save', () => void this.save());
    this._save.title = 'Save (Ctrl+S / Cmd+S)';
    this._status.setAttribute('role', 'status');
    header.append(this._pathLabel, this._status, this._save);
    this._notice.setAttribute('role', 'alert');
    this._notice.hidden = true;
    main.append(header, this._notice, this._host);
    this.node.append(side, main);

    this._view = new EditorView({ parent: this._host, state: this._newState('') });
    this._render();
  }

  /** Ask the server what it offers, then list the workspace root. */
  async start(): Promise<void> {
    try {
      const caps = await this._socket.request({ type: 'capabilities' });
      const names = caps.workspaces ?? [];
      this.model.maxFileSize = caps.limits?.max_file_size ?? this.model.maxFileSize;
      this._select.replaceChildren(...names.map(n => new Option(n, n)));
      this._workspaceRow.hidden = names.length < 2;
      this._workspace = names.includes('default') ? 'default' : (names[0] ?? 'default');
      this._select.value = this._workspace;
    } catch (reason) {
      this._showListError(codeOf(reason));
      return;
    }
    await this.refresh();
  }

  /** List the current folder again. */
  async refresh(): Promise<void> {
    const token = ++this._listToken;
    const folder = this._folder;
    try {
      const reply = await this._socket.request({
        type: 'file_list',
        workspace: this._workspace,
        path: folder
      });
      if (token === this._listToken) {
        this._renderList(folder, sortItems(reply.items ?? []));
      }
    } catch (reason) {
      if (token === this._listToken) {
        this._showListError(codeOf(reason));
      }
    }
  }

  /** Open one file (asks first when the open one has unsaved changes). */
  async open(path: string): Promise<void> {
    if (path === this.model.path) {
      this.model.dismissNotice();
      this._render();
      return;
    }
    if (!(await this._mayDiscard())) {
      return;
    }
    if (!this.model.beginOpen(path)) {
      return;
    }
    this._render();
    const workspace = this._workspace;
    try {
      const reply = await this._socket.request({ type: 'file_read', workspace, path });
      const text = decodeText(reply.content_b64 ?? '');
      if (workspace === this._workspace && this.model.opened(path, text)) {
        this._view.setState(this._newState(text));
        void this._loadLanguage(path);
        this._view.focus();
      }
    } catch (reason) {
      this.model.openFailed(path, codeOf(reason));
    }
    this._render();
  }

  /** Save the open file through `file_write`. */
  async save(): Promise<void> {
    const encoded = encodeText(this.model.text);
    const text = this.model.beginSave(encoded.size);
    this._render();
    const path = this.model.path;
    if (text === null || path === null) {
      return;
    }
    try {
      await this._socket.request({
        type: 'file_write',
        workspace: this._workspace,
        path,
        content_b64: encoded.b64
      });
      this.model.saveSucceeded();
      void this.refresh(); // sizes in the list follow the disk
    } catch (reason) {
      this.model.saveFailed(codeOf(reason));
    }
    this._render();
  }

  /** Close the socket with the view. */
  dispose(): void {
    if (this.isDisposed) {
      return;
    }
    this._view.destroy();
    this._socket.dispose();
    super.dispose();
  }

  private async _chooseWorkspace(name: string): Promise<void> {
    if (name === this._workspace) {
      return;
    }
    if (!(await this._mayDiscard())) {
      this._select.value = this._workspace;
      return;
    }
    this._workspace = name;
    this._folder = '.';
    this.model.close();
    this._view.setState(this._newState(''));
    this._render();
    await this.refresh();
  }

  private async _mayDiscard(): Promise<boolean> {
    if (!this.model.dirty) {
      return true;
    }
    const result = await showDialog({
      title: 'Discard unsaved changes?',
      body: `${this.model.path} has changes that are not saved.`,
      buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Discard' })]
    });
    return result.button.accept;
  }

  private _newState(text: string): EditorState {
    return EditorState.create({
      doc: text,
      extensions: [
        // Saving writes back the file's own line endings: CodeMirror would otherwise split on
        // every \r\n, \r and \n and join with \n. A stray other ending stays visible in its line.
        EditorState.lineSeparator.of(lineSeparatorOf(text)),
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        jupyterTheme,
        syntaxHighlighting(jupyterHighlightStyle),
        EditorState.readOnly.of(this.model.path === null),
        EditorView.contentAttributes.of({ 'aria-label': 'File contents' }),
        EditorView.updateListener.of(update => {
          if (update.docChanged) {
            // sliceDoc joins lines with the separator above; doc.toString() would use \n.
            this.model.edit(update.state.sliceDoc());
            this._renderStatus();
          }
        }),
        this._language.of([])
      ]
    });
  }

  private async _loadLanguage(path: string): Promise<void> {
    const registry = this._languages;
    if (!registry) {
      return;
    }
    try {
      const found = registry.findByFileName(path);
      const language = found ? await registry.getLanguage(found) : null;
      if (language?.support && this.model.path === path) {
        this._view.dispatch({ effects: this._language.reconfigure(language.support) });
      }
    } catch (reason) {
      console.warn('jupyter-operator: no syntax highlighting for this file', reason);
    }
  }

  private _renderList(folder: string, items: IFileItem[]): void {
    this._listError.hidden = true;
    this._where.textContent = folder === '.' ? 'Workspace root' : folder;
    const rows: HTMLElement[] = [];
    if (folder !== '.') {
      rows.push(this._row('..', 'Parent folder', true, () => this._enter(parentPath(folder))));
    }
    for (const item of items) {
      const path = joinPath(folder, item.name);
      rows.push(
        item.is_dir
          ? this._row(`${item.name}/`, '', true, () => this._enter(path))
          : this._row(
              item.name,
              sizeLabel(item.size, this.model.maxFileSize),
              false,
              () => void this.open(path),
              path
            )
      );
    }
    if (items.length === 0) {
      rows.push(el('li', 'jp-OperatorFiles-empty', 'This folder is empty.'));
    }
    this._list.replaceChildren(...rows);
    this._markCurrent();
  }

  private _row(
    label: string,
    detail: string,
    isDir: boolean,
    onClick: () => void,
    path?: string
  ): HTMLLIElement {
    const li = el('li', 'jp-OperatorFiles-item');
    const entry = el('button', 'jp-OperatorFiles-entry');
    entry.type = 'button';
    entry.dataset.kind = isDir ? 'dir' : 'file';
    if (path) {
      entry.dataset.path = path;
    }
    entry.append(el('span', 'jp-OperatorFiles-name', label));
    if (detail) {
      entry.append(el('span', 'jp-OperatorFiles-size', detail));
    }
    entry.addEventListener('click', onClick);
    li.append(entry);
    return li;
  }

  private _enter(folder: string): void {
    this._folder = folder;
    void this.refresh();
  }

  private _showListError(code: string): void {
    this._listError.textContent = `${describeCode(code)} (${code})`;
    this._listError.hidden = false;
  }

  private _markCurrent(): void {
    for (const entry of this._list.querySelectorAll<HTMLButtonElement>('[data-path]')) {
      entry.classList.toggle('jp-mod-current', entry.dataset.path === this.model.path);
    }
  }

  private _renderStatus(): void {
    const model = this.model;
    this._status.dataset.status = model.status;
    this._status.textContent = model.statusLabel;
    this._save.disabled = model.path === null || model.status === 'saving';
    this.title.className = model.dirty ? 'jp-mod-dirty' : '';
  }

  private _render(): void {
    const model = this.model;
    this._pathLabel.textContent = model.path ?? 'Choose a file to edit';
    const notice = model.notice;
    this._notice.hidden = notice === null;
    this._notice.dataset.code = notice?.code ?? '';
    this._notice.textContent = notice
      ? `${notice.path} cannot be opened here: ${notice.text} (${notice.code})`
      : '';
    this._host.hidden = model.path === null;
    this._renderStatus();
    this._markCurrent();
  }
}
