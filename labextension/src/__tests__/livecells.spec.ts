import { OperatorClient } from '../client';
import { applyLiveChange, applyLiveChanges, LiveChanges, LiveNotebook, sourceHash } from '../livecells';
import { IDecideResponse, ILiveChange } from '../types';

/** A notebook model as the edits see it: cells with ids and sources, one transaction log. */
function fakeNotebook(cells: Array<{ id: string; source: string }>) {
  const make = (c: { id: string; source: string; cell_type?: string }) => {
    let source = c.source;
    return {
      id: c.id,
      cell_type: c.cell_type ?? 'code',
      getSource: () => source,
      setSource: (value: string) => (source = value),
      setMetadata: () => undefined,
      toJSON: () => ({ id: c.id, cell_type: c.cell_type ?? 'code', source, metadata: {} })
    };
  };
  const log: string[] = [];
  const nb = {
    cells: cells.map(make),
    insertCell(index: number, cell: { id: string; source: string }) {
      this.cells.splice(index, 0, make(cell));
      return this.cells[index];
    },
    deleteCell(index: number) {
      this.cells.splice(index, 1);
    },
    moveCell(from: number, to: number) {
      const [cell] = this.cells.splice(from, 1);
      this.cells.splice(to, 0, cell);
    },
    transact(f: () => void, undoable?: boolean) {
      log.push(`transact undoable=${undoable}`);
      f();
    }
  };
  const view = () => nb.cells.map(c => `${c.id}:${c.getSource()}`);
  return { nb: nb as unknown as LiveNotebook, view, log };
}

async function change(ops: ILiveChange['ops'], guarded: Record<string, string>): Promise<ILiveChange> {
  const guards: Record<string, string> = {};
  for (const [id, source] of Object.entries(guarded)) {
    guards[id] = await sourceHash(source);
  }
  return { route: 'page', state: 'waiting', notebook: 'nb.ipynb', ops, guards, sources: {} };
}

describe('applyLiveChange', () => {
  it('sets one cell in one undoable transaction and keeps the other cells as they are', async () => {
    const { nb, view, log } = fakeNotebook([
      { id: 'a', source: 'a = 1  # the person typed this' },
      { id: 'b', source: 'b = 2' }
    ]);
    const answer = await applyLiveChange(nb, await change([{ op: 'set', id: 'b', fields: { source: 'b = 3' } }], { b: 'b = 2' }));
    expect(answer).toEqual({ state: 'applied' });
    expect(view()).toEqual(['a:a = 1  # the person typed this', 'b:b = 3']);
    expect(log).toEqual(['transact undoable=true']);
  });

  it('refuses the whole change, naming the cell, when a touched cell was edited', async () => {
    const { nb, view, log } = fakeNotebook([
      { id: 'a', source: 'a = 1' },
      { id: 'b', source: 'b = 2  # edited since the preview' }
    ]);
    const ops: ILiveChange['ops'] = [
      { op: 'set', id: 'a', fields: { source: 'a = 10' } },
      { op: 'set', id: 'b', fields: { source: 'b = 20' } }
    ];
    const answer = await applyLiveChange(nb, await change(ops, { a: 'a = 1', b: 'b = 2' }));
    expect(answer).toEqual({ state: 'stale', cell: 'b' });
    expect(view()).toEqual(['a:a = 1', 'b:b = 2  # edited since the preview']);
    expect(log).toEqual([]);
  });

  it('refuses the change when the person types into a touched cell while it is checked', async () => {
    const { nb, view, log } = fakeNotebook([{ id: 'a', source: 'a = 1' }]);
    const guarded = await change([{ op: 'set', id: 'a', fields: { source: 'a = 2' } }], { a: 'a = 1' });
    const digest = crypto.subtle.digest.bind(crypto.subtle);
    const typing = jest.spyOn(crypto.subtle, 'digest').mockImplementation(async (algorithm, data) => {
      const hashed = await digest(algorithm, data);
      nb.cells[0].setSource('a = 1  # typed while the hash was computed');
      return hashed;
    });
    try {
      expect(await applyLiveChange(nb, guarded)).toEqual({ state: 'stale', cell: 'a' });
    } finally {
      typing.mockRestore();
    }
    expect(view()).toEqual(['a:a = 1  # typed while the hash was computed']);
    expect(log).toEqual([]);
  });

  it('refuses a change to a cell the person deleted', async () => {
    const { nb } = fakeNotebook([{ id: 'a', source: 'a = 1' }]);
    const answer = await applyLiveChange(nb, await change([{ op: 'delete', id: 'gone' }], { gone: 'x' }));
    expect(answer).toEqual({ state: 'stale', cell: 'gone' });
  });

  it('inserts after its neighbour, moves and deletes by id among the person\'s own cells', async () => {
    const { nb, view } = fakeNotebook([
      { id: 'mine', source: '# a cell the person added' },
      { id: 'a', source: 'a' },
      { id: 'b', source: 'b' },
      { id: 'c', source: 'c' }
    ]);
    const ops: ILiveChange['ops'] = [
      { op: 'delete', id: 'b' },
      { op: 'move', id: 'c', after: null, index: 0 },
      { op: 'insert', after: 'a', index: 2, cell: { id: 'n', cell_type: 'code', source: 'new' } }
    ];
    const answer = await applyLiveChange(nb, await change(ops, { b: 'b' }));
    expect(answer).toEqual({ state: 'applied' });
    expect(view()).toEqual(['c:c', 'mine:# a cell the person added', 'a:a', 'n:new']);
  });
});

describe('LiveChanges', () => {
  /** A client that records the answers the page posts, and a session answer for each. */
  function fakeClient() {
    const posted: Array<[string, string, { state: string; cell?: string }]> = [];
    const client = {
      live: async (session: string, id: string, answer: { state: string; cell?: string }) => {
        posted.push([session, id, answer]);
        return { items: [], results_text: '', done: true } as IDecideResponse;
      }
    };
    return { client: client as unknown as OperatorClient, posted };
  }

  async function waitingItem(id: string, source: string, guard: string) {
    const live = await change([{ op: 'set', id: 'b', fields: { source } }], { b: guard });
    return { id, status: 'running' as const, live };
  }

  it("applies a decision's edits at once, before telling the server, and only once", async () => {
    const { nb, view } = fakeNotebook([{ id: 'b', source: 'b = 2' }]);
    const { client, posted } = fakeClient();
    const changes = new LiveChanges(client, path => (path === 'nb.ipynb' ? nb : null));
    const item = await waitingItem('i1', 'b = 3', 'b = 2');
    const report = await changes.applyNow('s', [item], path => path);
    expect(view()).toEqual(['b:b = 3']); // shown before any round trip
    expect(posted).toEqual([]);
    const updates: IDecideResponse[] = [];
    await report(answer => void updates.push(answer));
    expect(posted).toEqual([['s', 'i1', { state: 'applied' }]]);
    expect(updates).toHaveLength(1);
    // The delivery path sees the same item running afterwards: nothing is applied twice.
    await changes.carryOut('s', [item], path => path, () => undefined);
    expect(posted).toHaveLength(1);
    expect(view()).toEqual(['b:b = 3']);
  });

  it('reports a stale cell and changes nothing when the guard no longer holds', async () => {
    const { nb, view } = fakeNotebook([{ id: 'b', source: 'b = 2  # typed since' }]);
    const { client, posted } = fakeClient();
    const changes = new LiveChanges(client, () => nb);
    const report = await changes.applyNow('s', [await waitingItem('i2', 'b = 3', 'b = 2')], path => path);
    await report(() => undefined);
    expect(view()).toEqual(['b:b = 2  # typed since']);
    expect(posted).toEqual([['s', 'i2', { state: 'stale', cell: 'b' }]]);
  });
});

describe('applyLiveChanges (the undo of a run: its notebook changes newest first)', () => {
  const set = (id: string, source: string): ILiveChange['ops'][number] => ({ op: 'set', id, fields: { source } });
  const undoOf = async (id: string, left: string, found: string): Promise<ILiveChange> => ({
    ...(await change([set(id, found)], { [id]: left })),
    sources: { [id]: found }
  });

  it('checks each change against what the ones before it leave, then applies all, an edit a transaction', async () => {
    // The run set a to "a2" then "a3", and b to "b2": undone newest first.
    const { nb, view, log } = fakeNotebook([
      { id: 'a', source: 'a3' },
      { id: 'b', source: 'b2' }
    ]);
    const answer = await applyLiveChanges([
      [nb, await undoOf('a', 'a3', 'a2')],
      [nb, await undoOf('b', 'b2', 'b1')],
      [nb, await undoOf('a', 'a2', 'a1')]
    ]);
    expect(answer).toEqual({ state: 'applied' });
    expect(view()).toEqual(['a:a1', 'b:b1']);
    // one transaction per edit (the notebook's cell list follows each), all in the person's undo
    expect(log).toEqual(['transact undoable=true', 'transact undoable=true', 'transact undoable=true']);
  });

  it('applies none when one guard fails, even the last one', async () => {
    const { nb, view, log } = fakeNotebook([
      { id: 'a', source: 'a3' },
      { id: 'b', source: 'b2  # the person edited this' }
    ]);
    const answer = await applyLiveChanges([
      [nb, await undoOf('a', 'a3', 'a2')],
      [nb, await undoOf('b', 'b2', 'b1')]
    ]);
    expect(answer).toEqual({ state: 'stale', cell: 'b' });
    expect(view()).toEqual(['a:a3', 'b:b2  # the person edited this']);
    expect(log).toEqual([]);
  });

  it('applies none when a notebook is not open here any more', async () => {
    const { nb, view } = fakeNotebook([{ id: 'a', source: 'a3' }]);
    expect(await applyLiveChanges([[nb, await undoOf('a', 'a3', 'a2')], [null, await undoOf('x', 'x', 'y')]])).toEqual({
      state: 'gone'
    });
    expect(view()).toEqual(['a:a3']);
  });

  it('refuses a change guarded by a cell an earlier change deletes', async () => {
    const { nb, view } = fakeNotebook([{ id: 'a', source: 'a' }]);
    const removes = await change([{ op: 'delete', id: 'a' }], { a: 'a' });
    expect(await applyLiveChanges([[nb, removes], [nb, await undoOf('a', 'a', 'b')]])).toEqual({ state: 'stale', cell: 'a' });
    expect(view()).toEqual(['a:a']);
  });
});
