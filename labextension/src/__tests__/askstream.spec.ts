import { budgetValue, costText, parseFrames, ProseFilter, usageText } from '../askstream';

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

describe('usageText', () => {
  const usage = { prompt_tokens: 1200, completion_tokens: 345, total_tokens: 1545, estimated: false };

  it("shows the endpoint's counts, and the cost when a price is known", () => {
    expect(usageText(usage)).toBe('1,545 tokens (1,200 in, 345 out)');
    expect(usageText(usage, null)).toBe('1,545 tokens (1,200 in, 345 out)');
    expect(usageText(usage, 1.89)).toBe('1,545 tokens (1,200 in, 345 out) · $1.89');
  });

  it('labels estimated counts, and their cost as an estimate too', () => {
    expect(usageText({ ...usage, estimated: true }, 1.89)).toBe('~1,545 tokens (estimate) · ~$1.89');
    expect(usageText({ ...usage, estimated: true })).toBe('~1,545 tokens (estimate)');
  });

  it('says when no usage was reported', () => {
    expect(usageText(null)).toBe('no usage reported');
  });
});

describe('costText', () => {
  it('shows small costs with two significant digits', () => {
    expect(costText(0)).toBe('$0');
    expect(costText(0.000123)).toBe('$0.00012');
    expect(costText(3.9)).toBe('$3.90');
  });
});

describe('budgetValue', () => {
  it('reads a positive number, blank as none, anything else as NaN', () => {
    expect(budgetValue(' ')).toBeUndefined();
    expect(budgetValue('2.5')).toBe(2.5);
    expect(budgetValue('0')).toBeNaN();
    expect(budgetValue('-1')).toBeNaN();
    expect(budgetValue('abc')).toBeNaN();
  });
});
