/**
 * The front end of `%%operator` and `%%operator_agent` in a notebook: the kernel's
 * magics ask, through a comm (target `jupyter_operator.cells`), for a cell of this
 * very notebook to be run as if the person ran it, for an approved change to this
 * notebook to be applied to the open notebook (livecells.ts; the file is not written),
 * or for the open notebook to take the cell changes the kernel just wrote to its file
 * (where the page could not take the change itself). Registered on every notebook's kernel; a
 * kernel hears an acknowledgement before it sends anything (kernel/live_runs.py).
 */
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import { applyLiveChange } from './livecells';
import { runInNotebook } from './liverun';
import { ILiveChange, IRunRequest } from './types';

export const CELLS_TARGET = 'jupyter_operator.cells';

/** One cell change the kernel wrote: the cell as it is in the file now, or gone. */
export interface ICellSync {
  id: string;
  index: number;
  cell_type: 'code' | 'markdown' | 'raw';
  source: string | null; // null: the cell was deleted
}

/** Bring the open notebook's cells in line with changes written to its file. */
export function applySync(panel: NotebookPanel, changes: readonly ICellSync[]): void {
  const model = panel.content.model;
  if (!model) {
    return;
  }
  const shared = model.sharedModel;
  for (const change of changes) {
    const at = Array.from({ length: shared.cells.length }, (_, i) => i).find(
      i => shared.cells[i].id === change.id
    );
    if (change.source === null) {
      if (at !== undefined) {
        shared.deleteCell(at);
      }
    } else if (at === undefined) {
      shared.insertCell(Math.min(change.index, shared.cells.length), {
        cell_type: change.cell_type,
        id: change.id,
        source: change.source
      });
    } else if (shared.cells[at].cell_type !== change.cell_type) {
      shared.deleteCell(at);
      shared.insertCell(at, { cell_type: change.cell_type, id: change.id, source: change.source });
    } else {
      const cell = shared.cells[at];
      if (cell.getSource() !== change.source) {
        cell.setSource(change.source);
      }
      if (at !== change.index && change.index < shared.cells.length) {
        shared.moveCell(at, change.index);
      }
    }
  }
}

async function answer(panel: NotebookPanel, comm: Kernel.IComm, msg: KernelMessage.ICommMsgMsg): Promise<void> {
  const data = msg.content.data as { run?: IRunRequest; sync?: ICellSync[]; apply?: ILiveChange };
  if (data.apply) {
    // An approved change to this notebook: applied to the open model, never to its file.
    const shared = panel.content.model?.sharedModel;
    const result = shared ? await applyLiveChange(shared, data.apply) : { state: 'gone' };
    comm.send({ live: result as unknown as KernelMessage.ICommMsgMsg['content']['data'] });
    comm.close();
  } else if (data.sync) {
    applySync(panel, data.sync);
    comm.send({ synced: 1 });
    comm.close();
  } else if (data.run) {
    const outcome = await runInNotebook(panel, data.run, null);
    comm.send({ outcome: outcome as unknown as KernelMessage.ICommMsgMsg['content']['data'] });
    comm.close();
  }
}

function serve(panel: NotebookPanel, comm: Kernel.IComm): void {
  // Not awaited: the kernel connection handles its messages one after another, waiting for
  // each handler, and the run needs the kernel's replies (kernel info, execute) meanwhile.
  comm.onMsg = msg => {
    answer(panel, comm, msg).catch(reason => {
      console.error('jupyter-operator: a cell run from the kernel failed', reason);
      comm.send({ outcome: { status: 'unavailable', message: String(reason) } });
      comm.close();
    });
  };
  comm.send({ ack: 1 });
}

/** Answer every notebook kernel's requests for this notebook's cells. */
export function serveKernelRuns(tracker: INotebookTracker): void {
  const served = new WeakSet<Kernel.IKernelConnection>();
  const attach = (panel: NotebookPanel): void => {
    const hook = (): void => {
      const kernel = panel.sessionContext.session?.kernel;
      if (!kernel || served.has(kernel)) {
        return;
      }
      served.add(kernel);
      kernel.registerCommTarget(CELLS_TARGET, comm => serve(panel, comm));
    };
    panel.sessionContext.kernelChanged.connect(hook);
    void panel.sessionContext.ready.then(hook);
  };
  tracker.widgetAdded.connect((_, panel) => attach(panel));
  tracker.forEach(attach);
}
