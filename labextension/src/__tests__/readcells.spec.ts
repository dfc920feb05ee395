import { parseReadCells } from '../readcells';

describe('parseReadCells', () => {
  it('reads the cells of an nb.readCells result', () => {
    const details = JSON.stringify({
      notebook: 'a.ipynb',
      cell_count: 3,
      start_index: 1,
      cells: [
        { index: 1, id: 'c1', type: 'code', source: 'x = 1\nprint(x)', execution_count: 2,
          outputs: [{ type: 'stream', name: 'stdout' }, { type: 'error', ename: 'ValueError' }] },
        { index: 2, id: null, type: 'markdown', source: '# Title' }
      ]
    });
    const parsed = parseReadCells(details);
    expect(parsed?.total).toBe(3);
    expect(parsed?.cells[0]).toEqual({
      index: 1, id: 'c1', type: 'code', source: 'x = 1\nprint(x)', executionCount: 2,
      outputs: 'stdout, error ValueError'
    });
    expect(parsed?.cells[1].id).toBeNull();
  });

  it('leaves other text alone', () => {
    expect(parseReadCells('not json')).toBeNull();
    expect(parseReadCells('{"a": 1}')).toBeNull();
  });
});
