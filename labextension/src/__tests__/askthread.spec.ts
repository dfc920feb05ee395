import { shownMessages, threadKey, threadName } from '../askthread';

const WORKSPACES = [
  { name: 'default', path: '.' },
  { name: 'proj', path: 'work/proj' }
];

describe('threadKey', () => {
  it('is one thread per notebook and one per folder for other files', () => {
    expect(threadKey(WORKSPACES, 'default', 'ratio.ipynb')).toBe('notebook:ratio.ipynb');
    expect(threadKey(WORKSPACES, 'proj', 'work/proj/nb/a.ipynb')).toBe('notebook:nb/a.ipynb');
    expect(threadKey(WORKSPACES, 'proj', 'work/proj/nb/data.csv')).toBe('folder:nb');
    expect(threadKey(WORKSPACES, 'proj', 'work/proj/main.py')).toBe('folder:.');
  });

  it('falls back to the workspace folder outside the workspace or with nothing open', () => {
    expect(threadKey(WORKSPACES, 'proj', 'elsewhere/a.ipynb')).toBe('folder:.');
    expect(threadKey(WORKSPACES, 'proj', null)).toBe('folder:.');
    expect(threadKey(WORKSPACES, 'missing', 'a.ipynb')).toBe('folder:.');
  });

  it('names a thread for a person', () => {
    expect(threadName('notebook:nb/a.ipynb')).toBe('nb/a.ipynb');
    expect(threadName('folder:.')).toBe('the workspace folder');
    expect(threadName('folder:data')).toBe('the folder data/');
  });
});

describe('shownMessages', () => {
  it('shows the prose of replies, counts their commands and marks results', () => {
    const shown = shownMessages([
      { role: 'user', content: 'Fix it' },
      { role: 'assistant', content: 'Dividing by zero.\nOPERATOR_CMD\nid: f1\nEND_OPERATOR_CMD' },
      { role: 'user', content: 'OPERATOR_RESULT\nid: f1\nok: true\nEND_OPERATOR_RESULT' }
    ]);
    expect(shown).toEqual([
      { who: 'you', text: 'Fix it', commands: 0 },
      { who: 'model', text: 'Dividing by zero.', commands: 1 },
      { who: 'results', text: 'OPERATOR_RESULT\nid: f1\nok: true\nEND_OPERATOR_RESULT', commands: 0 }
    ]);
  });
});
