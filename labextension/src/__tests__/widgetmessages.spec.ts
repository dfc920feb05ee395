import { DETAILS_SHOWN_LINES, shownLines } from '../carddetails';
import { cardKey } from '../cardkeys';
import { Requests } from '../widget/messages';

describe('Requests', () => {
  it('numbers each request and settles it with the reply of the same number', async () => {
    const sent: any[] = [];
    const requests = new Requests({ send: m => sent.push(m) });
    const first = requests.send({ kind: 'history' });
    const second = requests.send({ kind: 'decide_all', decision: 'reject' });
    expect(sent.map(m => m.request)).toEqual([1, 2]);
    expect(sent[1]).toEqual({ kind: 'decide_all', decision: 'reject', request: 2 });
    expect(requests.pending).toBe(2);
    // Replies may come in any order; a stray or foreign message settles nothing.
    expect(requests.receive({ kind: 'reply', request: 9 })).toBe(false);
    expect(requests.receive({ kind: 'other', request: 2 })).toBe(false);
    expect(requests.receive('text')).toBe(false);
    expect(requests.receive({ kind: 'reply', request: 2, note: 'done' })).toBe(true);
    await expect(second).resolves.toEqual({ kind: 'reply', request: 2, note: 'done' });
    expect(requests.pending).toBe(1);
    expect(requests.receive({ kind: 'reply', request: 2 })).toBe(false); // answered once only
    requests.receive({ kind: 'reply', request: 1, history: [] });
    await expect(first).resolves.toMatchObject({ history: [] });
    expect(requests.pending).toBe(0);
  });

  it('settles what waits with an error when the view goes away', async () => {
    const requests = new Requests({ send: () => undefined });
    const waiting = requests.send({ kind: 'content', id: 'w1' });
    requests.abandon('closed');
    await expect(waiting).resolves.toEqual({ kind: 'reply', request: 1, error: 'closed' });
    expect(requests.pending).toBe(0);
  });

  it('sends a stale preview token as given: the kernel decides whether it is current', () => {
    const sent: any[] = [];
    const requests = new Requests({ send: m => sent.push(m) });
    void requests.send({ kind: 'decide', id: 'w1', index: 0, decision: 'approve', preview: 'abc' });
    expect(sent[0]).toMatchObject({ kind: 'decide', id: 'w1', preview: 'abc', request: 1 });
  });
});

describe('cardKey', () => {
  const key = (k: string, more: Partial<Parameters<typeof cardKey>[0]> = {}) =>
    cardKey({ key: k, altKey: false, ctrlKey: false, metaKey: false, targetIsCard: true, ...more });

  it('maps the letters to actions on the focused card', () => {
    expect(key('a')).toBe('approve');
    expect(key('A')).toBe('approve');
    expect(key('r')).toBe('reject');
    expect(key('e')).toBe('edit');
    expect(key('j')).toBe('next');
    expect(key('n')).toBe('next');
    expect(key('k')).toBe('previous');
    expect(key('x')).toBeNull();
  });

  it('never acts with a modifier or while typing in the card', () => {
    expect(key('a', { ctrlKey: true })).toBeNull();
    expect(key('a', { metaKey: true })).toBeNull();
    expect(key('a', { altKey: true })).toBeNull();
    expect(key('a', { targetIsCard: false })).toBeNull();
  });
});

describe('shownLines', () => {
  it('keeps a short text whole', () => {
    expect(shownLines('a\nb\n')).toEqual({ text: 'a\nb\n', more: 0 });
    expect(shownLines('')).toEqual({ text: '', more: 0 });
  });

  it('cuts after the first lines and counts the characters left out, with the sender\'s', () => {
    const text = Array.from({ length: 250 }, (_, i) => `line ${i}\n`).join('');
    const shown = shownLines(text);
    expect(shown.text.endsWith('line 199\n')).toBe(true);
    expect(shown.text.split('\n').length - 1).toBe(DETAILS_SHOWN_LINES);
    expect(shown.more).toBe(text.length - shown.text.length);
    // Sent already cut by the kernel (200 lines, 5,000 characters more): nothing to cut here.
    expect(shownLines(shown.text, 5000)).toEqual({ text: shown.text, more: 5000 });
    expect(shownLines(text + 'tail').more).toBe(shown.more + 4);
  });
});
