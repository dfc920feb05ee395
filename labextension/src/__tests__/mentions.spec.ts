import {
  attachedText,
  cellChoices,
  fileChoices,
  IAttachment,
  insertMention,
  keptAttachments,
  mentionAt,
  mentionedTokens
} from '../mentions';

describe('mentionAt', () => {
  it('finds the @token typed at the caret, at the start or after white space', () => {
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' });
    expect(mentionAt('look at @dat', 12)).toEqual({ start: 8, query: 'dat' });
    expect(mentionAt('see\n@data/no', 12)).toEqual({ start: 4, query: 'data/no' });
    expect(mentionAt('@cell:3 and @', 13)).toEqual({ start: 12, query: '' });
  });

  it('is not a mention after a word (an address) or once white space follows', () => {
    expect(mentionAt('mail a@b.c', 10)).toBeNull();
    expect(mentionAt('@data done', 10)).toBeNull();
    expect(mentionAt('no at sign', 10)).toBeNull();
    expect(mentionAt('', 0)).toBeNull();
  });
});

describe('insertMention', () => {
  it('replaces the typed token (all of it, caret inside) with the pick and a space', () => {
    expect(insertMention('read @da please', 5, 7, 'data/a.txt')).toEqual({
      text: 'read @data/a.txt please',
      caret: 17
    });
    expect(insertMention('@', 0, 1, 'cell:2')).toEqual({ text: '@cell:2 ', caret: 8 });
  });
});

describe('keptAttachments', () => {
  const file: IAttachment = { kind: 'file', path: 'a.txt' };
  const picked = new Map<string, IAttachment>([['a.txt', file]]);

  it('sends the picked mentions still in the text, each once', () => {
    expect(keptAttachments('compare @a.txt with @a.txt', picked)).toEqual([file]);
    expect(mentionedTokens('@x @y x@z @x')).toEqual(['x', 'y']);
  });

  it('drops a mention the person deleted, and typed tokens never picked', () => {
    expect(keptAttachments('no mention left', picked)).toEqual([]);
    expect(keptAttachments('@b.txt', picked)).toEqual([]);
    expect(keptAttachments('mail@a.txt', picked)).toEqual([]);
  });
});

describe('choices', () => {
  const cells = [
    { cell_type: 'markdown', id: 'title', source: ['# Sales'] },
    { cell_type: 'code', id: 'load', source: 'df = load()\nprint(df)', outputs: [{ output_type: 'stream', text: 'ok' }] }
  ];

  it('offers the open notebook cells by index, id or first line, outputs with code cells', () => {
    const all = cellChoices('work/n.ipynb', cells, '');
    expect(all.map(c => c.token)).toEqual(['cell:0', 'cell:1']);
    expect(all[1].label).toBe('cell 1 (load): df = load()');
    expect(all[1].attachment).toEqual({
      kind: 'cell',
      notebook: 'work/n.ipynb',
      index: 1,
      id: 'load',
      cell_type: 'code',
      source: 'df = load()\nprint(df)',
      outputs: [{ output_type: 'stream', text: 'ok' }]
    });
    expect(cellChoices('n.ipynb', cells, 'cell:1').map(c => c.token)).toEqual(['cell:1']);
    expect(cellChoices('n.ipynb', cells, 'TITLE').map(c => c.token)).toEqual(['cell:0']);
    expect(cellChoices('n.ipynb', cells, 'sales').map(c => c.token)).toEqual(['cell:0']);
  });

  it('offers listed files, not a name a mention could not hold', () => {
    expect(fileChoices(['a.txt', 'my notes.txt'])).toEqual([
      { token: 'a.txt', label: 'a.txt', attachment: { kind: 'file', path: 'a.txt' } }
    ]);
  });

  it('says on the card what was attached and what was cut', () => {
    expect(attachedText({ kind: 'file', label: 'big.txt', chars: 300000, cut: true })).toBe(
      'big.txt (300,000 characters, cut to fit)'
    );
  });
});
