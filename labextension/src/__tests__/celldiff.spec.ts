import {
  cellFileName,
  cellRows,
  countsLine,
  foldLabel,
  idLabel,
  notebookNotes,
  notesOf,
  originLabel,
  shownEntries,
  typeLabel,
  whereLabel
} from '../celldiff';
import { ICellChange, INotebookCells } from '../types';

function entry(over: Partial<ICellChange>): ICellChange {
  return {
    status: 'changed',
    old_index: 3,
    new_index: 3,
    id: 'abc',
    cell_type: 'code',
    old_cell_type: null,
    old_id: null,
    source_diff: '@@ -1 +1 @@\n-x = 1\n+x = 2\n',
    added: 1,
    removed: 1,
    outputs: null,
    metadata: null,
    execution_count: null,
    split_from: null,
    merged_into: null,
    count: 1,
    renumbered: 0,
    ...over
  };
}

function notebook(cells: ICellChange[], over: Partial<INotebookCells> = {}): INotebookCells {
  return {
    old_format: '4.5',
    new_format: '4.5',
    metadata: null,
    counts: { added: 0, removed: 0, moved: 0, changed: 1, unchanged: 0 },
    cells,
    ...over
  };
}

describe('cell diff labels', () => {
  it('sums up the change in one line', () => {
    const cells = notebook([], {
      counts: { added: 2, removed: 0, moved: 1, changed: 1, unchanged: 497 }
    });
    expect(countsLine(cells)).toBe('1 changed, 2 added, 1 moved · 497 unchanged');
    expect(countsLine(notebook([], { counts: { added: 0, removed: 0, moved: 0, changed: 0, unchanged: 3 } }))).toBe(
      'no cell changed · 3 unchanged'
    );
  });

  it('says an empty notebook is new or deleted rather than "no cell changed"', () => {
    const none = { added: 0, removed: 0, moved: 0, changed: 0, unchanged: 0 };
    expect(countsLine(notebook([], { counts: none, old_format: null }))).toBe('a new notebook with no cells');
    expect(countsLine(notebook([], { counts: none, new_format: null }))).toBe(
      'the notebook is deleted (it has no cells)'
    );
    expect(countsLine(notebook([], { counts: none }))).toBe('no cell changed');
  });

  it('names notebook metadata and format changes', () => {
    expect(notebookNotes(notebook([], { metadata: 'kernelspec changed', old_format: '4.4' }))).toEqual([
      'notebook metadata: kernelspec changed',
      'nbformat 4.4 → 4.5'
    ]);
    expect(notebookNotes(notebook([]))).toEqual([]);
  });

  it('shows where a cell is, and where a moved cell went', () => {
    expect(whereLabel(entry({}))).toBe('index 3');
    expect(whereLabel(entry({ status: 'removed', new_index: null, old_index: 7 }))).toBe('index 7');
    expect(whereLabel(entry({ status: 'moved', old_index: 1, new_index: 4 }))).toBe('index 1 → 4');
  });

  it('shows type, id and origin changes', () => {
    expect(typeLabel(entry({ old_cell_type: 'markdown' }))).toBe('markdown → code');
    expect(typeLabel(entry({}))).toBe('code');
    expect(idLabel(entry({ old_id: 'old' }))).toBe('id old → abc');
    expect(idLabel(entry({ id: null }))).toBe('');
    expect(originLabel(entry({ status: 'added', split_from: 2 }))).toBe('split from old index 2');
    expect(originLabel(entry({ status: 'removed', merged_into: 1 }))).toBe('merged into index 1');
    expect(originLabel(entry({}))).toBe('');
  });

  it('folds runs of unchanged cells into one line', () => {
    expect(foldLabel(entry({ status: 'unchanged', new_index: 4, count: 12, renumbered: 3 }))).toBe(
      '⋯ 12 unchanged cells (index 4–15), 3 with a new execution count only'
    );
    expect(foldLabel(entry({ status: 'unchanged', new_index: 0, count: 1 }))).toBe(
      '⋯ 1 unchanged cell (index 0)'
    );
  });

  it('summarises outputs, metadata and execution counts behind one fold', () => {
    expect(notesOf(entry({}))).toBeNull();
    expect(
      notesOf(entry({ outputs: '2 removed, 1 changed', metadata: 'tags added', execution_count: [1, null] }))
    ).toEqual({
      label: 'outputs, metadata, execution count changed',
      lines: ['outputs: 2 removed, 1 changed', 'metadata: tags added', 'execution count 1 → none']
    });
    expect(notesOf(entry({ status: 'added', outputs: '3 outputs' }))?.label).toBe('3 outputs');
  });

  it('highlights code and markdown cells by a file name of their kind', () => {
    expect(cellFileName(entry({}))).toBe('cell.py');
    expect(cellFileName(entry({ cell_type: 'markdown' }))).toBe('cell.md');
    expect(cellFileName(entry({ cell_type: 'raw' }))).toBe('cell.txt');
  });

  it('draws at most a bounded number of entries', () => {
    const many = notebook(Array.from({ length: 70 }, (_, n) => entry({ new_index: n })));
    const { entries, more } = shownEntries(many, 60);
    expect(entries).toHaveLength(60);
    expect(more).toBe(10);
    expect(shownEntries(notebook([entry({})])).more).toBe(0);
  });
});

describe('cellRows', () => {
  it('numbers lines from the cell and spells out invisible characters', () => {
    const rows = cellRows('@@ -1,2 +1,2 @@\n import os\n-x = 1\n+x = 2\u202e\n');
    expect(rows.map(r => [r.kind, r.oldNo, r.newNo, r.sign, r.text])).toEqual([
      ['ctx', '1', '1', ' ', 'import os'],
      ['del', '2', '', '-', 'x = 1'],
      ['add', '', '2', '+', 'x = 2<U+202E>']
    ]);
  });

  it('stops at a bound and says how many lines are left', () => {
    const diff = '@@ -0,0 +1,5 @@\n' + ['a', 'b', 'c', 'd', 'e'].map(l => `+${l}\n`).join('');
    const rows = cellRows(diff, 3);
    expect(rows).toHaveLength(4);
    expect(rows[3]).toEqual({ kind: 'gap', oldNo: '', newNo: '', sign: '', text: '⋯ 2 more lines' });
  });
});
