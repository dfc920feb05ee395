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
  | 'stale'
  | 'undone'
  | 'running';

/** One command of a scanned reply, as the server reports it. */
export interface IOperatorItem {
  index: number;
  id: string;
  action: string | null;
  path: string | null;
  line: number;
  kind: 'read' | 'mutation' | 'run' | 'error' | 'shell';
  status: ItemStatus;
  needs_approval: boolean;
  summary: string;
  change: 'create' | 'modify' | 'delete' | null;
  diff: string | null;
  /** A notebook change, cell by cell (null for other files). */
  cells?: INotebookCells | null;
  added: number;
  removed: number;
  sha256_before: string | null;
  ok: boolean | null;
  details: string | null;
  /** Characters cut from the end of `details` before it was sent (the notebook's kernel
   * sends a long result's first lines only); the results for the model hold them all. */
  details_more?: number;
  error_code: string | null;
  /** The earlier undecided change this one depends on (a change previewed on
   * top of it, or the change a waiting read runs after). */
  builds_on: string | null;
  /** Whether the person may edit the new content before approving (editor.ts). */
  editable?: boolean;
  /** Approved with the person's edit: the diff is what was written. */
  edited?: boolean;
  /** Who decided it (a person or a rule), the rule's text, and what the card says about it:
   * "auto-approved by rule 2: auto fs.write notes/**", "asked by default: ask". */
  decided_by?: 'person' | 'rule' | null;
  rule?: string | null;
  rule_note?: string | null;
  /** JSON operations and string commands: the dialect, the response event (JSON), and for
   * shell items (a JSON shell operation, a bash line) the command. */
  dialect?: 'json' | 'commands';
  event?: Record<string, unknown> | null;
  shell?: IShellState | null;
  /** A cell run (`nb.runCell`, `nb.restartKernel`, `nb.rebuildState`, or the run of an
   * Approve & Run): what will run, where, and the outcome once it ran. */
  execution?: IExecution | null;
  /** A pending insert or replace of a cell: its card offers Approve & Run. */
  can_run?: boolean;
  /** A call in the model's own tool-call format, and the block it was translated to. */
  foreign?: IForeignCall | null;
  /** A notebook change sent to the page that has the notebook open (livecells.ts). */
  live?: ILiveChange | null;
  /** While a notebook's modification is pending: its cell edits and guards, planned on what
   * the page holding the notebook shows (`Item.plan`; applied at the click: livecells.ts). */
  plan?: ILivePlan | null;
}

/** One cell edit of a change sent to an open notebook (`notebooks/cell_edits.py`). */
export type ILiveOp =
  | { op: 'delete'; id: string }
  | { op: 'insert'; after: string | null; index: number; cell: Record<string, unknown> }
  | { op: 'move'; id: string; after: string | null; index: number }
  | { op: 'set'; id: string; fields: Record<string, unknown> };

/** The cell edits of a pending notebook change and the source sha256 of each cell they
 * rewrite or delete (`Item.plan`). */
export interface ILivePlan {
  ops: ILiveOp[];
  guards: Record<string, string>;
}

/** A notebook change routed to the page holding the notebook, or applied by the server in the
 * notebook's collaborative room (`Item.live`). */
export interface ILiveChange {
  route: 'page' | 'room';
  /** waiting (for a page to apply it), applied, stale, silent (no page answered). */
  state: 'waiting' | 'applied' | 'stale' | 'silent';
  /** The notebook, relative to the session's workspace folder. */
  notebook: string;
  ops: ILiveOp[];
  /** sha256 of the source each rewritten or deleted cell had in the preview, by cell id. */
  guards: Record<string, string>;
  /** What each inserted or rewritten cell holds after the change, by cell id. */
  sources: Record<string, string>;
}

/** A call the model wrote in its own tool-call format (`Item.foreign`). */
export interface IForeignCall {
  id: string;
  family: string;
  family_name: string;
  name: string;
  /** The OPERATOR_CMD block it was translated to; null when its intent is not clear. */
  block: string | null;
}

/** The request a front end carries out for a run (`RunRequest.to_dict()`). */
export interface IRunRequest {
  notebook: string;
  cell_id: string | null;
  index: number | null;
  source: string;
  source_sha256: string;
  kernel_identity: string | null;
  timeout_s: number;
  kernel_name: string;
  restart: boolean;
  cells: [string | null, string, string][];
}

/** The kernel a run card names (`KernelInfo.to_dict()`). */
export interface IKernelInfo {
  name: string;
  state: 'not_started' | 'idle' | 'busy' | 'dead';
  execution_count: number;
  identity: string | null;
  where: 'headless' | 'live' | 'none';
  sandboxed: boolean;
  reach: string;
}

/** `Execution.to_dict()`. */
export interface IExecution {
  request: IRunRequest;
  kernel: IKernelInfo;
  what: string;
  policy: string;
  ran_before: { cell_id: string | null; execution_count: number | null; status: string }[];
  outcome: {
    status: string;
    execution_count: number | null;
    duration_ms: number;
    outputs: Record<string, unknown>[];
  } | null;
}

/** One entry of a cell diff (`CellChange.to_dict()`); indexes are 0-based. */
export interface ICellChange {
  status: 'added' | 'removed' | 'moved' | 'changed' | 'unchanged';
  old_index: number | null;
  new_index: number | null;
  id: string | null;
  cell_type: string;
  old_cell_type: string | null;
  old_id: string | null;
  /** Unified diff of the cell's source, hunk line numbers counted from the cell's first line. */
  source_diff: string;
  added: number;
  removed: number;
  outputs: string | null;
  metadata: string | null;
  execution_count: (number | null)[] | null;
  split_from: number | null;
  merged_into: number | null;
  /** Unchanged entries stand for `count` cells in a row. */
  count: number;
  renumbered: number;
  /** A code cell whose source changed while its outputs did not: how many outputs of the old
   * source it keeps (stale until the cell runs again). */
  stale_outputs?: number;
}

/** A notebook change cell by cell (`NotebookDiff.to_dict()`). */
export interface INotebookCells {
  old_format: string | null;
  new_format: string | null;
  metadata: string | null;
  counts: Record<'added' | 'removed' | 'moved' | 'changed' | 'unchanged', number>;
  cells: ICellChange[];
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

/** `POST scan` and `GET sessions/{id}`. */
export interface IScanResponse {
  session: string;
  workspace: string;
  /** The folder (relative to the workspace root) the session's paths are taken from. */
  folder?: string | null;
  created?: number;
  done?: boolean;
  items: IOperatorItem[];
  results_text: string;
  truncated_chars: number;
  /** `OPERATOR_CMD` markers in the characters cut from the front: commands never read. */
  unread_markers?: number;
  /** How the server read the text (the choice, or what it detected). */
  dialect?: 'operator' | 'json' | 'commands';
  /** The MCP client whose tool call this session is (`name version`); null for a reply. */
  label?: string | null;
}

/** An item in a decision's answer: `diff` and `cells` are left out when they did not change. */
export type IAnsweredItem = Omit<IOperatorItem, 'diff'> & Partial<Pick<IOperatorItem, 'diff'>>;

/**
 * `POST sessions/{session}/decide` (`item`) and `decide-all` (`decided`): the decided items, and
 * in `items` only the run's other items the decision changed. Merge them by `index` into what
 * you have (`mergeItem`): an item leaves out `diff` and `cells` when the decision did not change them.
 */
export interface IDecideResponse {
  item?: IAnsweredItem;
  decided?: IAnsweredItem[];
  items: IAnsweredItem[];
  results_text: string;
  done: boolean;
}

/** `GET workspaces`. */
export interface IWorkspacesResponse {
  workspaces: IWorkspace[];
}

/** A configured workspace: its name, and its root relative to the server's root (or null). */
export interface IWorkspace {
  name: string;
  path?: string | null;
}

/** One session of `GET sessions`: something in it waits for a decision. */
export interface IPendingSession {
  session: string;
  workspace: string;
  created: number;
  /** How many of its items wait. */
  pending: number;
  /** The MCP client that proposed it (`name version`); null for a reply. */
  label?: string | null;
}

/** `GET sessions`: sessions still waiting for decisions, newest first. */
export interface ISessionsResponse {
  sessions: IPendingSession[];
}

/** One entry of the undo history. */
export interface IHistoryEntry {
  entry_id: string;
  time?: number;
  command_id: string;
  action: string;
  path: string | null;
  change?: string;
  undone: boolean;
  /** The session whose decision made it, when known. */
  session?: string | null;
  /** Who approved it: a person or a policy rule (`rule` holds the rule's text). */
  decided_by?: 'person' | 'rule' | null;
  rule?: string | null;
  diff?: string | null;
  /** Where it landed: `disk` (the file), `page` (the notebook open in a page) or `room` (the
   * shared notebook of a collaborative room). */
  route?: 'disk' | 'page' | 'room';
  /** Who proposed it: the label of the session that made it (an Ask run, an MCP client's
   * `name version`), when known; null for a reply or a person. */
  label?: string | null;
}

/** `POST undo-run`: what undoing a run restores (or restored), newest first. */
export interface IUndoRunResponse {
  workspace: string;
  run: string;
  preview: boolean;
  entries: IHistoryEntry[];
  /** The run's cell runs: no undo takes them back. */
  executions: IExecutionRecord[];
  /** The run changed a notebook open here: its cell edits, newest change first, for this page
   * to apply (all or none) and answer; nothing is undone before that answer. */
  live?: (ILiveChange & { entry_id: string; direction: 'undo' })[] | null;
}

/** `GET history`. */
export interface IHistoryResponse {
  workspace: string;
  history: IHistoryEntry[];
  /** The execution ledger: every cell run in the workspace, oldest first. */
  executions?: IExecutionRecord[];
  /** Whether the server's engine can apply an undone change again. */
}

/** One cell run in the ledger (`workspace/ledger.py`). */
export interface IExecutionRecord {
  time: number;
  session: string;
  command_id: string;
  action: string;
  notebook: string;
  cell_id: string | null;
  kernel_name: string;
  kernel_identity: string | null;
  where: string;
  execution_count: number | null;
  status: string;
  decided_by: string | null;
}

/** `POST undo` and `POST redo`. */
export interface IUndoResponse {
  workspace?: string;
  entry: IHistoryEntry;
  /** The session that made the change, as it is now (its item says undone), if known. */
  session?: IScanResponse | null;
  /** A notebook open in a page: the cell edits this page applies; nothing is undone (or
   * redone) until it answers. */
  live?: (ILiveChange & { entry_id: string; direction: 'undo' | 'redo' }) | null;
}

/** A person's decision on a pending mutation. */
export type Decision = 'approve' | 'reject';

/** What the editor starts from (`GET sessions/{id}/items/{item}/content`). */
export interface IEditContent {
  id: string;
  path: string | null;
  editable: boolean;
  /** The model's proposed new content. */
  proposed: string | null;
  /** The file's text the preview was computed from (null for a new file). */
  original: string | null;
}
