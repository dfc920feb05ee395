/**
 * Context by mention, the text side: `@` in the Ask box names a workspace file or a cell of
 * the open notebook. Pure (no Lab imports), so jest tests it; askmentions.ts is the widget.
 *
 * A mention is `@` at the start of the text or after white space, then a token without white
 * space: a workspace path (`@data/notes.txt`) or a cell (`@cell:3`, by its index).
 */

/** The `@token` being typed at `caret`: where its `@` is and what follows it so far. */
export interface IMentionQuery {
  start: number;
  query: string;
}

/** A notebook cell as a mention sends it (server/bodies.py `CellMention`, without `kind`). */
export interface IMentionCell {
  cell_type: string;
  id?: string;
  source: string | string[];
  outputs?: unknown[];
}

/** `attachments` of `POST agent/runs`: a file (read by the server) or a cell (as open). */
export type IAttachment =
  | { kind: 'file'; path: string }
  | {
      kind: 'cell';
      notebook: string;
      index: number;
      id: string | null;
      cell_type: string;
      source: string;
      outputs: unknown[];
    };

/** One entry of the completion list: the token inserted after `@` and what it attaches. */
export interface IMentionChoice {
  token: string;
  label: string;
  attachment: IAttachment;
}

/** What the server said it attached (the request's card lists it). */
export interface IAttached {
  kind: string;
  label: string;
  chars: number;
  cut: boolean;
}

const SPACE = /\s/;

/** The mention being typed at `caret`, or null (no `@` before it, or white space between). */
export function mentionAt(text: string, caret: number): IMentionQuery | null {
  for (let at = caret - 1; at >= 0; at--) {
    const char = text[at];
    if (char === '@') {
      if (at > 0 && !SPACE.test(text[at - 1])) {
        return null; // an address (a@b.c), not a mention
      }
      return { start: at, query: text.slice(at + 1, caret) };
    }
    if (SPACE.test(char)) {
      return null;
    }
  }
  return null;
}

/** `text` with the mention typed from `start` to `caret` replaced by `@token `, and the caret
 * after it. */
export function insertMention(
  text: string,
  start: number,
  caret: number,
  token: string
): { text: string; caret: number } {
  let end = caret;
  while (end < text.length && !SPACE.test(text[end])) {
    end++; // the rest of a token the caret was inside
  }
  const inserted = `@${token} `;
  const after = text.slice(end).replace(/^\s/, '');
  return { text: text.slice(0, start) + inserted + after, caret: start + inserted.length };
}

/** The tokens mentioned in `text` (each once, in order). */
export function mentionedTokens(text: string): string[] {
  const found: string[] = [];
  const pattern = /(^|\s)@(\S+)/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (!found.includes(match[2])) {
      found.push(match[2]);
    }
  }
  return found;
}

/** The attachments of the picked mentions still in `text`, in the text's order. */
export function keptAttachments(text: string, picked: ReadonlyMap<string, IAttachment>): IAttachment[] {
  return mentionedTokens(text)
    .map(token => picked.get(token))
    .filter((found): found is IAttachment => found !== undefined);
}

const joined = (source: string | string[]) => (Array.isArray(source) ? source.join('') : source);

/** The cells of the open notebook (`notebook`: its workspace path) whose token, id or first
 * line holds `query`. */
export function cellChoices(notebook: string, cells: readonly IMentionCell[], query: string): IMentionChoice[] {
  const wanted = query.toLowerCase();
  const out: IMentionChoice[] = [];
  cells.forEach((cell, index) => {
    const token = `cell:${index}`;
    const source = joined(cell.source);
    const first = source.split('\n', 1)[0].slice(0, 60);
    const id = cell.id ?? null;
    const label = `cell ${index}${id ? ` (${id})` : ''}: ${first}`;
    if (wanted && ![token, id ?? '', first].some(part => part.toLowerCase().includes(wanted))) {
      return;
    }
    out.push({
      token,
      label,
      attachment: {
        kind: 'cell',
        notebook,
        index,
        id,
        cell_type: cell.cell_type,
        source,
        outputs: cell.cell_type === 'code' ? [...(cell.outputs ?? [])] : []
      }
    });
  });
  return out;
}

/** Workspace paths (as `GET agent/mentions` lists them) as choices. */
export function fileChoices(paths: readonly string[]): IMentionChoice[] {
  return paths.filter(path => !SPACE.test(path)).map(path => ({ token: path, label: path, attachment: { kind: 'file', path } }));
}

/** One line of the request's card for what was attached. */
export function attachedText(item: IAttached): string {
  const size = `${item.chars.toLocaleString('en-US')} characters`;
  return `${item.label} (${size}${item.cut ? ', cut to fit' : ''})`;
}
