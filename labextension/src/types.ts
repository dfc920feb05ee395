/**
 * Shapes of the jupyter-operator REST API (`{baseUrl}jupyter-operator/api/`).
 *
 * These mirror `Item.to_dict()` and the server handlers; the panel never invents
 * fields the server did not send.
 */

/** What the server did, or will do once decided, with one command. */
export type ItemStatus =
  | 'done'
  | 'failed'
  | 'error'
  | 'pending'
  | 'waiting'
  | 'applied'
  | 'rejected'
  | 'denied'
  | 'stale';

/** One command of a scanned reply, as the server reports it. */
export interface IOperatorItem {
  index: number;
  id: string;
  action: string | null;
  path: string | null;
  line: number;
  kind: 'read' | 'mutation' | 'error' | 'shell';
  status: ItemStatus;
  needs_approval: boolean;
  summary: string;
  change: 'create' | 'modify' | 'delete' | null;
  diff: string | null;
  added: number;
  removed: number;
  sha256_before: string | null;
  ok: boolean | null;
  details: string | null;
  error_code: string | null;
  /** The earlier undecided change this one depends on (a change previewed on
   * top of it, or the change a waiting read runs after). */
  builds_on: string | null;
  /** JSON operations only: the dialect, the response event, and for shell items the command. */
  dialect?: 'json';
  event?: Record<string, unknown> | null;
  shell?: IShellState | null;
}

/** A shell item's command as approved, and its output once it ran. */
export interface IShellState {
  command: string;
  cwd: string;
  env: Record<string, string>;
  timeout_ms: number;
  sandboxed: boolean;
  network: boolean;
  status: 'waiting' | 'running' | 'finished';
  stdout: string;
  stderr: string;
  exit_code: number | null;
  duration_ms: number | null;
  timed_out: boolean;
  truncated: boolean;
}

/** `POST scan`. */
export interface IScanResponse {
  session: string;
  workspace: string;
  items: IOperatorItem[];
  results_text: string;
  truncated_chars: number;
}

/** `POST sessions/{session}/decide` and `decide-all`. */
export interface IDecideResponse {
  item?: IOperatorItem;
  items: IOperatorItem[];
  results_text: string;
  done: boolean;
}

/** `GET workspaces`. */
export interface IWorkspacesResponse {
  workspaces: { name: string }[];
}

/** One entry of the undo history. */
export interface IHistoryEntry {
  entry_id: string;
  time?: string | number;
  command_id: string;
  action: string;
  path: string | null;
  undone: boolean;
}

/** `POST undo`. */
export interface IUndoResponse {
  entry: IHistoryEntry;
}

/** A person's decision on a pending mutation. */
export type Decision = 'approve' | 'reject';
