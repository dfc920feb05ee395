/**
 * Running an approved cell in the notebook open in JupyterLab, exactly as if the
 * person had run it: JupyterLab's own `CodeCell.execute` with the notebook's
 * session, so the output lands in the open cell and the execution count in its
 * margin. What ran comes back as an outcome (nbformat outputs) for the model.
 *
 * Guards first, nothing runs when one fails (`stale`): the cell's source must
 * still have the sha256 the person saw, and the kernel must be the one the card
 * was shown with (its identity is the kernel's own session id, which a restart
 * changes). A notebook with no unsaved edits before the run is saved after it,
 * so the file matches what the model reads next; one with unsaved edits is left
 * for the person to save.
 */
import { CodeCell } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';

import { IRunRequest } from './types';

/** What the kernel did with a request (`execution.Outcome` on the server). */
export interface IRunOutcome {
  status: 'ok' | 'error' | 'timeout' | 'interrupted' | 'kernel_died' | 'stale' | 'unavailable';
  execution_count: number | null;
  duration_ms: number;
  outputs: Record<string, unknown>[];
  kernel_identity: string | null;
  message: string;
  /** A rebuild's outcome per cell; a step itself has none (the server refuses nested steps). */
  steps?: IRunOutcome[];
}

/** How the runner finds a notebook (open, or opened for the run). */
export interface INotebookFinder {
  (path: string): Promise<NotebookPanel | null>;
}

function outcome(status: IRunOutcome['status'], message = ''): IRunOutcome {
  return {
    status,
    execution_count: null,
    duration_ms: 0,
    outputs: [],
    kernel_identity: null,
    message,
    steps: []
  };
}

/** The sha256 of a text as lowercase hex (what the server hashed the source with). */
export async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), b => b.toString(16).padStart(2, '0')).join('');
}

/** The identity of the notebook's kernel now (its own session id), or null without one. */
export async function kernelIdentity(panel: NotebookPanel): Promise<string | null> {
  const kernel = panel.sessionContext.session?.kernel;
  if (!kernel) {
    return null;
  }
  try {
    const reply = await kernel.requestKernelInfo();
    return reply?.header.session ?? null;
  } catch {
    return null;
  }
}

function findCell(panel: NotebookPanel, id: string | null, index: number | null): CodeCell | null {
  const cells = panel.content.widgets;
  const found = id !== null ? cells.find(cell => cell.model.id === id) : cells[index ?? -1];
  return found instanceof CodeCell ? found : null;
}

/** Run one cell with a time limit; a kernel that dies or restarts ends the wait. */
async function executeCell(
  panel: NotebookPanel,
  cell: CodeCell,
  timeoutS: number
): Promise<IRunOutcome> {
  const context = panel.sessionContext;
  const started = performance.now();
  let timedOut = false;
  let died = false;
  let onStatus: (() => void) | null = null;
  const dead = new Promise<'died'>(resolve => {
    onStatus = () => {
      const status = context.kernelDisplayStatus;
      if (status === 'dead' || status === 'restarting' || status === 'autorestarting') {
        died = true;
        resolve('died');
      }
    };
    context.statusChanged.connect(onStatus);
  });
  const timer = window.setTimeout(() => {
    timedOut = true;
    void context.session?.kernel?.interrupt();
  }, timeoutS * 1000);
  let reply: Awaited<ReturnType<typeof CodeCell.execute>> | 'died';
  try {
    reply = await Promise.race([CodeCell.execute(cell, context), dead]);
  } finally {
    window.clearTimeout(timer);
    if (onStatus) {
      context.statusChanged.disconnect(onStatus);
    }
  }
  const outputs = cell.model.outputs.toJSON() as unknown as Record<string, unknown>[];
  const hasError = outputs.some(output => output.output_type === 'error');
  let status: IRunOutcome['status'] = hasError ? 'error' : 'ok';
  if (died || reply === 'died') {
    status = 'kernel_died';
  } else if (timedOut) {
    status = 'timeout';
  } else if (reply && reply.content.status === 'aborted') {
    status = 'interrupted';
  } else if (reply && reply.content.status === 'error') {
    status = 'error';
  }
  return {
    status,
    execution_count: cell.model.executionCount ?? null,
    duration_ms: Math.round(performance.now() - started),
    outputs,
    kernel_identity: null,
    message: '',
    steps: []
  };
}

/**
 * Carry out `request` in `panel`: check the guards, restart when asked, run the
 * cell (or the cells of a rebuild), save a notebook that had no unsaved edits.
 * `expectedKernel` is the identity the card was shown with (null: any kernel).
 */
export async function runInNotebook(
  panel: NotebookPanel,
  request: IRunRequest,
  expectedKernel: string | null,
  unedited?: () => Promise<boolean>
): Promise<IRunOutcome> {
  await panel.context.ready;
  await panel.sessionContext.ready;
  if (!panel.sessionContext.session?.kernel) {
    return outcome('unavailable', 'the notebook has no kernel; nothing ran.');
  }
  const expected = expectedKernel ?? request.kernel_identity;
  if (expected !== null && (await kernelIdentity(panel)) !== expected) {
    return outcome(
      'stale',
      'the kernel restarted since the preview; nothing ran. Read the cells again (nb.readCells) and run them again.'
    );
  }
  // "Clean" as the panel judges open documents: no edits of the person's (a kernel's metadata
  // echo marks a notebook dirty without any).
  const clean = unedited ? await unedited() : !panel.context.model.dirty;
  const cells: [string | null, string][] = request.cells.length
    ? request.cells.map(([id, , sha]) => [id, sha])
    : request.source
      ? [[request.cell_id, request.source_sha256]]
      : [];
  // Every guard before anything runs: a rebuild never stops half-way on a stale cell.
  const targets: CodeCell[] = [];
  for (const [id, sha] of cells) {
    const cell = findCell(panel, id, id === null ? request.index : null);
    if (!cell) {
      return outcome('stale', `the cell ${id ?? request.index} is no longer in the open notebook; nothing ran.`);
    }
    if ((await sha256(cell.model.sharedModel.getSource())) !== sha) {
      return outcome(
        'stale',
        'the cell was edited since the preview; nothing ran. Read it again (nb.readCells) before running it.'
      );
    }
    targets.push(cell);
  }
  if (request.restart) {
    await panel.sessionContext.restartKernel();
    await panel.sessionContext.ready;
  }
  const steps: IRunOutcome[] = [];
  for (const cell of targets) {
    const step = await executeCell(panel, cell, request.timeout_s);
    steps.push(step);
    if (step.status !== 'ok') {
      break;
    }
  }
  if (clean && panel.context.model.dirty) {
    await panel.context.save();
  }
  const identity = await kernelIdentity(panel);
  if (request.cells.length) {
    const failed = steps.find(step => step.status !== 'ok');
    return {
      ...outcome(failed ? failed.status : 'ok'),
      execution_count: steps.length ? steps[steps.length - 1].execution_count : null,
      duration_ms: steps.reduce((sum, step) => sum + step.duration_ms, 0),
      kernel_identity: identity,
      steps: steps.map(({ steps: _none, ...step }) => ({ ...step, kernel_identity: identity }))
    };
  }
  if (!steps.length) {
    return { ...outcome('ok', 'restarted'), kernel_identity: identity };
  }
  return { ...steps[0], kernel_identity: identity };
}

/** Run a request in the notebook at `path` (opened if needed). */
export async function runAtPath(
  find: INotebookFinder,
  path: string | null,
  request: IRunRequest,
  expectedKernel: string | null,
  unedited?: (path: string) => Promise<boolean>
): Promise<IRunOutcome> {
  const panel = path ? await find(path) : null;
  if (!panel) {
    return outcome('unavailable', `${request.notebook} could not be opened in JupyterLab; nothing ran.`);
  }
  try {
    return await runInNotebook(
      panel,
      request,
      expectedKernel,
      unedited && path ? () => unedited(path) : undefined
    );
  } catch (reason) {
    return outcome('unavailable', `the run could not start (${String(reason)}); nothing ran.`);
  }
}
