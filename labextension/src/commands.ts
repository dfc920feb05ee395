/** Command ids and their registration. */
import { JupyterFrontEnd } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { PathExt } from '@jupyterlab/coreutils';
import { INotebookTracker } from '@jupyterlab/notebook';

import { cellCommandText, ICellLike } from './celltext';
import { operatorIcon } from './icon';
import { OperatorPanel } from './panel';

/** Every command the extension adds. */
export namespace CommandIDs {
  export const open = 'jupyter-operator:open';
  export const runCell = 'jupyter-operator:run-cell';
  export const runText = 'jupyter-operator:run-text';
  export const approveAll = 'jupyter-operator:approve-all';
  export const rejectAll = 'jupyter-operator:reject-all';
  export const copyResults = 'jupyter-operator:copy-results';
  export const undo = 'jupyter-operator:undo';
  export const copySpec = 'jupyter-operator:copy-spec';
  export const fixError = 'jupyter-operator:fix-error';
}

/** Register the commands (and palette entries when a palette exists). */
export function addCommands(
  app: JupyterFrontEnd,
  panel: OperatorPanel,
  tracker: INotebookTracker | null,
  palette: ICommandPalette | null
): void {
  const { commands, shell } = app;
  const reveal = (): void => {
    shell.activateById(panel.id);
  };

  commands.addCommand(CommandIDs.open, {
    label: 'Operator: Open panel',
    caption: 'Open the Operator side panel',
    icon: operatorIcon,
    execute: reveal
  });

  commands.addCommand(CommandIDs.runCell, {
    label: args => (args.toolbar ? '' : 'Operator: Run commands in active cell'),
    caption: 'Run operator commands in this cell',
    icon: operatorIcon,
    isEnabled: () => !!tracker?.activeCell,
    execute: async () => {
      const cell = tracker?.activeCell;
      if (!cell) {
        return;
      }
      reveal();
      const found = cellCommandText(cell.model.toJSON() as ICellLike);
      if (!found) {
        panel.showError('The active cell has no OPERATOR_CMD blocks in its source or outputs.');
        return;
      }
      // Paths are taken from the notebook's own folder, as its kernel (and `%operator`,
      // whose root defaults to the kernel's working directory) takes them.
      const notebookPath = tracker?.currentWidget?.context.path ?? '';
      const folder = PathExt.dirname(notebookPath);
      panel.setText(
        found.text,
        `${found.origin === 'source' ? 'From the cell source' : "From the cell's output"}` +
          ` (paths from ${folder || 'the server root'})`
      );
      await panel.run(found.text, { folder });
    }
  });

  commands.addCommand(CommandIDs.runText, {
    label: 'Operator: Run pasted reply',
    execute: async () => {
      reveal();
      await panel.run();
    }
  });

  commands.addCommand(CommandIDs.approveAll, {
    label: 'Operator: Approve all',
    isEnabled: () => panel.hasPending,
    execute: () => panel.decideAll('approve')
  });

  commands.addCommand(CommandIDs.rejectAll, {
    label: 'Operator: Reject all',
    isEnabled: () => panel.hasPending,
    execute: () => panel.decideAll('reject')
  });

  commands.addCommand(CommandIDs.copyResults, {
    label: 'Operator: Copy results',
    isEnabled: () => panel.hasResults,
    execute: () => panel.copyResults()
  });

  commands.addCommand(CommandIDs.undo, {
    label: 'Operator: Undo last change',
    execute: () => panel.undoLast()
  });

  commands.addCommand(CommandIDs.copySpec, {
    label: 'Operator: Copy interface specification',
    execute: () => panel.copySpec()
  });

  commands.addCommand(CommandIDs.fixError, {
    label: 'Operator: Fix this error',
    caption: 'Ask the model to fix the error of the active cell (or of the cell given)',
    icon: operatorIcon,
    isEnabled: () => !!tracker?.activeCell,
    execute: async args => {
      // A cell's button names its notebook and cell; the shortcut takes the active cell.
      const notebook =
        typeof args.path === 'string'
          ? tracker?.find(p => p.context.path === args.path)
          : tracker?.currentWidget;
      const model = notebook?.content.model;
      if (!notebook || !model) {
        return;
      }
      const cells = Array.from(model.cells, cell => cell.toJSON()) as Parameters<OperatorPanel['fixError']>[1];
      const index =
        typeof args.cellId === 'string'
          ? cells.findIndex(c => c.id === args.cellId)
          : notebook.content.activeCellIndex;
      reveal();
      await panel.fixError(notebook.context.path, cells, index);
    }
  });

  if (palette) {
    for (const command of Object.values(CommandIDs)) {
      palette.addItem({ command, category: 'Operator' });
    }
  }
}
