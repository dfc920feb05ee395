import {
  decodeText,
  describeCode,
  encodeText,
  FileApiError,
  formatSize,
  sizeLabel,
  joinPath,
  lineSeparatorOf,
  parentPath,
  parseReply,
  sortItems
} from '../fileproto';

describe('text encoding', () => {
  it('round-trips UTF-8 exactly, BOM and CRLF included', () => {
    const text = '\ufeffh\u00e9llo \u{1f600}\r\nno final newline';
    const { b64, size } = encodeText(text);
    expect(size).toBe(32);
    expect(b64).toBe('77u/aMOpbGxvIPCfmIANCm5vIGZpbmFsIG5ld2xpbmU=');
    expect(decodeText(b64)).toBe(text);
  });

  it('encodes large texts', () => {
    const text = 'x'.repeat(300_000) + '\u00e9';
    const { b64, size } = encodeText(text);
    expect(size).toBe(300_002);
    expect(decodeText(b64)).toBe(text);
  });

  it('refuses bytes that are not UTF-8', () => {
    const b64 = '//4A'; // the bytes ff fe 00
    expect(() => decodeText(b64)).toThrow(FileApiError);
    try {
      decodeText(b64);
    } catch (e) {
      expect((e as FileApiError).code).toBe('invalid_utf8');
    }
  });
});

describe('protocol helpers', () => {
  it('describes every seed code in plain words, and unknown codes too', () => {
    for (const code of ['file_not_found', 'file_too_large', 'path_escape', 'io_error', 'invalid_utf8']) {
      expect(describeCode(code)).not.toContain(code);
      expect(describeCode(code).length).toBeGreaterThan(10);
    }
    expect(describeCode('brand_new')).toBe('The server refused the request (brand_new).');
  });

  it('parses replies and rejects anything else', () => {
    expect(parseReply('{"type": "file_list_result", "request_id": "r1"}')).toEqual({
      type: 'file_list_result',
      request_id: 'r1'
    });
    expect(parseReply('not json')).toBeNull();
    expect(parseReply('[1]')).toBeNull();
    expect(parseReply('{"code": 1}')).toBeNull();
    expect(parseReply(new ArrayBuffer(2))).toBeNull();
  });

  it('sorts folders first, then by name', () => {
    const items = sortItems([
      { name: 'b.txt', is_dir: false, size: 1 },
      { name: 'z', is_dir: true, size: 0 },
      { name: 'a.txt', is_dir: false, size: 1 },
      { name: 'c', is_dir: true, size: 0 }
    ]);
    expect(items.map(i => i.name)).toEqual(['c', 'z', 'a.txt', 'b.txt']);
  });

  it('joins and splits workspace paths', () => {
    expect(joinPath('.', 'a.txt')).toBe('a.txt');
    expect(joinPath('src/lib', 'a.txt')).toBe('src/lib/a.txt');
    expect(parentPath('src/lib')).toBe('src');
    expect(parentPath('src')).toBe('.');
  });

  it('formats sizes', () => {
    expect(formatSize(5)).toBe('5 B');
    expect(formatSize(1_048_576)).toBe('1.0 MB');
    expect(formatSize(12_390)).toBe('12.1 KB');
    expect(sizeLabel(1_048_576, 1_048_576)).toBe('1.0 MB');
    expect(sizeLabel(1_048_577, 1_048_576)).toBe('1.0 MB, over the 1.0 MB limit');
  });
});

describe('lineSeparatorOf', () => {
  it('keeps the file\'s own line ending', () => {
    expect(lineSeparatorOf('a\r\nb\r\n')).toBe('\r\n');
    expect(lineSeparatorOf('a\nb\r\n')).toBe('\n');
    expect(lineSeparatorOf('no newline')).toBe('\n');
    expect(lineSeparatorOf('\n')).toBe('\n');
  });
});
