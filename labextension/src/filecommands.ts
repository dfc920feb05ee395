/** The commands of the workspace files view: open it, and save with Ctrl/Cmd+S. */
import { JupyterFrontEnd, LabShell } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { IEditorLanguageRegistry } from '@jupyterlab/codemirror';

import { FileSocket } from './filesocket';
import { WorkspaceFilesView } from './files';
import { operatorIcon } from './icon';

/** Command ids of the workspace files view. */
export namespace FileCommandIDs {
  export const open = 'jupyter-operator:open-workspace-files';
  export const save = 'jupyter-operator:save-workspace-file';
}

/**
 * Register the commands, the Ctrl/Cmd+S binding and the palette entry, in
 * JupyterLab only: Notebook 7's pages have no main area that can hold the view.
 */
export function addFileCommands(
  app: JupyterFrontEnd,
  palette: ICommandPalette | null,
  languages: IEditorLanguageRegistry | null
): void {
  if (!(app.shell instanceof LabShell)) {
    return;
  }
  let view: WorkspaceFilesView | null = null;
  const live = (): WorkspaceFilesView | null => (view && !view.isDisposed ? view : null);

  app.commands.addCommand(FileCommandIDs.open, {
    label: 'Operator: Open workspace files',
    caption: 'Edit the files of an Operator workspace through the file API',
    icon: operatorIcon,
    execute: () => {
      let current = live();
      if (!current) {
        const socket = new FileSocket(app.serviceManager.serverSettings);
        current = view = new WorkspaceFilesView({ socket, languages });
        app.shell.add(current, 'main');
        void current.start();
      }
      app.shell.activateById(current.id);
    }
  });

  app.commands.addCommand(FileCommandIDs.save, {
    label: 'Operator: Save workspace file',
    isEnabled: () => live()?.model.path != null,
    execute: () => live()?.save()
  });
  // More specific than the document manager's `body` binding, so it wins inside the view.
  app.commands.addKeyBinding({
    command: FileCommandIDs.save,
    keys: ['Accel S'],
    selector: '.jp-OperatorFiles'
  });

  palette?.addItem({ command: FileCommandIDs.open, category: 'Operator' });
}
