/**
 * Words for a notebook change seen as cells (the server's `Item.cells`): pure
 * functions, no DOM, so the panel's renderer (celldiffview.ts) stays thin and
 * these are tested on their own.
 */
import { parseUnifiedDiff, visibleText } from './diff';
import { ICellChange, INotebookCells } from './types';

/** Cell entries drawn in one card before a "more" note (the JSON diff has everything). */
export const MAX_ENTRIES = 60;

const CHANGE_WORDS = ['changed', 'added', 'removed', 'moved'] as const;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * An empty notebook created or deleted changes no cell, but "no cell changed" would hide that
 * the file itself is new or going.
 */
function noCellWords(cells: INotebookCells): string {
  if (cells.old_format === null) {
    return 'a new notebook with no cells';
  }
  if (cells.new_format === null) {
    return 'the notebook is deleted (it has no cells)';
  }
  return 'no cell changed';
}

/** "1 changed, 2 added · 497 unchanged". */
export function countsLine(cells: INotebookCells): string {
  const counts = cells.counts;
  const parts = CHANGE_WORDS.filter(w => counts[w]).map(w => `${counts[w]} ${w}`);
  let line = parts.length ? parts.join(', ') : noCellWords(cells);
  if (counts.unchanged) {
    line += ` · ${counts.unchanged} unchanged`;
  }
  return line;
}

/** Notebook-level notes: metadata and format changes. */
export function notebookNotes(cells: INotebookCells): string[] {
  const notes: string[] = [];
  if (cells.metadata) {
    notes.push(`notebook metadata: ${cells.metadata}`);
  }
  if (cells.old_format && cells.new_format && cells.old_format !== cells.new_format) {
    notes.push(`nbformat ${cells.old_format} → ${cells.new_format}`);
  }
  return notes;
}

/** Where the cell is: "index 3", or "index 1 → 4" for a moved cell. */
export function whereLabel(entry: ICellChange): string {
  if (entry.status === 'moved') {
    return `index ${entry.old_index} → ${entry.new_index}`;
  }
  return `index ${entry.new_index ?? entry.old_index}`;
}

/** "code", or "markdown → code" when the type changed. */
export function typeLabel(entry: ICellChange): string {
  return entry.old_cell_type ? `${entry.old_cell_type} → ${entry.cell_type}` : entry.cell_type;
}

/** "id abc", "id old → new", or "" without an id. */
export function idLabel(entry: ICellChange): string {
  if (!entry.id) {
    return '';
  }
  return entry.old_id ? `id ${entry.old_id} → ${entry.id}` : `id ${entry.id}`;
}

/** "split from old index 2" / "merged into index 1" / "". */
export function originLabel(entry: ICellChange): string {
  if (entry.split_from !== null && entry.split_from !== undefined) {
    return `split from old index ${entry.split_from}`;
  }
  if (entry.merged_into !== null && entry.merged_into !== undefined) {
    return `merged into index ${entry.merged_into}`;
  }
  return '';
}

/** The fold line of a run of unchanged cells. */
export function foldLabel(entry: ICellChange): string {
  const first = entry.new_index ?? 0;
  const span = entry.count === 1 ? `index ${first}` : `index ${first}–${first + entry.count - 1}`;
  let label = `⋯ ${plural(entry.count, 'unchanged cell')} (${span})`;
  if (entry.renumbered) {
    label += `, ${entry.renumbered} with a new execution count only`;
  }
  return label;
}

/** The folded summary of outputs, metadata and execution count, or null when none changed. */
export function notesOf(entry: ICellChange): { label: string; lines: string[] } | null {
  const lines: string[] = [];
  const what: string[] = [];
  if (entry.outputs) {
    lines.push(`outputs: ${entry.outputs}`);
    what.push('outputs');
  }
  if (entry.metadata) {
    lines.push(`metadata: ${entry.metadata}`);
    what.push('metadata');
  }
  if (entry.execution_count) {
    const [old, now] = entry.execution_count.map(c => (c === null ? 'none' : String(c)));
    lines.push(`execution count ${old} → ${now}`);
    what.push('execution count');
  }
  if (!lines.length) {
    return null;
  }
  const lone = entry.status === 'added' || entry.status === 'removed';
  return { label: lone ? (entry.outputs ?? '') : `${what.join(', ')} changed`, lines };
}

/** A name whose extension picks the highlighting language of a cell's source. */
export function cellFileName(entry: ICellChange): string {
  return entry.cell_type === 'markdown' ? 'cell.md' : entry.cell_type === 'code' ? 'cell.py' : 'cell.txt';
}

/** The entries to draw and how many are left out. */
export function shownEntries(
  cells: INotebookCells,
  max: number = MAX_ENTRIES
): { entries: ICellChange[]; more: number } {
  return { entries: cells.cells.slice(0, max), more: Math.max(0, cells.cells.length - max) };
}

/** One line of a cell's source diff as first drawn (before its CodeMirror view is ready). */
export interface ICellRow {
  kind: 'add' | 'del' | 'ctx' | 'gap';
  oldNo: string;
  newNo: string;
  sign: string;
  /** With invisible and control characters spelled out as `<U+XXXX>`. */
  text: string;
}

/** Rows of a cell's source diff, at most `max` (a last `gap` row says how many more). */
export function cellRows(diff: string, max = 200): ICellRow[] {
  const rows: ICellRow[] = [];
  let total = 0;
  for (const hunk of parseUnifiedDiff(diff)) {
    for (const line of hunk.lines) {
      total += 1;
      if (rows.length < max) {
        rows.push({
          kind: line.kind,
          oldNo: line.oldNo === null ? '' : String(line.oldNo),
          newNo: line.newNo === null ? '' : String(line.newNo),
          sign: line.kind === 'add' ? '+' : line.kind === 'del' ? '-' : ' ',
          text: visibleText(line.text)
        });
      }
    }
  }
  if (total > max) {
    rows.push({ kind: 'gap', oldNo: '', newNo: '', sign: '', text: `⋯ ${total - max} more lines` });
  }
  return rows;
}
