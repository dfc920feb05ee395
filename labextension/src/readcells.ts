/**
 * An `nb.readCells` result as a person reads it: one block per cell (index, type, id, source,
 * outputs) instead of the one line of JSON the model gets. Parsing is pure (unit tested); the
 * drawing uses text nodes only, so nothing from the notebook is ever HTML.
 */
import { el } from './dom';

export interface IReadCell {
  index: number;
  id: string | null;
  type: string;
  source: string;
  executionCount: number | null;
  outputs: string;
}

/** The cells of a readCells result, or null when the text is not that JSON. */
export function parseReadCells(details: string): { cells: IReadCell[]; total: number } | null {
  let view: any;
  try {
    view = JSON.parse(details);
  } catch {
    return null;
  }
  if (!view || typeof view !== 'object' || !Array.isArray(view.cells)) {
    return null;
  }
  const cells: IReadCell[] = [];
  for (const entry of view.cells) {
    if (!entry || typeof entry !== 'object') {
      continue;
    }
    const outputs = Array.isArray(entry.outputs)
      ? entry.outputs
          .map((o: any) =>
            o?.type === 'error' ? `error ${o.ename ?? ''}`.trim() : o?.type === 'stream' ? String(o.name ?? 'stream') : String(o?.type)
          )
          .join(', ')
      : '';
    cells.push({
      index: Number(entry.index) || 0,
      id: typeof entry.id === 'string' ? entry.id : null,
      type: String(entry.type),
      source: String(entry.source ?? ''),
      executionCount: typeof entry.execution_count === 'number' ? entry.execution_count : null,
      outputs
    });
  }
  const total = typeof view.cell_count === 'number' ? view.cell_count : cells.length;
  return { cells, total };
}

/** The cells drawn as blocks, or null when `details` is not a readCells result. */
export function readCellsNode(details: string): HTMLElement | null {
  const parsed = parseReadCells(details);
  if (!parsed) {
    return null;
  }
  const node = el('div', 'jp-Operator-read-cells');
  node.append(el('div', 'jp-Operator-note', `${parsed.cells.length} of ${parsed.total} cells`));
  for (const cell of parsed.cells) {
    const block = el('div', 'jp-Operator-read-cell');
    const head = el('div', 'jp-Operator-read-cell-head');
    head.append(el('span', 'jp-Operator-read-cell-index', `[${cell.index}]`), el('span', '', cell.type));
    if (cell.id) {
      head.append(el('span', 'jp-Operator-muted', `id ${cell.id}`));
    }
    if (cell.executionCount !== null) {
      head.append(el('span', 'jp-Operator-muted', `ran [${cell.executionCount}]`));
    }
    block.append(head, el('pre', 'jp-Operator-details-text', cell.source));
    if (cell.outputs) {
      block.append(el('div', 'jp-Operator-muted', `outputs: ${cell.outputs}`));
    }
    node.append(block);
  }
  return node;
}
