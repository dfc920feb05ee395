import { cellsKey, dirtyMessage, serverPath } from '../opendocs';

const workspaces = [
  { name: 'default', path: '.' },
  { name: 'proj', path: 'work/proj' },
  { name: 'outside', path: null }
];

describe('serverPath', () => {
  it('joins the workspace, the session folder and the path', () => {
    expect(serverPath(workspaces, 'default', null, 'nb.ipynb')).toBe('nb.ipynb');
    expect(serverPath(workspaces, 'default', 'sub', './a/nb.ipynb')).toBe('sub/a/nb.ipynb');
    expect(serverPath(workspaces, 'proj', 'x/', 'nb.ipynb')).toBe('work/proj/x/nb.ipynb');
  });

  it('gives no path outside the server root, for unknown workspaces, or with ..', () => {
    expect(serverPath(workspaces, 'outside', null, 'nb.ipynb')).toBeNull();
    expect(serverPath(workspaces, 'nope', null, 'nb.ipynb')).toBeNull();
    expect(serverPath(workspaces, 'default', null, null)).toBeNull();
    expect(serverPath(workspaces, 'proj', null, '../proj2/nb.ipynb')).toBeNull();
  });
});

describe('dirtyMessage', () => {
  it('names the notebook and what was held', () => {
    expect(dirtyMessage('a/nb.ipynb', 'undo')).toMatch(/^Not undone: a\/nb\.ipynb is open with unsaved changes/);
  });
});

describe('cellsKey', () => {
  const onDisk = {
    cells: [
      {
        cell_type: 'code',
        id: 'a',
        metadata: {},
        execution_count: 3,
        source: ['x = 1\n', 'print(x)'],
        outputs: [{ output_type: 'stream', name: 'stdout', text: ['1\n'] }]
      }
    ],
    metadata: {}
  };
  const inLab = {
    cells: [
      {
        cell_type: 'code',
        id: 'other',
        metadata: { trusted: true },
        execution_count: 3,
        source: 'x = 1\nprint(x)',
        outputs: [{ name: 'stdout', output_type: 'stream', text: '1\n' }]
      }
    ],
    metadata: { language_info: { name: 'python' } }
  };

  it('sees the same cells whatever the string form, ids and notebook metadata', () => {
    expect(cellsKey(inLab)).toBe(cellsKey(onDisk));
  });

  it('sees an edited source, a new output and an added cell', () => {
    const edited = JSON.parse(JSON.stringify(inLab));
    edited.cells[0].source = 'x = 2\nprint(x)';
    expect(cellsKey(edited)).not.toBe(cellsKey(onDisk));
    const ran = JSON.parse(JSON.stringify(inLab));
    ran.cells[0].outputs.push({ output_type: 'stream', name: 'stdout', text: 'again' });
    expect(cellsKey(ran)).not.toBe(cellsKey(onDisk));
    const added = JSON.parse(JSON.stringify(inLab));
    added.cells.push({ cell_type: 'markdown', source: '# new', metadata: {} });
    expect(cellsKey(added)).not.toBe(cellsKey(onDisk));
    expect(cellsKey(null)).toBe('');
  });
});
