import {
  cellCommandText,
  decodePythonStringRepr,
  hasCommandMarker,
  outputsText,
  outputText
} from '../celltext';

const BLOCK = 'OPERATOR_CMD\nversion: 1\nid: r1\naction: fs.read\npath: a.txt\nEND_OPERATOR_CMD\n';

describe('hasCommandMarker', () => {
  it('needs the marker alone on its line', () => {
    expect(hasCommandMarker(BLOCK)).toBe(true);
    expect(hasCommandMarker('  OPERATOR_CMD  \r\nversion: 1')).toBe(true);
    expect(hasCommandMarker('see OPERATOR_CMD blocks')).toBe(false);
    expect(hasCommandMarker('END_OPERATOR_CMD')).toBe(false);
  });
});

describe('cellCommandText', () => {
  it('prefers the source when it holds commands', () => {
    const cell = { source: ['%%operator\n', BLOCK], outputs: [{ output_type: 'stream', text: BLOCK }] };
    expect(cellCommandText(cell)).toEqual({ text: `%%operator\n${BLOCK}`, origin: 'source' });
  });

  it('falls back to stream outputs (a printed model answer)', () => {
    const cell = {
      source: 'print(answer)',
      outputs: [
        { output_type: 'stream', text: ['Sure.\n', BLOCK.slice(0, 20)] },
        { output_type: 'stream', text: BLOCK.slice(20) }
      ]
    };
    expect(cellCommandText(cell)).toEqual({ text: `Sure.\n${BLOCK}`, origin: 'outputs' });
  });

  it('returns null when neither source nor outputs hold commands', () => {
    expect(cellCommandText({ source: 'x = 1', outputs: [] })).toBeNull();
    expect(cellCommandText({ source: 'x = 1' })).toBeNull();
  });
});

describe('outputText', () => {
  it('prefers text/markdown over the repr in text/plain', () => {
    expect(
      outputText({
        output_type: 'display_data',
        data: { 'text/markdown': BLOCK, 'text/plain': '<IPython.core.display.Markdown object>' }
      })
    ).toBe(BLOCK);
  });

  it("decodes a str shown as a cell's value", () => {
    const repr = `'Here:\\n${BLOCK.replace(/\n/g, '\\n')}'`;
    expect(outputText({ output_type: 'execute_result', data: { 'text/plain': repr } })).toBe(
      `Here:\n${BLOCK}`
    );
  });

  it('keeps text/plain as is when it is not a str repr', () => {
    expect(outputText({ output_type: 'execute_result', data: { 'text/plain': '42' } })).toBe('42');
  });

  it('strips ANSI colour codes from streams', () => {
    expect(outputText({ output_type: 'stream', text: '\u001b[32mOPERATOR_CMD\u001b[0m\n' })).toBe(
      'OPERATOR_CMD\n'
    );
  });

  it('ignores error outputs', () => {
    expect(outputText({ output_type: 'error' })).toBe('');
  });

  it('ends every output with a newline so markers stay on their own lines', () => {
    expect(
      outputsText([
        { output_type: 'execute_result', data: { 'text/plain': 'a' } },
        { output_type: 'stream', text: 'OPERATOR_CMD' }
      ])
    ).toBe('a\nOPERATOR_CMD\n');
  });
});

describe('decodePythonStringRepr', () => {
  it('decodes the escapes repr() produces', () => {
    expect(decodePythonStringRepr(`"it's\\tok\\\\\\x41\\u00e9"`)).toBe("it's\tok\\Aé");
  });

  it('rejects text that is not one literal', () => {
    expect(decodePythonStringRepr("'a' + 'b'")).toBeNull();
    expect(decodePythonStringRepr('abc')).toBeNull();
    expect(decodePythonStringRepr("'\\q'")).toBeNull();
    expect(decodePythonStringRepr("'")).toBeNull();
  });
});
