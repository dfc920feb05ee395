import { foreignSentence } from '../foreign';

describe('foreignSentence', () => {
  const call = { id: 'tool-call-1', family: 'hermes', family_name: 'Hermes/Qwen <tool_call> JSON', name: 'write_file' };

  it('names the format and offers the translation', () => {
    const text = foreignSentence({ ...call, block: 'OPERATOR_CMD\nEND_OPERATOR_CMD' });
    expect(text).toContain('(Hermes/Qwen <tool_call> JSON: write_file)');
    expect(text).toContain('approve it like any other command');
  });

  it('says nothing can run when the intent is not clear', () => {
    const text = foreignSentence({ ...call, name: 'frob\u202enicate', block: null });
    expect(text).toContain('nothing can run');
    expect(text).not.toContain('\u202e'); // a bidi control in the name is made visible
  });
});
