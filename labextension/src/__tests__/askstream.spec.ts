import { parseFrames, ProseFilter } from '../askstream';

describe('parseFrames', () => {
  it('returns complete frames and keeps the rest', () => {
    const text = 'id: 0\ndata: {"kind":"delta","text":"a"}\n\nid: 1\ndata: {"kind":"st';
    const { events, rest } = parseFrames(text);
    expect(events).toEqual([{ kind: 'delta', text: 'a' }]);
    expect(rest).toBe('id: 1\ndata: {"kind":"st');
    expect(parseFrames(rest + 'opped"}\n\n').events).toEqual([{ kind: 'stopped' }]);
  });

  it('drops frames that are not events', () => {
    const { events } = parseFrames('data: [1]\n\ndata: nope\n\n: comment\n\ndata: {"kind":"x"}\n\n');
    expect(events).toEqual([{ kind: 'x' }]);
  });
});

describe('ProseFilter', () => {
  const reply =
    'Sure.\nOPERATOR_CMD\nid: a\naction: fs.read\npath: x\nEND_OPERATOR_CMD\nAfter.\n';

  it.each([1, 3, 7, 100])('shows only prose whatever the chunking (%i)', size => {
    const filter = new ProseFilter();
    let out = '';
    for (let i = 0; i < reply.length; i += size) {
      out += filter.feed(reply.slice(i, i + size));
    }
    expect(out).toBe('Sure.\nAfter.\n');
  });

  it('keeps short lines that only start like a marker', () => {
    const filter = new ProseFilter();
    expect(filter.feed('OP\nEND_\n')).toBe('OP\nEND_\n');
  });

  it('keeps only the start of a long line', () => {
    const filter = new ProseFilter();
    let shown = 0;
    for (let i = 0; i < 10000; i++) {
      shown += filter.feed('y'.repeat(16)).length;
    }
    expect(shown).toBe(160000);
  });

  it('shows the first words before the line ends', () => {
    const filter = new ProseFilter();
    expect(filter.feed('Hel')).toBe('Hel');
    expect(filter.feed('lo')).toBe('lo');
    expect(filter.feed('\nOPER')).toBe('\n');
  });
});
