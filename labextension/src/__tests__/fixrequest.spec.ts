import { errorIndex, fixRequest, notebookInWorkspace } from '../fixrequest';

const ERROR = { output_type: 'error', ename: 'ZeroDivisionError', evalue: 'division by zero', traceback: [] };
const CELLS = [
  { cell_type: 'markdown', id: 'title', source: ['# Ratio'] },
  { cell_type: 'code', id: 'load', source: 'total, count = 6, 0', outputs: [] },
  { cell_type: 'code', id: 'ratio', source: ['print(', "'ratio', total / count)"], outputs: [{ output_type: 'stream' }, ERROR] }
];

describe('fixRequest', () => {
  it('sends the failed cell, its outputs and every cell of the notebook', () => {
    const fix = fixRequest('work/ratio.ipynb', CELLS, 2);
    expect(fix).toEqual({
      notebook: 'work/ratio.ipynb',
      cell_id: 'ratio',
      cell_index: 2,
      source: "print('ratio', total / count)",
      outputs: [{ output_type: 'stream' }, ERROR],
      cells: [
        { cell_type: 'markdown', id: 'title', source: '# Ratio' },
        { cell_type: 'code', id: 'load', source: 'total, count = 6, 0' },
        { cell_type: 'code', id: 'ratio', source: "print('ratio', total / count)" }
      ]
    });
  });

  it('asks nothing for a cell without an error, a markdown cell or no cell', () => {
    expect(fixRequest('n.ipynb', CELLS, 1)).toBeNull();
    expect(fixRequest('n.ipynb', CELLS, 0)).toBeNull();
    expect(fixRequest('n.ipynb', CELLS, -1)).toBeNull();
    expect(fixRequest('n.ipynb', CELLS, 9)).toBeNull();
  });

  it('finds the error among the outputs', () => {
    expect(errorIndex([{ output_type: 'stream' }, ERROR])).toBe(1);
    expect(errorIndex([null, 'error', { output_type: 'stream' }])).toBe(-1);
  });

  it('names the notebook relative to its workspace', () => {
    expect(notebookInWorkspace('work/proj/nb/a.ipynb', 'nb')).toBe('nb/a.ipynb');
    expect(notebookInWorkspace('work/proj/a.ipynb', null)).toBe('a.ipynb');
  });
});
