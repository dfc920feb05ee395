import { folderUnder, pickWorkspace, whereText } from '../workspaces';

const WORKSPACES = [
  { name: 'default', path: '.' },
  { name: 'proj', path: 'work/proj' },
  { name: 'far', path: null }
];

describe('pickWorkspace', () => {
  it('takes the workspace that holds the folder most closely', () => {
    expect(pickWorkspace(WORKSPACES, 'work/proj/nb')).toEqual({ workspace: 'proj', folder: 'nb' });
    expect(pickWorkspace(WORKSPACES, 'work/proj')).toEqual({ workspace: 'proj', folder: null });
    expect(pickWorkspace(WORKSPACES, 'work/projects')).toEqual({
      workspace: 'default',
      folder: 'work/projects'
    });
    expect(pickWorkspace(WORKSPACES, '')).toEqual({ workspace: 'default', folder: null });
  });

  it('finds nothing when no workspace holds the folder', () => {
    expect(pickWorkspace([{ name: 'proj', path: 'work/proj' }], 'other')).toBeNull();
    expect(folderUnder('a/b', 'a')).toBeNull();
  });
});

describe('whereText', () => {
  it('names the folder relative to the server root, never more', () => {
    expect(whereText(WORKSPACES, 'default')).toBe('the server root (.)');
    expect(whereText(WORKSPACES, 'default', 'course')).toBe('course/');
    expect(whereText(WORKSPACES, 'proj', 'nb')).toBe('work/proj/nb/');
    expect(whereText(WORKSPACES, 'far')).toBe('workspace far');
  });
});
