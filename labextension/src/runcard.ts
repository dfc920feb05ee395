/**
 * The run part of a card (`nb.runCell`, `nb.restartKernel`, `nb.rebuildState`, or a
 * change approved with Approve & Run): the exact source that will run, coloured,
 * the notebook and its kernel, where the code runs and with what reach, what ran
 * before in this kernel, and the outputs once it ran.
 */
import { syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState, StateEffect } from '@codemirror/state';
import { EditorView, highlightSpecialChars } from '@codemirror/view';
import {
  IEditorLanguageRegistry,
  jupyterHighlightStyle,
  jupyterTheme
} from '@jupyterlab/codemirror';

import { visibleText } from './diff';
import { el } from './dom';
import { kernelLine } from './state';
import { IOperatorItem } from './types';

/** A read-only, coloured view of a cell's source. */
export class SourceView {
  readonly view: EditorView;
  private _disposed = false;
  private _language = new Compartment();

  constructor(host: HTMLElement, source: string, languages: IEditorLanguageRegistry | null) {
    this.view = new EditorView({
      parent: host,
      state: EditorState.create({
        doc: source,
        extensions: [
          EditorState.readOnly.of(true),
          EditorView.editable.of(false),
          EditorView.contentAttributes.of({ 'aria-label': 'The source that will run' }),
          highlightSpecialChars(),
          jupyterTheme,
          syntaxHighlighting(jupyterHighlightStyle),
          this._language.of([])
        ]
      })
    });
    void this._colour(languages);
  }

  dispose(): void {
    this._disposed = true;
    this.view.destroy();
  }

  private async _colour(languages: IEditorLanguageRegistry | null): Promise<void> {
    const found = languages?.findByFileName('cell.py');
    const language = found ? await languages?.getLanguage(found) : null;
    if (language?.support && !this._disposed) {
      const effects: StateEffect<unknown> = this._language.reconfigure(language.support);
      this.view.dispatch({ effects });
    }
  }
}

/** The kernel lines of a run card: notebook, kernel, reach, history, restart warning. */
export function kernelNode(item: IOperatorItem): HTMLElement {
  const execution = item.execution!;
  const { kernel, request } = execution;
  const node = el('div', 'jp-Operator-run-kernel');
  node.append(el('p', 'jp-Operator-run-where', visibleText(kernelLine(execution))));
  const unsafe = kernel.where === 'live' || !kernel.sandboxed;
  const reach = el('p', `jp-Operator-run-reach${unsafe ? ' jp-Operator-warning' : ''}`, `Runs in ${visibleText(kernel.reach)}.`);
  reach.setAttribute('role', 'note');
  node.append(reach);
  if (execution.ran_before.length) {
    const ran = execution.ran_before.map(r => `${r.cell_id} [${r.execution_count ?? ' '}]`).join(', ');
    node.append(el('p', 'jp-Operator-run-before', `Ran before in this kernel: ${visibleText(ran)}`));
  }
  if (request.restart) {
    node.append(
      el('p', 'jp-Operator-warning jp-Operator-run-restart', 'The kernel restarts: every variable and import in it is lost.')
    );
  }
  return node;
}

/** The sources a run card shows: one cell, or each cell of a rebuild. */
export function sourcesOf(item: IOperatorItem): [string | null, string][] {
  const request = item.execution?.request;
  if (!request) {
    return [];
  }
  if (request.cells.length) {
    return request.cells.map(([id, source]) => [id, source]);
  }
  return request.source ? [[null, request.source]] : [];
}
