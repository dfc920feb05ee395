/**
 * The Editor File API (v1.3) as the workspace files view speaks it: message
 * types, UTF-8 <-> base64, and plain words for the protocol's error codes.
 * Pure (no DOM, no Lab imports) so it can be unit tested.
 */

/** The seed's 1 MB limit, used until the server's `capabilities_result` says otherwise. */
export const DEFAULT_MAX_FILE_SIZE = 1_048_576;
/** The seed's path length limit (characters). */
export const DEFAULT_MAX_PATH_LENGTH = 4096;

/** One entry of a `file_list_result`. */
export interface IFileItem {
  name: string;
  is_dir: boolean;
  size: number;
}

/** Any reply of the server: a `*_result` or an `error`. */
export interface IFileReply {
  type: string;
  request_id?: string | number;
  code?: string;
  message?: string;
  path?: string;
  items?: IFileItem[];
  content_b64?: string;
  size?: number;
  success?: boolean;
  protocol?: string;
  capabilities?: string[];
  workspaces?: string[];
  limits?: { max_file_size?: number; max_path_length?: number };
}

/** A request as sent (the `request_id` is added by the connection). */
export type FileRequest =
  | { type: 'capabilities' }
  | { type: 'file_list'; workspace: string; path?: string }
  | { type: 'file_read'; workspace: string; path: string }
  | { type: 'file_write'; workspace: string; path: string; content_b64: string };

/** An `error` reply (or a failure of the connection itself). */
export class FileApiError extends Error {
  constructor(
    readonly code: string,
    readonly serverMessage: string = ''
  ) {
    super(describeCode(code));
  }
}

/** Codes the connection itself uses when no server answer exists. */
export const CONNECTION_LOST = 'connection_lost';
export const BAD_REPLY = 'bad_reply';

const PLAIN_WORDS: Record<string, string> = {
  file_not_found: 'The file does not exist (any more).',
  file_too_large: 'The file is larger than 1 MB, the limit of the file API.',
  path_escape: 'This path is outside the workspace or protected.',
  io_error: 'The server could not read or write this file.',
  invalid_utf8: 'The file is not UTF-8 text, so it cannot be edited here.',
  workspace_not_found: 'The server has no workspace with this name.',
  bad_request: 'The server did not understand the request.',
  forbidden: 'You are not allowed to change files on this server.',
  [CONNECTION_LOST]: 'The connection to the server was lost. Try again.',
  [BAD_REPLY]: 'The server sent an answer that could not be read.'
};

/** The protocol's error code in plain words (the code itself is shown beside it). */
export function describeCode(code: string): string {
  return PLAIN_WORDS[code] ?? `The server refused the request (${code}).`;
}

/** UTF-8 bytes of a string, base64-encoded (works for any size, no string blow-up). */
export function encodeText(text: string): { b64: string; size: number } {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return { b64: btoa(binary), size: bytes.length };
}

/** Decode base64 UTF-8 text strictly; throws `FileApiError('invalid_utf8')` otherwise. */
export function decodeText(b64: string): string {
  let binary: string;
  try {
    binary = atob(b64);
  } catch {
    throw new FileApiError(BAD_REPLY);
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) {
    bytes[i] = binary.charCodeAt(i);
  }
  try {
    // ignoreBOM keeps a byte order mark in the text, so saving writes it back unchanged.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new FileApiError('invalid_utf8');
  }
}

/** Parse one frame from the server; `null` when it is not a reply object. */
export function parseReply(frame: unknown): IFileReply | null {
  if (typeof frame !== 'string') {
    return null;
  }
  try {
    const data = JSON.parse(frame) as unknown;
    if (data && typeof data === 'object' && typeof (data as IFileReply).type === 'string') {
      return data as IFileReply;
    }
  } catch {
    // fall through
  }
  return null;
}

/** Directory entries in the order the list shows them: folders first, then by name. */
export function sortItems(items: readonly IFileItem[]): IFileItem[] {
  return [...items].sort((a, b) =>
    a.is_dir !== b.is_dir ? (a.is_dir ? -1 : 1) : a.name < b.name ? -1 : a.name > b.name ? 1 : 0
  );
}

/** `dir` joined with `name` as the API expects (`.` is the root). */
export function joinPath(dir: string, name: string): string {
  return dir === '.' || dir === '' ? name : `${dir}/${name}`;
}

/** The parent folder of a workspace-relative path (`.` for the root). */
export function parentPath(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '.' : path.slice(0, cut);
}

/** A file size for people, in the seed's units (1 MB = 1,048,576 bytes): `512 B`, `12.1 KB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) {
    return `${bytes} B`;
  }
  if (bytes < 1_048_576) {
    return `${(bytes / 1024).toFixed(1)} KB`;
  }
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

/** The size shown in the list, saying when a file is over the API's limit. */
export function sizeLabel(bytes: number, limit: number): string {
  return bytes > limit ? `${formatSize(bytes)}, over the ${formatSize(limit)} limit` : formatSize(bytes);
}

/** The line ending a file uses (its first one), `\n` for a file without any. */
export function lineSeparatorOf(text: string): string {
  const at = text.indexOf('\n');
  return at > 0 && text[at - 1] === '\r' ? '\r\n' : '\n';
}
