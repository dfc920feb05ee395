import { cellCommandText } from '../celltext';
import { commandsScript, scanBody } from '../request';

describe('string commands in the panel', () => {
  it('sends a %%operator --dialect commands cell without its magic line', () => {
    const cell = '%%operator --dialect commands --root x\n/open a.md\n/ls\n';
    expect(scanBody(cell, 'default')).toEqual({
      text: '/open a.md\n/ls\n',
      dialect: 'commands',
      workspace: 'default'
    });
  });

  it('detects a script that starts with a slash command', () => {
    expect(commandsScript('\n  [r1] /ls docs\n')).toBe('\n  [r1] /ls docs\n');
    expect(scanBody('/help')).toEqual({ text: '/help', dialect: 'commands' });
  });

  it('leaves operator replies alone', () => {
    expect(commandsScript('Plan:\n/open a.md')).toBeNull();
    expect(commandsScript('/open a\nOPERATOR_CMD\n')).toBeNull();
    expect(commandsScript('%%operator\nOPERATOR_CMD\n')).toBeNull();
    expect(scanBody('OPERATOR_CMD\n')).toEqual({ text: 'OPERATOR_CMD\n' });
  });

  it('finds commands in a cell source', () => {
    expect(cellCommandText({ source: ['%%operator --dialect=commands\n', '/ls'] })).toEqual({
      text: '%%operator --dialect=commands\n/ls',
      origin: 'source'
    });
    expect(cellCommandText({ source: 'print(1)' })).toBeNull();
  });
});
