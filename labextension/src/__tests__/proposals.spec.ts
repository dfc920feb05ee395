import { arrivalMessage, arrivals, proposedBy, ProposalWatch, sourceLabel } from '../proposals';
import { IPendingSession } from '../types';

function pending(session: string, label: string | null, count = 1): IPendingSession {
  return { session, workspace: 'default', created: 0, pending: count, label };
}

describe('sourceLabel', () => {
  it("names the MCP client by its clientInfo's name and version", () => {
    expect(sourceLabel('claude-code 2.1')).toBe('claude-code 2.1 via MCP');
  });

  it('names nothing for a reply (no label)', () => {
    expect(sourceLabel(null)).toBeNull();
    expect(sourceLabel(undefined)).toBeNull();
    expect(sourceLabel('  ')).toBeNull();
  });

  it("shows a client's name as text, its bidi and invisible characters made visible", () => {
    const shown = sourceLabel('evil\u202eedoc-edualc 1\u200b.0') ?? '';
    expect(shown).not.toContain('\u202e');
    expect(shown).not.toContain('\u200b');
    expect(shown.endsWith(' via MCP')).toBe(true);
  });
});

describe('arrivalMessage', () => {
  it('says who proposes how much', () => {
    expect(arrivalMessage(pending('s1', 'codex 0.9'))).toBe(
      'codex 0.9 via MCP proposes a change: review it in the Operator panel.'
    );
    expect(arrivalMessage(pending('s1', 'codex 0.9', 3))).toContain('proposes 3 changes');
  });
});

describe('arrivals', () => {
  it('reports labelled sessions not seen yet, oldest first', () => {
    const listed = [pending('new', 'a 1'), pending('reply', null), pending('old', 'b 2'), pending('seen', 'c 3')];
    expect(arrivals(new Map([['seen', 1]]), listed).map(s => s.session)).toEqual(['old', 'new']);
  });

  it("reports a client's session again when one more of its calls waits in it", () => {
    const seen = new Map([['client', 1]]);
    expect(arrivals(seen, [pending('client', 'a 1', 2)]).map(s => s.session)).toEqual(['client']);
    expect(arrivals(seen, [pending('client', 'a 1', 1)])).toEqual([]);
  });
});

describe('ProposalWatch', () => {
  it('reports each arrival once and every change in what waits', async () => {
    let listed: IPendingSession[] = [pending('s1', 'claude-code 2.1')];
    const calls: [string[], string[]][] = [];
    const watch = new ProposalWatch(
      async () => ({ sessions: listed }),
      (arrived, waiting) => calls.push([arrived.map(s => s.session), waiting.map(s => s.session)])
    );
    expect((await watch.look()).map(s => s.session)).toEqual(['s1']);
    expect(await watch.look()).toEqual([]); // nothing new, nothing changed: no report
    listed = [pending('s2', 'codex 0.9'), pending('r', null), ...listed];
    await watch.look();
    listed = [pending('s2', 'codex 0.9')]; // s1 was decided
    await watch.look();
    expect(calls).toEqual([
      [['s1'], ['s1']],
      [['s2'], ['s2', 's1']],
      [[], ['s2']]
    ]);
    expect(watch.waiting.map(s => s.session)).toEqual(['s2']);
  });

  it("reports a client's next call in its one session once, as an arrival", async () => {
    let listed: IPendingSession[] = [pending('c', 'codex 0.9', 1)];
    const watch = new ProposalWatch(async () => ({ sessions: listed }), () => undefined);
    expect((await watch.look()).map(s => s.session)).toEqual(['c']);
    listed = [pending('c', 'codex 0.9', 2)];
    expect((await watch.look()).map(s => s.session)).toEqual(['c']);
    expect(await watch.look()).toEqual([]);
    listed = [pending('c', 'codex 0.9', 1)]; // one was decided: nothing arrived
    expect(await watch.look()).toEqual([]);
  });

  it('keeps looking after a failed look', async () => {
    let fail = true;
    const watch = new ProposalWatch(
      async () => {
        if (fail) {
          throw new Error('server restarting');
        }
        return { sessions: [pending('s1', 'x 1')] };
      },
      () => undefined
    );
    expect(await watch.look()).toEqual([]);
    fail = false;
    expect((await watch.look()).map(s => s.session)).toEqual(['s1']);
  });
});

describe('proposedBy', () => {
  it("names the MCP client a history entry came from, as the panel's History row says it", () => {
    expect(proposedBy('codex 0.9')).toBe(', proposed by codex 0.9 via MCP');
  });

  it('says nothing for a change of a reply or a person', () => {
    expect(proposedBy(null)).toBe('');
    expect(proposedBy(undefined)).toBe('');
  });
});
