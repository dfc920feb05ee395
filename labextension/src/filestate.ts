/**
 * The workspace files editor's state: which file is open, what was last
 * saved, and the save status the indicator shows. Pure (no DOM) so every
 * transition is unit tested; the view only renders it.
 */
import { DEFAULT_MAX_FILE_SIZE, describeCode } from './fileproto';

/** What the save status indicator says. */
export type SaveStatus = 'empty' | 'loading' | 'saved' | 'unsaved' | 'saving' | 'error';

/** The indicator's words for each status (errors add the protocol's code in plain words). */
export const SAVE_STATUS_LABELS: Record<SaveStatus, string> = {
  empty: 'No file open',
  loading: 'Opening…',
  saved: 'Saved',
  unsaved: 'Unsaved changes',
  saving: 'Saving…',
  error: 'Not saved'
};

/** A refusal shown as a message instead of an editor (too large, not UTF-8, ...). */
export interface INotice {
  path: string;
  code: string;
  text: string;
}

/** The open file, its last saved text and the save status. */
export class EditorModel {
  maxFileSize = DEFAULT_MAX_FILE_SIZE;
  private _path: string | null = null;
  private _loading: string | null = null;
  private _saved = '';
  private _text = '';
  private _status: SaveStatus = 'empty';
  private _error: { code: string; message: string } | null = null;
  private _notice: INotice | null = null;
  private _savingText: string | null = null;

  /** The path of the open file (as listed), or null. */
  get path(): string | null {
    return this._path;
  }

  /** The text in the editor. */
  get text(): string {
    return this._text;
  }

  get status(): SaveStatus {
    return this._status;
  }

  /** The last save's failure (its protocol code and plain words), while status is 'error'. */
  get error(): { code: string; message: string } | null {
    return this._error;
  }

  /** A file that could not be opened, shown as a message. */
  get notice(): INotice | null {
    return this._notice;
  }

  /** Whether the editor holds changes not yet on disk. */
  get dirty(): boolean {
    return this._path !== null && this._text !== this._saved;
  }

  /** One line for the indicator. */
  get statusLabel(): string {
    const label = SAVE_STATUS_LABELS[this._status];
    return this._error && this._status === 'error'
      ? `${label}: ${this._error.message} (${this._error.code})`
      : label;
  }

  /** A file is being opened; returns false if the same one is already loading. */
  beginOpen(path: string): boolean {
    if (this._loading === path) {
      return false;
    }
    this._loading = path;
    this._notice = null;
    this._status = 'loading';
    return true;
  }

  /** The file's text arrived; stale answers (another file was asked for since) are ignored. */
  opened(path: string, text: string): boolean {
    if (this._loading !== path) {
      return false;
    }
    this._loading = null;
    this._path = path;
    this._saved = this._text = text;
    this._savingText = null;
    this._error = null;
    this._status = 'saved';
    return true;
  }

  /** The file could not be opened: the previous file (if any) stays, the refusal is shown. */
  openFailed(path: string, code: string): boolean {
    if (this._loading !== path) {
      return false;
    }
    this._loading = null;
    this._notice = { path, code, text: describeCode(code) };
    this._status = this._path === null ? 'empty' : this._statusAfterEdit();
    return true;
  }

  /** Hide the message about a file that could not be opened. */
  dismissNotice(): void {
    this._notice = null;
  }

  /** Nothing is open any more (another workspace was chosen). */
  close(): void {
    this._path = this._loading = this._savingText = null;
    this._saved = this._text = '';
    this._error = this._notice = null;
    this._status = 'empty';
  }

  /** The editor's text changed. */
  edit(text: string): void {
    if (this._path === null) {
      return;
    }
    this._text = text;
    if (this._status !== 'saving') {
      this._status = this._statusAfterEdit();
    }
  }

  /**
   * Start a save. Returns the text to send, or null when there is nothing to
   * save or a save is already under way. A text over the limit fails here,
   * before anything is sent, with the protocol's own code.
   */
  beginSave(size: number): string | null {
    if (this._path === null || this._status === 'saving' || this._status === 'loading') {
      return null;
    }
    if (size > this.maxFileSize) {
      this._fail('file_too_large');
      return null;
    }
    this._savingText = this._text;
    this._status = 'saving';
    this._error = null;
    return this._text;
  }

  /** The server wrote the text sent; edits made meanwhile stay unsaved. */
  saveSucceeded(): void {
    if (this._savingText === null) {
      return;
    }
    this._saved = this._savingText;
    this._savingText = null;
    this._status = this._statusAfterEdit();
  }

  /** The server refused the save (or the connection failed). */
  saveFailed(code: string): void {
    this._savingText = null;
    this._fail(code);
  }

  private _fail(code: string): void {
    this._error = { code, message: describeCode(code) };
    this._status = 'error';
  }

  private _statusAfterEdit(): SaveStatus {
    if (this._status === 'error' && this._text !== this._saved) {
      return 'error';
    }
    return this._text === this._saved ? 'saved' : 'unsaved';
  }
}
