import {
  beforeApproving,
  cellsKey,
  contentKey,
  dirtyMessage,
  IOpenDocument,
  isOpenDocument,
  notReloadedMessage,
  OpenDocuments,
  savedKey,
  serverPath
} from '../opendocs';

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
    expect(dirtyMessage('a/nb.ipynb', 'undo')).toContain('your saved notebook');
  });

  it('speaks of a file for anything else', () => {
    expect(dirtyMessage('calc.py', 'approve')).toContain('your saved file');
    expect(notReloadedMessage('calc.py')).toContain('File > Reload File from Disk');
    expect(notReloadedMessage('nb.ipynb')).toContain('File > Reload Notebook from Disk');
  });
});

/** A text document as a file editor holds it. */
function textDoc(path: string, text: string, dirty = false): IOpenDocument & { reverted: number } {
  const doc = {
    isDisposed: false,
    reverted: 0,
    context: {
      path,
      model: { dirty, toJSON: () => text, toString: () => text },
      revert: async () => {
        doc.reverted++;
      }
    }
  };
  return doc;
}

describe('open text files', () => {
  it('are found among the main area widgets, by path', async () => {
    const doc = textDoc('calc.py', 'x = 1\n');
    expect(isOpenDocument(doc)).toBe(true);
    expect(isOpenDocument({ title: 'Launcher' })).toBe(false);
    const open = new OpenDocuments(null, null, () => [{ title: 'Launcher' }, doc]);
    expect(await open.check('calc.py')).toEqual({ state: 'unchanged', cells: 'x = 1\n' });
    expect(await open.check('other.py')).toEqual({ state: 'closed' });
  });

  it('are reloaded after a change unless the person edited them', async () => {
    const clean = textDoc('a.txt', 'a\n');
    const edited = textDoc('b.txt', 'b, typed\n', true);
    const read = async (path: string) => (path === 'b.txt' ? 'b\n' : 'a\n');
    const open = new OpenDocuments(null, read, () => [clean, edited]);
    expect((await open.check('b.txt')).state).toBe('edited');
    expect(await open.reload('a.txt')).toBe('unchanged');
    expect(clean.reverted).toBe(1);
    expect(await open.reload('b.txt')).toBe('edited');
    expect(edited.reverted).toBe(0);
  });

  it('in a collaborative room are the room\'s: never held for unsaved typing', async () => {
    const shared = textDoc('calc.py', 'x = 1\n# typing\n', true);
    (shared.context.model as { collaborative?: boolean }).collaborative = true;
    const alone = textDoc('b.txt', 'b, typed\n', true);
    const open = new OpenDocuments(null, async () => 'x = 1\n', () => [shared, alone]);
    expect(open.isShared('calc.py')).toBe(true);
    expect(open.isShared('b.txt')).toBe(false);
    const view = { docPath: (path: string | null) => path, cardNode: () => null };
    const item = (path: string) => ({ kind: 'mutation', path, index: 0 }) as never;
    expect(await beforeApproving(open, view, [item('calc.py')])).toEqual(new Map());
    expect(await beforeApproving(open, view, [item('b.txt')])).toBeNull();
  });

  it('count as unchanged when dirty but still the saved text', async () => {
    const doc = textDoc('a.txt', 'same\n', true);
    const open = new OpenDocuments(null, async () => 'same\n', () => [doc]);
    expect((await open.check('a.txt')).state).toBe('unchanged');
    expect(contentKey('a.txt', doc.context.model)).toBe('same\n');
    expect(savedKey('a.txt', { not: 'text' })).toBeNull();
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
