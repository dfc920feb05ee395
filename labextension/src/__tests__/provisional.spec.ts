import { OperatorClient } from '../client';
import { clearReplaced, LiveChanges, LiveNotebook, sourceHash } from '../livecells';
import { holdSaves, savesHeld } from '../savegate';
import { IDecideResponse, ILiveChange, ILiveOp, ILivePlan, IOperatorItem } from '../types';

type CellJSON = Record<string, unknown> & { id: string };

/** A notebook model with what a provisional change touches and puts back: source, outputs,
 * execution count, metadata, type, order, and an undo stack of one step per undoable
 * transaction. */
function fakeNotebook(cells: CellJSON[]) {
  const make = (json: CellJSON) => {
    const data = JSON.parse(JSON.stringify(json)) as CellJSON;
    const cell = {
      id: data.id,
      cell_type: data.cell_type ?? 'code',
      getSource: () => String(data.source ?? ''),
      setSource: (value: string) => (data.source = value),
      setMetadata: (value: unknown) => (data.metadata = value),
      setOutputs: (value: unknown[]) => (data.outputs = value),
      get execution_count() {
        return data.execution_count as number | null;
      },
      set execution_count(value: number | null) {
        data.execution_count = value;
      },
      toJSON: () => JSON.parse(JSON.stringify(data))
    };
    if (cell.cell_type !== 'code') {
      delete (cell as Partial<typeof cell>).setOutputs;
    }
    return cell;
  };
  const undoStack: unknown[] = [];
  const log: string[] = [];
  // As YNotebook: `cells` follows the shared array only when a transaction ends, and the undo
  // manager merges tracked transactions into one step until `stopCapturing`.
  let list = cells.map(make);
  let structural = false;
  let capturing = false;
  const structure = () => {
    structural = inside > 0;
  };
  let inside = 0;
  const nb = {
    get cells() {
      if (structural) {
        throw new Error('stale cells: read after a structural edit in the same transaction');
      }
      return list;
    },
    undoManager: {
      undoStack,
      stopCapturing: () => {
        capturing = false;
        log.push('stop capturing');
      }
    },
    insertCell(index: number, cell: CellJSON) {
      structure();
      list.splice(index, 0, make(cell));
    },
    deleteCell(index: number) {
      structure();
      list.splice(index, 1);
    },
    moveCell(from: number, to: number) {
      if (structural) {
        // YNotebook.moveCell clones the cell it finds in `cells`: stale here.
        throw new Error('Length exceeded!');
      }
      structure();
      const [cell] = list.splice(from, 1);
      list.splice(to, 0, cell);
    },
    transact(f: () => void, undoable = true) {
      log.push(`transact undoable=${undoable}`);
      inside++;
      try {
        f();
      } finally {
        inside--;
        structural = false;
        list = [...list];
      }
      if (undoable && !capturing) {
        undoStack.push({ step: undoStack.length });
        capturing = true;
      }
    }
  };
  const json = () => nb.cells.map(c => c.toJSON());
  const typed = (value: boolean) => (capturing = value);
  return { nb: nb as unknown as LiveNotebook, raw: nb, json, log, undoStack, typed };
}

function code(id: string, source: string, extra: Record<string, unknown> = {}): CellJSON {
  return { id, cell_type: 'code', source, metadata: {}, outputs: [], execution_count: null, ...extra };
}

/** Five cells with outputs, counts and metadata a refused change must leave exactly so. */
function fiveCells(): CellJSON[] {
  return [
    code('a', 'a = 1', { execution_count: 1, outputs: [{ output_type: 'stream', name: 'stdout', text: 'a\n' }] }),
    code('b', 'b = 2', { execution_count: 2, metadata: { tags: ['keep'] }, outputs: [{ output_type: 'execute_result', data: { 'text/plain': '2' }, metadata: {}, execution_count: 2 }] }),
    { id: 'm', cell_type: 'markdown', source: '# notes', metadata: { collapsed: true }, attachments: {} },
    code('c', 'c = 3', { execution_count: 3 }),
    code('d', 'd = 4')
  ];
}

async function guards(sources: Record<string, string>): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const [id, source] of Object.entries(sources)) {
    found[id] = await sourceHash(source);
  }
  return found;
}

/** A change that rewrites b (source, metadata), turns m into code, deletes c, moves d first
 * and inserts a new cell after a: every kind of op at once. */
async function everyKind(): Promise<ILivePlan> {
  const ops: ILiveOp[] = [
    { op: 'delete', id: 'c' },
    { op: 'move', id: 'd', after: null, index: 0 },
    { op: 'insert', after: 'a', index: 2, cell: code('n', 'n = 0') },
    { op: 'set', id: 'b', fields: { source: 'b = 20', metadata: { tags: ['new'] } } },
    { op: 'set', id: 'm', fields: { cell_type: 'code', source: 'print(1)' } }
  ];
  return { ops, guards: await guards({ b: 'b = 2', m: '# notes', c: 'c = 3' }) };
}

function pending(id: string, plan: ILivePlan): IOperatorItem {
  return { id, index: 0, status: 'pending', kind: 'mutation', path: 'nb.ipynb', plan } as unknown as IOperatorItem;
}

function routed(id: string, plan: ILivePlan): Pick<IOperatorItem, 'id' | 'status' | 'live'> {
  const live: ILiveChange = { route: 'page', state: 'waiting', notebook: 'nb.ipynb', ...plan, sources: {} };
  return { id, status: 'running', live };
}

/** A client whose answer to the page's `live` report is `state` for the item's live change. */
function fakeClient(state: 'applied' | 'silent' | 'throws' = 'applied') {
  const posted: Array<[string, string, { state: string }]> = [];
  const client = {
    live: async (session: string, id: string, answer: { state: string }) => {
      posted.push([session, id, answer]);
      if (state === 'throws') {
        throw new Error('409: the item no longer waits for a page');
      }
      const live = { route: 'page', state, notebook: 'nb.ipynb', ops: [], guards: {}, sources: {} };
      return { item: { id, index: 0, status: state === 'applied' ? 'applied' : 'failed', live }, items: [], results_text: '', done: true } as unknown as IDecideResponse;
    }
  };
  return { client: client as unknown as OperatorClient, posted };
}

function setup(state: 'applied' | 'silent' | 'throws' = 'applied', shared = false) {
  const notebook = fakeNotebook(fiveCells());
  const { client, posted } = fakeClient(state);
  const holds: Array<Promise<void>> = [];
  const changes = new LiveChanges(client, path => (path === 'nb.ipynb' ? notebook.nb : null), {
    holdSaves: (_path, until) => void holds.push(until),
    shared: () => shared
  });
  return { ...notebook, changes, posted, holds };
}

const docPath = (path: string | null) => path;

describe('a change the page applies at the click on Approve', () => {
  it('shows at once as one undo step, and stays once the engine confirms the same edits', async () => {
    const { changes, json, posted, undoStack, log } = setup();
    const plan = await everyKind();
    expect(await changes.applyFirst('s', pending('i1', plan), docPath)).toBe(true);
    const shown = json();
    expect(shown.map(c => c.id)).toEqual(['d', 'a', 'n', 'b', 'm']);
    expect(shown[3]).toMatchObject({ source: 'b = 20', metadata: { tags: ['new'] } });
    expect(undoStack).toHaveLength(1);
    const applied = ['stop capturing', ...plan.ops.map(() => 'transact undoable=true'), 'stop capturing'];
    expect(log).toEqual(applied);
    // The engine routes exactly these edits here: the page answers applied, applies nothing again.
    const report = await changes.applyNow('s', [routed('i1', plan)], docPath);
    expect(json()).toEqual(shown);
    await report(() => undefined);
    expect(posted).toEqual([['s', 'i1', { state: 'applied' }]]);
    await changes.settle('s', 'i1');
    expect(json()).toEqual(shown);
    expect(undoStack).toHaveLength(1);
    // Applied once, never put back and applied again (the person's undo holds one step).
    expect(log).toEqual(applied);
  });

  it('puts every touched cell back exactly when the engine refuses, and leaves no undo step', async () => {
    const { changes, json, raw, undoStack, posted } = setup();
    const before = json();
    await changes.applyFirst('s', pending('i2', await everyKind()), docPath);
    // The person types into a cell the change does not touch while the decision travels.
    raw.cells.find(c => c.id === 'a')!.setSource('a = 1  # typed meanwhile');
    // The engine refused (the item was decided elsewhere): it comes back failed, no live edits.
    const refused = { id: 'i2', status: 'failed' as const, live: null };
    await (await changes.applyNow('s', [refused], docPath))(() => undefined);
    const expected = before.map(c => (c.id === 'a' ? { ...c, source: 'a = 1  # typed meanwhile' } : c));
    expect(json()).toEqual(expected); // source, outputs, counts, metadata, types, order
    expect(undoStack).toEqual([]);
    expect(posted).toEqual([]);
    await changes.settle('s', 'i2'); // nothing left to put back twice
    expect(json()).toEqual(expected);
  });

  it('puts the cells back when the decision itself failed (no answer at all)', async () => {
    const { changes, json } = setup();
    const before = json();
    await changes.applyFirst('s', pending('i3', await everyKind()), docPath);
    expect(json()).not.toEqual(before);
    await changes.settle('s', 'i3');
    expect(json()).toEqual(before);
  });

  it('puts the cells back when the engine does not record the report (silent, or an error)', async () => {
    for (const state of ['silent', 'throws'] as const) {
      const { changes, json } = setup(state);
      const before = json();
      const plan = await everyKind();
      await changes.applyFirst('s', pending('i4', plan), docPath);
      const report = await changes.applyNow('s', [routed('i4', plan)], docPath);
      await report(() => undefined).catch(() => undefined);
      await changes.settle('s', 'i4');
      expect(json()).toEqual(before);
    }
  });

  it('applies the engine\'s own edits instead when they differ from the plan', async () => {
    const { changes, json, posted } = setup();
    const plan = await everyKind();
    await changes.applyFirst('s', pending('i5', plan), docPath);
    const other: ILivePlan = {
      ops: [{ op: 'set', id: 'd', fields: { source: 'd = 40' } }],
      guards: await guards({ d: 'd = 4' })
    };
    const report = await changes.applyNow('s', [routed('i5', other)], docPath);
    const shown = json();
    expect(shown.map(c => c.id)).toEqual(['a', 'b', 'm', 'c', 'd']);
    expect(shown[4].source).toBe('d = 40');
    expect(shown[1].source).toBe('b = 2');
    await report(() => undefined);
    expect(posted).toEqual([['s', 'i5', { state: 'applied' }]]);
  });

  it('applies nothing when a touched cell was edited since the preview (the engine refuses it)', async () => {
    const { changes, json, raw, holds } = setup();
    raw.cells.find(c => c.id === 'b')!.setSource('b = 2  # edited since');
    const before = json();
    expect(await changes.applyFirst('s', pending('i6', await everyKind()), docPath)).toBe(false);
    expect(json()).toEqual(before);
    expect(holds).toEqual([]);
  });

  it('applies nothing in a collaborative room (the server edits the room itself)', async () => {
    const { changes, json } = setup('applied', true);
    const before = json();
    expect(await changes.applyFirst('s', pending('i7', await everyKind()), docPath)).toBe(false);
    expect(json()).toEqual(before);
  });

  it('Approve & Run applies the cleared outputs the engine plans, and is then the same change', async () => {
    const { changes, json, posted } = setup();
    const plan: ILivePlan = {
      ops: [{ op: 'set', id: 'b', fields: { source: 'b = 5' } }],
      guards: await guards({ b: 'b = 2' })
    };
    await changes.applyFirst('s', pending('i8', plan), docPath, true);
    expect(json()[1]).toMatchObject({ source: 'b = 5', outputs: [], execution_count: null });
    // The engine's own clearing (clear_replaced) adds the same two fields.
    const report = await changes.applyNow('s', [routed('i8', clearReplaced(plan))], docPath);
    await report(() => undefined);
    expect(posted).toEqual([['s', 'i8', { state: 'applied' }]]);
    await changes.settle('s', 'i8');
    expect(json()[1]).toMatchObject({ source: 'b = 5', outputs: [], execution_count: null });
  });

  it('holds the notebook\'s saves until the decision is over', async () => {
    const { changes, holds } = setup();
    await changes.applyFirst('s', pending('i9', await everyKind()), docPath);
    expect(holds).toHaveLength(1);
    let released = false;
    void holds[0].then(() => (released = true));
    await Promise.resolve();
    expect(released).toBe(false);
    await changes.settle('s', 'i9');
    await Promise.resolve();
    expect(released).toBe(true);
  });
});

describe('holdSaves', () => {
  it('makes a save wait for the decision and then write what the notebook holds by then', async () => {
    let content = 'provisional';
    const written: string[] = [];
    const context = {
      save: async () => void written.push(content),
      saveAs: async () => written.push(`as ${content}`)
    };
    let decided = (): void => undefined;
    holdSaves(context, new Promise<void>(resolve => (decided = resolve)));
    expect(savesHeld(context)).toBe(true);
    const saving = context.save();
    const savingAs = context.saveAs();
    await new Promise(resolve => setTimeout(resolve, 10));
    expect(written).toEqual([]); // nothing reached the disk while the engine decides
    content = 'as it was'; // refused: the cells were put back
    decided();
    await Promise.all([saving, savingAs]);
    expect(written).toEqual(['as it was', 'as as it was']);
    expect(savesHeld(context)).toBe(false);
    await context.save(); // no hold: at once
    expect(written).toHaveLength(3);
  });
});
