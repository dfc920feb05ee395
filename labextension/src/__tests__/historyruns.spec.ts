import { cellRunText, groupByRun, restoreText } from '../historyruns';
import { IHistoryEntry } from '../types';

const entry = (id: string, session: string | null, extra: Partial<IHistoryEntry> = {}): IHistoryEntry => ({
  entry_id: id,
  command_id: `c-${id}`,
  action: 'fs.write',
  path: `${id}.txt`,
  change: 'modify',
  undone: false,
  session,
  ...extra
});

describe('groupByRun', () => {
  it('puts each run together, newest run and newest change first', () => {
    const groups = groupByRun([entry('j1', 'a'), entry('j2', 'b'), entry('j3', 'a', { undone: true }), entry('j4', null)]);
    expect(groups.map(g => [g.run, g.entries.map(e => e.entry_id), g.live])).toEqual([
      ['', ['j4'], 1],
      ['a', ['j3', 'j1'], 1],
      ['b', ['j2'], 1]
    ]);
  });
});

describe('restoreText', () => {
  it('says what each kind of change gets back', () => {
    expect(restoreText(entry('j1', 'a', { change: 'create' }))).toBe('j1.txt removed again (c-j1 created it)');
    expect(restoreText(entry('j1', 'a', { change: 'delete' }))).toBe('j1.txt put back (c-j1 deleted it)');
    expect(restoreText(entry('j1', 'a'))).toBe('j1.txt as it was before c-j1');
    expect(restoreText(entry('j1', 'a', { action: 'nb.replaceCell', path: 'n.ipynb' }))).toBe(
      'the cells of n.ipynb as they were before c-j1'
    );
  });

  it('lists a cell run with its count and status', () => {
    const run = { action: 'nb.runCell', cell_id: 'calc', notebook: 'n.ipynb', execution_count: 3, status: 'ok' };
    expect(cellRunText(run as never)).toBe('cell calc of n.ipynb [3]: ok');
  });
});
