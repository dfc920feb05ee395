/**
 * jupyter-operator JupyterLab / Notebook 7 extension: the Operator side panel,
 * and the "Workspace files" view of the Editor File API.
 *
 * Only core application tokens are required; the palette, notebook tracker,
 * layout restorer and language registry are optional so the plugin also loads
 * in Notebook 7 (and in any shell without them).
 */
import {
  ILayoutRestorer,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { ICommandPalette, Notification } from '@jupyterlab/apputils';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ISettingRegistry } from '@jupyterlab/settingregistry';

import { OperatorClient } from './client';
import { addCardCommands } from './cardcommands';
import { addCommands, CommandIDs } from './commands';
import { addFileCommands } from './filecommands';
import { FixButtons } from './fixerror';
import { serveKernelRuns } from './kernelruns';
import { OpenNotebookReport } from './livecells';
import { IMentionCell } from './mentions';
import { ModelSettingsSync } from './modelsettings';
import { OperatorPanel } from './panel';
import { arrivalMessage } from './proposals';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-operator:plugin',
  description: 'Review, approve and apply file operations proposed by a language model.',
  autoStart: true,
  optional: [ICommandPalette, INotebookTracker, ILayoutRestorer, IEditorLanguageRegistry, ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    palette: ICommandPalette | null,
    tracker: INotebookTracker | null,
    restorer: ILayoutRestorer | null,
    languages: IEditorLanguageRegistry | null,
    settingRegistry: ISettingRegistry | null
  ) => {
    const client = new OperatorClient(app.serviceManager.serverSettings);
    const panel = new OperatorPanel({
      client,
      languages,
      tracker,
      readDocument: async path => {
        const notebook = path.toLowerCase().endsWith('.ipynb');
        const options = notebook
          ? { type: 'notebook' as const, content: true }
          : { type: 'file' as const, format: 'text' as const, content: true };
        return (await app.serviceManager.contents.get(path, options)).content;
      },
      mainWidgets: () => app.shell.widgets('main'),
      // A cell run in a notebook that is not open opens it (its kernel starts as usual).
      openNotebook: async path => {
        const open = tracker?.find(panel => panel.context.path === path);
        if (open) {
          return open;
        }
        const widget = await app.commands.execute('docmanager:open', { path, factory: 'Notebook' });
        return widget instanceof NotebookPanel ? widget : null;
      }
    });
    if (tracker) {
      serveKernelRuns(tracker);
      // The server sends approved changes to the notebooks open here (livecells.ts).
      const report = new OpenNotebookReport(client, () =>
        tracker.filter(p => !p.isDisposed).map(p => p.context.path)
      );
      const changed = () => void report.changed();
      tracker.widgetAdded.connect((_, nb) => {
        changed();
        nb.context.pathChanged.connect(changed);
        nb.disposed.connect(() => setTimeout(changed, 0));
      });
      report.start();
      // A cell whose run ended in an error offers "Fix with Operator" on its error output.
      new FixButtons(tracker, (nb, cellId) =>
        void app.commands.execute(CommandIDs.fixError, { path: nb.context.path, cellId })
      );
    }
    // A proposal of an MCP client waits for the person: say so wherever they are in Lab.
    panel.proposalsArrived.connect((_, arrived) => {
      for (const proposal of arrived) {
        Notification.info(arrivalMessage(proposal), {
          autoClose: 15000,
          actions: [
            {
              label: 'Review',
              caption: 'Open the Operator panel on this proposal',
              callback: () => {
                app.shell.activateById(panel.id);
                void panel.showSession(proposal.session);
              }
            }
          ]
        });
      }
    });
    // The Ask view keeps one thread per notebook (per folder for other files): the one of
    // the document in the main area.
    const documentPath = (): string | null => {
      const context = (app.shell.currentWidget as { context?: { path?: unknown } } | null)?.context;
      return typeof context?.path === 'string' ? context.path : null;
    };
    panel.ask.setThreadSource(() => panel.threadKeyOf(documentPath()));
    app.shell.currentChanged?.connect(() => void panel.ask.threadChanged());
    // `@` in the Ask box offers the cells of the notebook in the main area, as open.
    panel.ask.setNotebookSource(() => {
      const open = tracker?.currentWidget;
      const notebook = open && !open.isDisposed ? panel.inShownWorkspace(open.context.path) : null;
      const cells = open?.content.model?.cells;
      if (!notebook || !cells) {
        return null;
      }
      const json = Array.from({ length: cells.length }, (_, i) => cells.get(i).toJSON());
      return { notebook, cells: json as IMentionCell[] };
    });
    // The settings editor lists the server's model endpoints too (modelsettings.ts).
    settingRegistry
      ?.load(plugin.id)
      .then(setting => {
        const notify = (message: string) => void Notification.error(message, { autoClose: 10000 });
        return new ModelSettingsSync(setting, app.serviceManager.serverSettings, panel.ask.models, notify).start();
      })
      .catch(reason => console.warn('Operator: the model endpoints setting is not available', reason));
    app.shell.add(panel, 'right', { rank: 600 });
    // No model on the server at all: Ask opens on its "Add model" form.
    void app.restored.then(() => panel.ask.offerModel());
    restorer?.add(panel, 'jupyter-operator');
    addCommands(app, panel, tracker, palette);
    addCardCommands(app, panel.node, palette);
    addFileCommands(app, palette, languages);
  }
};

export default plugin;
