/**
 * The History grouped by run: each run's changes together (newest run first), and what an
 * "Undo this run" restores, in words. Pure (no DOM, no Lab imports), so jest tests it.
 */
import { IExecutionRecord, IHistoryEntry } from './types';

/** The changes of one run (a panel run, an Ask turn, a proposal), newest first. */
export interface IRunGroup {
  /** The run's session id ('' when the history does not know it). */
  run: string;
  entries: IHistoryEntry[];
  /** Changes still applied: what "Undo this run" would undo. */
  live: number;
}

/** Group entries (oldest first, as the server sends them) by run; the newest run first. */
export function groupByRun(entries: readonly IHistoryEntry[]): IRunGroup[] {
  const groups = new Map<string, IRunGroup>();
  for (const entry of [...entries].reverse()) {
    const run = entry.session ?? '';
    let group = groups.get(run);
    if (!group) {
      group = { run, entries: [], live: 0 };
      groups.set(run, group);
    }
    group.entries.push(entry);
    group.live += entry.undone ? 0 : 1;
  }
  return [...groups.values()];
}

/** What undoing `entry` restores, in words. */
export function restoreText(entry: IHistoryEntry): string {
  const path = entry.path ?? '';
  if (entry.action.startsWith('nb.') && entry.change === 'modify') {
    return `the cells of ${path} as they were before ${entry.command_id}`;
  }
  switch (entry.change) {
    case 'create':
      return `${path} removed again (${entry.command_id} created it)`;
    case 'delete':
      return `${path} put back (${entry.command_id} deleted it)`;
    default:
      return `${path} as it was before ${entry.command_id}`;
  }
}

/** A cell run of the run, as the preview lists it (a run is never undone). */
export function cellRunText(run: IExecutionRecord): string {
  const what = run.action === 'nb.runCell' ? `cell ${run.cell_id ?? '?'}` : run.action;
  const count = run.execution_count ? ` [${run.execution_count}]` : '';
  return `${what} of ${run.notebook}${count}: ${run.status}`;
}
