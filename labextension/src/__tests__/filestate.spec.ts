import { EditorModel, SAVE_STATUS_LABELS } from '../filestate';

function openModel(text = 'hello\n', path = 'a.txt'): EditorModel {
  const model = new EditorModel();
  expect(model.beginOpen(path)).toBe(true);
  expect(model.status).toBe('loading');
  expect(model.opened(path, text)).toBe(true);
  return model;
}

describe('EditorModel', () => {
  it('starts empty and cannot save', () => {
    const model = new EditorModel();
    expect(model.status).toBe('empty');
    expect(model.statusLabel).toBe(SAVE_STATUS_LABELS.empty);
    expect(model.beginSave(0)).toBeNull();
    model.edit('typed into nothing');
    expect(model.dirty).toBe(false);
  });

  it('goes saved -> unsaved -> saving -> saved', () => {
    const model = openModel();
    expect(model.status).toBe('saved');
    model.edit('hello world\n');
    expect(model.status).toBe('unsaved');
    expect(model.dirty).toBe(true);
    expect(model.beginSave(12)).toBe('hello world\n');
    expect(model.status).toBe('saving');
    expect(model.statusLabel).toBe('Saving…');
    expect(model.beginSave(12)).toBeNull(); // one save at a time
    model.saveSucceeded();
    expect(model.status).toBe('saved');
    expect(model.dirty).toBe(false);
  });

  it('editing back to the saved text is saved again', () => {
    const model = openModel('abc');
    model.edit('abcd');
    model.edit('abc');
    expect(model.status).toBe('saved');
  });

  it('keeps edits made while saving as unsaved', () => {
    const model = openModel('v1');
    model.edit('v2');
    model.beginSave(2);
    model.edit('v3');
    expect(model.status).toBe('saving');
    model.saveSucceeded();
    expect(model.status).toBe('unsaved');
    expect(model.beginSave(2)).toBe('v3');
  });

  it('shows a failed save with the protocol code in plain words', () => {
    const model = openModel();
    model.edit('changed');
    model.beginSave(7);
    model.saveFailed('path_escape');
    expect(model.status).toBe('error');
    expect(model.error?.code).toBe('path_escape');
    expect(model.statusLabel).toBe(
      'Not saved: This path is outside the workspace or protected. (path_escape)'
    );
    expect(model.dirty).toBe(true);
    model.edit('changed again');
    expect(model.status).toBe('error'); // the failure stays visible until the next save
    expect(model.beginSave(13)).toBe('changed again');
    expect(model.error).toBeNull();
    model.saveSucceeded();
    expect(model.status).toBe('saved');
  });

  it('refuses to send more than the limit, before anything is sent', () => {
    const model = openModel();
    model.maxFileSize = 10;
    model.edit('x'.repeat(11));
    expect(model.beginSave(11)).toBeNull();
    expect(model.status).toBe('error');
    expect(model.error?.code).toBe('file_too_large');
    expect(model.statusLabel).toContain('larger than 1 MB');
    expect(model.beginSave(10)).not.toBeNull();
  });

  it('shows a file that cannot be opened as a notice and keeps the open one', () => {
    const model = openModel('kept');
    model.edit('kept, edited');
    expect(model.beginOpen('big.bin')).toBe(true);
    expect(model.openFailed('big.bin', 'file_too_large')).toBe(true);
    expect(model.notice).toEqual({
      path: 'big.bin',
      code: 'file_too_large',
      text: 'The file is larger than 1 MB, the limit of the file API.'
    });
    expect(model.path).toBe('a.txt');
    expect(model.status).toBe('unsaved');
    expect(model.beginOpen('image.png')).toBe(true);
    expect(model.notice).toBeNull();
    model.openFailed('image.png', 'invalid_utf8');
    expect(model.notice?.text).toBe('The file is not UTF-8 text, so it cannot be edited here.');
  });

  it('a failed open with nothing open is empty', () => {
    const model = new EditorModel();
    model.beginOpen('x.bin');
    model.openFailed('x.bin', 'invalid_utf8');
    expect(model.status).toBe('empty');
    expect(model.path).toBeNull();
  });

  it('ignores the answer for a file no longer asked for', () => {
    const model = new EditorModel();
    model.beginOpen('first.txt');
    model.beginOpen('second.txt');
    expect(model.opened('first.txt', 'old')).toBe(false);
    expect(model.openFailed('first.txt', 'io_error')).toBe(false);
    expect(model.opened('second.txt', 'new')).toBe(true);
    expect(model.path).toBe('second.txt');
    expect(model.text).toBe('new');
  });

  it('does not open the same file twice at once', () => {
    const model = new EditorModel();
    expect(model.beginOpen('a.txt')).toBe(true);
    expect(model.beginOpen('a.txt')).toBe(false);
  });

  it('close forgets everything', () => {
    const model = openModel();
    model.edit('dirty');
    model.close();
    expect(model.path).toBeNull();
    expect(model.dirty).toBe(false);
    expect(model.status).toBe('empty');
  });
});
