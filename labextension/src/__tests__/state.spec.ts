import {
  cutWarning,
  decidedAndChanged,
  dependencyNote,
  differs,
  isFinal,
  kernelLine,
  mergeItem,
  personText,
  RunState,
  statusLine,
  STATUS_LABELS
} from '../state';
import { IExecution, IOperatorItem, IScanResponse } from '../types';

function item(index: number, patch: Partial<IOperatorItem> = {}): IOperatorItem {
  return {
    index,
    id: `c${index}`,
    action: 'fs.write',
    path: `f${index}.txt`,
    line: index * 6 + 1,
    kind: 'mutation',
    status: 'pending',
    needs_approval: true,
    summary: '+1 -0 lines',
    change: 'create',
    diff: '@@ -0,0 +1 @@\n+x\n',
    added: 1,
    removed: 0,
    sha256_before: null,
    ok: null,
    details: null,
    error_code: null,
    builds_on: null,
    ...patch
  };
}

function scan(items: IOperatorItem[], results = ''): IScanResponse {
  return { session: 's1', workspace: 'default', items, results_text: results, truncated_chars: 0 };
}

describe('RunState', () => {
  it('keeps items in block order and knows what is pending', () => {
    const read = item(0, { kind: 'read', action: 'fs.read', status: 'done', ok: true, change: null });
    const state = new RunState(scan([item(2), read, item(1)], 'R0'));
    expect(state.items.map(i => i.index)).toEqual([0, 1, 2]);
    expect(state.pending.map(i => i.id)).toEqual(['c1', 'c2']);
    expect(state.done).toBe(false);
    expect(state.resultsText).toBe('R0');
  });

  it('folds a decision in and reports only the cards that changed', () => {
    const state = new RunState(scan([item(0), item(1)]));
    const applied = item(0, { status: 'applied', ok: true, summary: 'Wrote f0.txt' });
    const changed = state.update({ item: applied, items: [], results_text: 'R1', done: false });
    expect(changed).toEqual([0]);
    expect(state.item(0)?.status).toBe('applied');
    expect(state.pending.map(i => i.index)).toEqual([1]);
    expect(state.resultsText).toBe('R1');
  });

  it('is done once every mutation is decided', () => {
    const state = new RunState(scan([item(0), item(1)]));
    const changed = state.update({
      items: [
        item(0, { status: 'applied', ok: true }),
        item(1, { status: 'rejected', ok: false, summary: 'Rejected: nope' })
      ],
      results_text: 'R2',
      done: true
    });
    expect(changed).toEqual([0, 1]);
    expect(state.done).toBe(true);
    expect(state.counts()).toEqual({ reads: 0, pending: 0, applied: 1, rejected: 1, denied: 0, errors: 0, undone: 0 });
  });

  it('counts a change a rule denied apart from one a person rejected', () => {
    const state = new RunState(
      scan([
        item(0, { status: 'denied', ok: false, needs_approval: false }),
        item(1, { status: 'rejected', ok: false, needs_approval: false })
      ])
    );
    expect(state.counts()).toMatchObject({ rejected: 1, denied: 1 });
  });

  it('re-renders a dependent change once the change it builds on is decided', () => {
    const base = item(0);
    const dependent = item(1, { builds_on: 'c0' });
    const state = new RunState(scan([base, dependent]));
    const applied = item(0, { status: 'applied', needs_approval: false });
    const freed = item(1, { builds_on: null });
    const changed = state.update({ item: applied, items: [freed], results_text: 'R0', done: false });
    expect(changed.sort()).toEqual([0, 1]);
    expect(state.item(1)?.builds_on).toBeNull();
  });

  it('folds in what a decide-all answer decided and the other items it changed', () => {
    const state = new RunState(scan([item(0), item(1, { builds_on: 'c0' }), item(2)]));
    const answer = {
      decided: [item(0, { status: 'applied', ok: true }), item(2, { status: 'applied', ok: true })],
      items: [item(1, { builds_on: null })],
      results_text: 'R3',
      done: false
    };
    expect(decidedAndChanged(answer).map(i => i.index)).toEqual([0, 2, 1]);
    expect(state.update(answer)).toEqual([0, 1, 2]);
    expect(state.pending.map(i => i.index)).toEqual([1]);
    expect(state.item(1)?.builds_on).toBeNull();
  });

  it('keeps the diff it shows when an answer leaves it out (unchanged)', () => {
    const state = new RunState(scan([item(0, { diff: '--- a/f0.txt\n+++ b/f0.txt\n@@ -1 +1 @@\n-a\n+b\n' })]));
    const { diff: _sent, ...applied } = item(0, { status: 'applied', ok: true }); // as the server answers
    expect(state.update({ item: applied, items: [], results_text: 'R', done: true })).toEqual([0]);
    expect(state.item(0)?.status).toBe('applied');
    expect(state.item(0)?.diff).toContain('+b');
    const edited = item(0, { status: 'applied', diff: '--- a/f0.txt\n+++ b/f0.txt\n@@ -1 +1 @@\n-a\n+c\n' });
    expect(state.update({ item: edited, items: [], results_text: 'R', done: true })).toEqual([0]);
    expect(state.item(0)?.diff).toContain('+c');
    expect(mergeItem(undefined, applied)).toEqual({ ...applied, diff: null });
  });

  it('re-renders a card whose run, shell state or decider changed while its status stayed', () => {
    const running = item(0, {
      kind: 'run',
      status: 'running',
      execution: { status: 'running', outputs: [] } as unknown as IOperatorItem['execution']
    });
    const state = new RunState(scan([running, item(1)]));
    const progress = { status: 'running', outputs: [{ text: 'step 1' }] } as unknown as IOperatorItem['execution'];
    const progressed = { ...running, execution: progress };
    expect(state.update({ items: [progressed], results_text: '', done: false })).toEqual([0]);
    expect(state.item(0)?.execution).toEqual(progressed.execution);
    const ruled = item(1, { decided_by: 'rule', rule_note: 'asked by rule 1: ask *.py' });
    expect(state.update({ items: [ruled], results_text: '', done: false })).toEqual([1]);
    expect(state.item(1)?.rule_note).toBe('asked by rule 1: ask *.py');
    // The same answer again changes nothing: equal objects are not a change.
    const again = { ...progressed, execution: JSON.parse(JSON.stringify(progress)) };
    expect(state.update({ items: [again, { ...ruled }], results_text: '', done: false })).toEqual([]);
  });

  it('compares fields by value and an item with itself as unchanged', () => {
    const a = item(0, { shell: null });
    expect(differs(a, { ...a })).toBe(false);
    expect(differs(a, { ...a, shell: { command: 'ls' } as unknown as IOperatorItem['shell'] })).toBe(true);
    expect(differs(a, { ...a, can_run: true })).toBe(true);
    expect(differs({ ...a, edited: false }, a)).toBe(true);
  });

  it('ignores items the run never had', () => {
    const state = new RunState(scan([item(0)]));
    expect(state.update({ items: [item(7, { status: 'applied' })], results_text: '', done: false })).toEqual([]);
    expect(state.items).toHaveLength(1);
  });

  it('counts errors, stale and failed items', () => {
    const state = new RunState(
      scan([
        item(0, { kind: 'error', action: null, status: 'error', error_code: 'ERR_MISSING_END_MARKER' }),
        item(1, { status: 'stale', error_code: 'ERR_STALE_PREVIEW' }),
        item(2, { kind: 'read', status: 'failed' })
      ])
    );
    expect(state.counts()).toEqual({ reads: 1, pending: 0, applied: 0, rejected: 0, denied: 0, errors: 3, undone: 0 });
    expect(state.done).toBe(true);
  });
});

describe('isFinal', () => {
  it('is false only while pending', () => {
    expect(isFinal(item(0))).toBe(false);
    for (const status of ['done', 'failed', 'error', 'applied', 'rejected', 'denied', 'stale'] as const) {
      expect(isFinal(item(0, { status }))).toBe(true);
    }
  });
});

describe('undone changes', () => {
  it('shows an undone change as undone and takes the new results text', () => {
    const state = new RunState(scan([item(0, { status: 'applied', needs_approval: false })]));
    const undone = item(0, { status: 'undone', needs_approval: false, ok: false });
    const changed = state.update({ items: [undone], results_text: 'ok: false', done: true });
    expect(changed).toEqual([0]);
    expect(STATUS_LABELS[state.item(0)!.status]).toBe('Undone');
    expect(state.resultsText).toBe('ok: false');
    expect(state.counts().undone).toBe(1);
  });
});


describe('what a person reads', () => {
  it('has one badge word per outcome kind, as labels.py', () => {
    expect(STATUS_LABELS.error).toBe('Invalid');
    expect(STATUS_LABELS.failed).toBe('Failed');
    expect(STATUS_LABELS.denied).toBe('Denied');
    expect(STATUS_LABELS.rejected).toBe('Rejected');
    expect(STATUS_LABELS.stale).toBe('Stale');
    expect(new Set(Object.values(STATUS_LABELS)).size).toBe(Object.keys(STATUS_LABELS).length);
  });

  it('drops the model prefix and code from a summary', () => {
    expect(personText('Invalid OPERATOR_CMD (ERR_NOT_FOUND): nope.txt does not exist')).toBe(
      'nope.txt does not exist.'
    );
    expect(personText('Rejected (ERR_REJECTED): nothing was changed. Reason: too big')).toBe(
      'nothing was changed. Reason: too big.'
    );
    expect(personText('Not applied (ERR_BASE_REJECTED): it builds on w1, which was rejected.')).toBe(
      'it builds on w1, which was rejected.'
    );
    expect(personText('ERROR(UNKNOWN_COMMAND): /bogus is not a command; /help lists them.')).toBe(
      '/bogus is not a command; /help lists them.'
    );
    expect(personText('Wrote file')).toBe('Wrote file');
  });
});

describe('the status line and the cut warning', () => {
  it('says what was looked for when a reply has no commands', () => {
    const empty = new RunState({ ...scan([]), dialect: 'operator' });
    expect(statusLine(empty)).toBe(
      'No OPERATOR_CMD blocks found (looked for blocks of the Operator dialect: a line ' +
        'OPERATOR_CMD, key: value lines, a line END_OPERATOR_CMD).'
    );
    expect(statusLine(new RunState({ ...scan([]), dialect: 'json' }))).toContain(
      'No JSON operations found'
    );
    expect(statusLine(new RunState(scan([item(0)])))).toBe('1 command, 1 waiting for approval.');
  });

  it('warns in a banner when commands were in the part not scanned', () => {
    const cut = new RunState({ ...scan([item(0)]), truncated_chars: 52203, unread_markers: 3 });
    expect(cutWarning(cut)).toBe(
      'This reply is longer than the 200,000 characters that are scanned: the first 52,203 ' +
        'characters were not read, and they hold 3 OPERATOR_CMD markers whose commands did not ' +
        'run. The results ask the model to send them again.'
    );
    expect(statusLine(cut)).toBe('1 command, 1 waiting for approval.');
    const prose = new RunState({ ...scan([item(0)]), truncated_chars: 10, unread_markers: 0 });
    expect(cutWarning(prose)).toBeNull();
    expect(statusLine(prose)).toContain('the first 10 characters were not scanned');
  });
});

describe('dependencyNote', () => {
  it('speaks of the run on a run card and of the change on a change card', () => {
    const run = dependencyNote('run', 'fix-mean');
    expect(run).toContain('Runs after fix-mean is decided');
    expect(run).not.toContain('this change');
    expect(dependencyNote('mutation', 'w1')).toContain('this change is previewed again');
    expect(dependencyNote('read', 'w1')).toBe('Runs after w1 is decided (it reads what w1 changes).');
  });
});

describe('kernelLine', () => {
  function execution(patch: Partial<IExecution> = {}): IExecution {
    return {
      request: {
        notebook: 'analysis.ipynb',
        cell_id: 'mean',
        index: 1,
        source: 'print(1)',
        source_sha256: 'x',
        kernel_identity: null,
        timeout_s: 60,
        kernel_name: 'python3',
        restart: false,
        cells: []
      },
      kernel: {
        name: 'python3',
        state: 'not_started',
        execution_count: 0,
        identity: null,
        where: 'headless',
        sandboxed: true,
        reach: 'the workspace'
      },
      what: 'run',
      policy: 'run',
      ran_before: [],
      outcome: null,
      ...patch
    } as IExecution;
  }

  it('says the kernel starts for the run before it ran', () => {
    expect(kernelLine(execution())).toBe(
      'Kernel python3 (not started yet: it starts for this run) of analysis.ipynb'
    );
  });

  it('says where the cell ran once it ran, never "not started"', () => {
    const ran = execution({ outcome: { status: 'ok', execution_count: 2, duration_ms: 5, outputs: [] } });
    expect(kernelLine(ran)).toBe('Ran in kernel python3 (execution count 2) of analysis.ipynb');
    const failed = execution({ outcome: { status: 'error', execution_count: 3, duration_ms: 5, outputs: [] } });
    expect(kernelLine(failed)).toContain('the cell raised an error, execution count 3');
    const stale = execution({ outcome: { status: 'stale', execution_count: null, duration_ms: 0, outputs: [] } });
    expect(kernelLine(stale)).toContain('not started yet');
  });
});
