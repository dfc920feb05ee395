/**
 * The request of "Fix with Operator" (fixerror.ts): the failed cell, its outputs and the
 * notebook's cells as open, for `POST agent/runs`. Pure (no Lab imports), so jest tests it.
 */

/** A notebook cell as the fix request sends it. */
export interface IFixCell {
  cell_type: string;
  id: string | null;
  source: string;
}

/** `fix` of `POST agent/runs` (server/bodies.py `FixBody`). */
export interface IFixRequest {
  /** The notebook's path relative to the workspace. */
  notebook: string;
  cell_id: string;
  cell_index: number;
  source: string;
  outputs: unknown[];
  cells: IFixCell[];
}

/** The index of the first error output in nbformat `outputs`, or -1. */
export function errorIndex(outputs: readonly unknown[]): number {
  return outputs.findIndex(
    output => !!output && typeof output === 'object' && (output as { output_type?: unknown }).output_type === 'error'
  );
}

/**
 * The notebook's path relative to its workspace: `folder` is the notebook's folder within
 * the workspace (null: the workspace's own folder), as `pickWorkspace` gives it.
 */
export function notebookInWorkspace(serverPath: string, folder: string | null): string {
  const name = serverPath.split('/').pop() ?? serverPath;
  return folder ? `${folder.replace(/\/+$/, '')}/${name}` : name;
}

/** The fix request for the cell at `index` of `cells` (nbformat cells, as open). */
export function fixRequest(
  notebook: string,
  cells: readonly { cell_type: string; id?: string; source: string | string[]; outputs?: unknown[] }[],
  index: number
): IFixRequest | null {
  const cell = cells[index];
  const outputs = cell?.outputs ?? [];
  if (!cell || cell.cell_type !== 'code' || !cell.id || errorIndex(outputs) < 0) {
    return null;
  }
  const text = (source: string | string[]) => (Array.isArray(source) ? source.join('') : source);
  return {
    notebook,
    cell_id: cell.id,
    cell_index: index,
    source: text(cell.source),
    outputs: [...outputs],
    cells: cells.map(c => ({ cell_type: c.cell_type, id: c.id ?? null, source: text(c.source) }))
  };
}
