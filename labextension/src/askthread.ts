/**
 * The Ask view's threads (server/ask_threads.py): which thread a document belongs to (one per
 * notebook, one per folder for other files), and a saved conversation as a person reads it.
 * Pure (no DOM, no Lab imports), so jest tests it.
 */
import { ProseFilter } from './askstream';
import { folderUnder } from './workspaces';
import { IWorkspace } from './types';

/** `GET agent/threads`: the thread's conversation after the system prompt. */
export interface IThread {
  workspace: string;
  key: string;
  messages: { role: 'user' | 'assistant'; content: string }[];
  busy: boolean;
}

/**
 * The thread of the document at `docPath` (relative to the server root; null: none open) in
 * `workspace`: `notebook:<path>` for a notebook, `folder:<path>` for any other file (paths
 * relative to the workspace), `folder:.` when the document is elsewhere or none is open.
 */
export function threadKey(workspaces: readonly IWorkspace[], workspace: string, docPath: string | null): string {
  const base = workspaces.find(w => w.name === workspace)?.path;
  if (docPath && base !== null && base !== undefined) {
    const slash = docPath.lastIndexOf('/');
    const folder = slash < 0 ? '' : docPath.slice(0, slash);
    const under = folderUnder(base, folder);
    if (under !== null) {
      if (docPath.toLowerCase().endsWith('.ipynb')) {
        const name = docPath.slice(slash + 1);
        return `notebook:${under ? `${under}/` : ''}${name}`;
      }
      return `folder:${under || '.'}`;
    }
  }
  return 'folder:.';
}

/** The thread's name for a person: "ratio.ipynb", "the folder data/". */
export function threadName(key: string): string {
  if (key.startsWith('notebook:')) {
    return key.slice('notebook:'.length);
  }
  const folder = key.slice('folder:'.length);
  return folder === '.' ? 'the workspace folder' : `the folder ${folder}/`;
}

/** One message of a saved thread as shown: who, the text, and what else it held. */
export interface IShownMessage {
  who: 'you' | 'model' | 'results';
  text: string;
  /** The command blocks of a model's reply (shown as a count, not as text). */
  commands: number;
}

/** The messages as a person reads them: the model's prose without its command blocks, the
 * results sent back marked as such. */
export function shownMessages(messages: IThread['messages']): IShownMessage[] {
  return messages.map(message => {
    if (message.role === 'assistant') {
      const filter = new ProseFilter();
      const prose = filter.feed(message.content + '\n').trim();
      const commands = (message.content.match(/^[ \t]*OPERATOR_CMD[ \t]*$/gm) ?? []).length;
      return { who: 'model', text: prose, commands };
    }
    const results = /^[ \t]*OPERATOR_RESULT[ \t]*$/m.test(message.content);
    return { who: results ? 'results' : 'you', text: message.content, commands: 0 };
  });
}
