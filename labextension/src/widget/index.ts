/**
 * The notebook cards' anywidget module: one widget per run, drawn by the panel's
 * components (runview.ts). anywidget loads it from the Python package, so the cards
 * need no lab extension and work in JupyterLab, Notebook 7, VS Code and Colab.
 */
import { HistoryPanel, IHistoryWidgetState } from './historyview';
import { languageRegistry } from './languages';
import { Requests } from './messages';
import type { IRunWidgetState } from './messages';
import { RunView } from './runview';

/** The part of anywidget's model the view uses. */
interface IModel {
  get(name: 'run_json'): string;
  get(name: 'history'): IHistoryWidgetState;
  get(name: 'view'): string | undefined;
  on(event: string, callback: (...args: unknown[]) => void): void;
  off(event: string, callback: (...args: unknown[]) => void): void;
  send(content: unknown): void;
}

/** True when the page defines JupyterLab's theme variables (JupyterLab, Notebook 7). */
function hasJupyterTheme(): boolean {
  return getComputedStyle(document.body).getPropertyValue('--jp-layout-color1').trim() !== '';
}

function render({ model, el }: { model: IModel; el: HTMLElement }): () => void {
  const requests = new Requests(model);
  if (!hasJupyterTheme()) {
    // VS Code, Colab: the stylesheet's own light and dark values of the --jp-* variables.
    el.classList.add('jp-Operator-standalone');
  }
  const onMessage = (message: unknown): void => {
    requests.receive(message);
  };
  model.on('msg:custom', onMessage);
  // `view` tells the history (`%operator history`) from a run's cards.
  const trait = model.get('view') === 'history' ? 'history' : 'run_json';
  let draw: () => void;
  let dispose: () => void;
  if (trait === 'history') {
    const history = new HistoryPanel(requests, languageRegistry());
    el.append(history.node);
    draw = () => history.render(model.get('history'));
    dispose = () => requests.abandon('The view was closed.');
  } else {
    const view = new RunView(requests, languageRegistry());
    el.append(view.node);
    draw = () => view.render(JSON.parse(model.get('run_json')) as IRunWidgetState);
    dispose = () => view.dispose();
  }
  model.on(`change:${trait}`, draw);
  draw();
  return () => {
    model.off(`change:${trait}`, draw);
    model.off('msg:custom', onMessage);
    dispose();
  };
}

export default { render };
