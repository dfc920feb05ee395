/**
 * Edit before approve, in the panel: a CodeMirror 6 editor (JupyterLab's own
 * theme and languages) holding the proposed new content, and beside it the live
 * diff of what "Approve edited" will write. JupyterLab does not ship
 * `@codemirror/merge`, so the diff is the panel's own diff view, recomputed in
 * the browser (textdiff.ts) a moment after each keystroke.
 *
 * The pane never writes anything: "Approve edited" hands the exact text to the
 * card, which sends it as `content` with the approve decision.
 */
import { history, historyKeymap, defaultKeymap, indentWithTab } from '@codemirror/commands';
import { syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import {
  IEditorLanguageRegistry,
  jupyterHighlightStyle,
  jupyterTheme
} from '@jupyterlab/codemirror';

import { DiffView } from './diffview';
import { button, el } from './dom';
import { diffCounts, keepLineEndings, unifiedDiff } from './textdiff';
import { IEditContent } from './types';

/** Options of {@link EditPane}. */
export interface IEditPaneOptions {
  content: IEditContent;
  languages: IEditorLanguageRegistry | null;
  /** Approve with exactly this text (line ends as the proposal had them). */
  onApprove: (text: string) => void;
  onCancel: () => void;
}

/** Milliseconds after the last keystroke before the diff is drawn again. */
export const DIFF_DELAY_MS = 120;

/** The editor, the live diff and the Approve edited / Cancel buttons. */
export class EditPane {
  readonly node: HTMLElement;
  readonly editor: EditorView;
  private _diffHost: HTMLElement;
  private _diff: DiffView | null = null;
  private _status: HTMLElement;
  private _approve: HTMLButtonElement;
  private _timer: number | null = null;
  private _delay = DIFF_DELAY_MS;
  private _language = new Compartment();
  private _disposed = false;

  constructor(private _options: IEditPaneOptions) {
    const { content } = _options;
    const node = (this.node = el('div', 'jp-Operator-edit'));
    node.append(
      el(
        'p',
        'jp-Operator-edit-note',
        'Edit the new content. The diff shows what Approve edited will write; the model is ' +
          'told what you changed from its proposal.'
      )
    );
    const split = el('div', 'jp-Operator-edit-split');
    const editorHost = el('div', 'jp-Operator-edit-editor');
    this._diffHost = el('div', 'jp-Operator-diff jp-Operator-edit-diff');
    split.append(editorHost, this._diffHost);
    this._status = el('p', 'jp-Operator-edit-status');
    this._status.setAttribute('aria-live', 'polite');
    this._approve = button('Approve edited', 'jp-mod-accept jp-Operator-approve-edited', () =>
      this._options.onApprove(this.text())
    );
    const actions = el('div', 'jp-Operator-card-actions');
    actions.append(
      this._approve,
      button('Cancel edit', 'jp-mod-styled jp-Operator-cancel-edit', () => this._options.onCancel())
    );
    node.append(split, this._status, actions);
    this.editor = new EditorView({
      parent: editorHost,
      state: EditorState.create({
        doc: content.proposed ?? '',
        extensions: [
          lineNumbers(),
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
          jupyterTheme,
          syntaxHighlighting(jupyterHighlightStyle),
          EditorView.contentAttributes.of({ 'aria-label': `Edit the new content of ${content.id}` }),
          EditorView.updateListener.of(update => {
            if (update.docChanged) {
              this._schedule();
            }
          }),
          this._language.of([])
        ]
      })
    });
    this._redraw();
    void this._loadLanguage();
  }

  /** The exact text Approve edited sends. */
  text(): string {
    return keepLineEndings(this._options.content.proposed ?? '', this.editor.state.doc.toString());
  }

  /** Enable or disable Approve edited (while a request is in flight). */
  setBusy(busy: boolean): void {
    this._approve.disabled = busy;
  }

  /** Free both editors. */
  dispose(): void {
    this._disposed = true;
    if (this._timer !== null) {
      window.clearTimeout(this._timer);
    }
    this._diff?.dispose();
    this.editor.destroy();
  }

  private _schedule(): void {
    if (this._timer !== null) {
      window.clearTimeout(this._timer);
    }
    this._timer = window.setTimeout(() => {
      this._timer = null;
      this._redraw();
    }, this._delay);
  }

  private _redraw(): void {
    if (this._disposed) {
      return;
    }
    const started = performance.now();
    const { content, languages } = this._options;
    const text = this.text();
    const path = content.path ?? '';
    const diff = unifiedDiff(content.original, text, path);
    this._diff?.dispose();
    this._diff = null;
    this._diffHost.replaceChildren();
    if (diff) {
      this._diff = new DiffView(this._diffHost, { diff, path: content.path, languages });
    } else {
      this._diffHost.append(el('p', 'jp-Operator-edit-nochange', 'No change to the file.'));
    }
    const mine = diffCounts(unifiedDiff(content.proposed, text, path));
    this._status.textContent =
      mine.added || mine.removed
        ? `Your edit: +${mine.added} −${mine.removed} lines compared with the proposal.`
        : 'Same as the proposal.';
    this.node.dataset.edited = String(mine.added + mine.removed > 0);
    // A large file: wait longer after a keystroke, so typing never waits for the diff.
    this._delay = Math.min(2000, Math.max(DIFF_DELAY_MS, 2 * (performance.now() - started)));
  }

  private async _loadLanguage(): Promise<void> {
    const { languages, content } = this._options;
    if (!languages || !content.path) {
      return;
    }
    try {
      const found = languages.findByFileName(content.path);
      const language = found ? await languages.getLanguage(found) : null;
      if (language?.support && !this._disposed) {
        this.editor.dispatch({ effects: this._language.reconfigure(language.support) });
      }
    } catch (reason) {
      console.warn('jupyter-operator: no syntax highlighting for this file', reason);
    }
  }
}
