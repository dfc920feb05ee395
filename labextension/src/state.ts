/**
 * The panel's view of one scanned reply: its items and results, updated from
 * server answers. Pure (no DOM, no Lab imports) so it can be unit tested.
 */
import { IAnsweredItem, IDecideResponse, IExecution, IOperatorItem, IScanResponse, ItemStatus } from './types';

/** Statuses after which an item never changes again. */
const FINAL: ReadonlySet<ItemStatus> = new Set([
  'done',
  'failed',
  'error',
  'applied',
  'rejected',
  'denied',
  'stale'
]);

/**
 * The badge of each status: one word for every outcome kind ("Invalid": the
 * block failed validation, "Failed": a valid command failed when planned or
 * run, "Denied": a rule refused it, "Rejected": a person refused it, "Stale":
 * the file changed after its preview). The twin of `BADGES` in
 * jupyter_operator/engine/labels.py: a Python test checks the two agree.
 */
export const STATUS_LABELS: Record<ItemStatus, string> = {
  pending: 'Waiting for you',
  waiting: 'Waiting for an earlier change',
  done: 'Done',
  applied: 'Applied',
  error: 'Invalid',
  failed: 'Failed',
  denied: 'Denied',
  rejected: 'Rejected',
  stale: 'Stale',
  undone: 'Undone',
  running: 'Running'
};

// The model's prefixes: `Invalid OPERATOR_CMD (ERR_X): ` (and the host's
// `Rejected`, `Denied`, `Not applied`, `Undone`), and `ERROR(CODE): ` of the
// string commands. The same pattern as labels.py.
const MODEL_PREFIX =
  /^(?:(?:Invalid OPERATOR_CMD|Rejected|Denied|Not applied|Undone|Cell failed|Not run) \(ERR_[A-Z0-9_]+\)|ERROR\([A-Z0-9_]+\)): /;

/**
 * A result summary as a person reads it: the message without the model's
 * prefix and code, ending with a full stop (`person_text` in labels.py; the
 * first letter is left alone, messages often start with a path). A summary in
 * no model format is returned as it is.
 */
export function personText(summary: string): string {
  const match = MODEL_PREFIX.exec(summary);
  if (!match) {
    return summary;
  }
  const text = summary.slice(match[0].length).trim();
  return !text || '.!?)'.includes(text[text.length - 1]) ? text : `${text}.`;
}

/** Whether an item still waits for a person's decision. */
export function isPending(item: IOperatorItem): boolean {
  return item.status === 'pending';
}

/** Whether an item's outcome is final. */
export function isFinal(item: IOperatorItem): boolean {
  return FINAL.has(item.status);
}

/** Whether two snapshots of an item would render differently. */
/**
 * Whether any field of an item changed: a cell run's `execution`, a shell item's `shell` or who
 * decided can change while the status stays. Objects are compared by value; a field an answer
 * left out is the same reference after `mergeItem`, so a large diff or notebook is not compared.
 */
export function differs(a: IOperatorItem, b: IOperatorItem): boolean {
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  for (const key of new Set([...Object.keys(x), ...Object.keys(y)])) {
    const before = x[key];
    const after = y[key];
    if (before === after) {
      continue;
    }
    const objects = typeof before === 'object' && typeof after === 'object' && before && after;
    if (!objects || JSON.stringify(before) !== JSON.stringify(after)) {
      return true;
    }
  }
  return false;
}

/** An item of a decision's answer folded into the one shown (which keeps an unchanged diff). */
export function mergeItem(shown: IOperatorItem | undefined, next: IAnsweredItem): IOperatorItem {
  // An item the client never showed came whole (the server leaves out only what it sent before).
  return shown ? { ...shown, ...next } : { diff: null, ...next };
}

/** The items a decision answer carries: the decided ones, then the others it changed. */
export function decidedAndChanged(answer: Pick<IDecideResponse, 'item' | 'decided' | 'items'>): IAnsweredItem[] {
  return [...(answer.item ? [answer.item] : []), ...(answer.decided ?? []), ...(answer.items ?? [])];
}

/** One run of the panel: the items of a scanned reply and its results text. */
export class RunState {
  readonly session: string;
  readonly workspace: string;
  readonly folder: string | null;
  readonly truncatedChars: number;
  readonly unreadMarkers: number;
  readonly dialect: 'operator' | 'json' | 'commands';
  /** The MCP client that proposed this session (`name version`); null for a reply. */
  readonly label: string | null;
  private _items: IOperatorItem[];
  private _resultsText: string;

  constructor(scan: IScanResponse) {
    this.session = scan.session;
    this.workspace = scan.workspace;
    this.folder = scan.folder ?? null;
    this.truncatedChars = scan.truncated_chars ?? 0;
    this.unreadMarkers = scan.unread_markers ?? 0;
    this.dialect = scan.dialect ?? 'operator';
    this.label = scan.label ?? null;
    this._items = [...scan.items].sort((a, b) => a.index - b.index);
    this._resultsText = scan.results_text ?? '';
  }

  /** Items in block order. */
  get items(): readonly IOperatorItem[] {
    return this._items;
  }

  /** Items still waiting for a decision. */
  get pending(): IOperatorItem[] {
    return this._items.filter(isPending);
  }

  /** True when nothing waits for a decision. */
  get done(): boolean {
    return this.pending.length === 0;
  }

  /** `OPERATOR_RESULT` blocks of every decided item so far. */
  get resultsText(): string {
    return this._resultsText;
  }

  /** The item with a given index, if any. */
  item(index: number): IOperatorItem | undefined {
    return this._items.find(i => i.index === index);
  }

  /**
   * Fold a decision answer in. Items are matched by index (ids can repeat
   * across invalid blocks). Returns the indices whose rendering changed.
   */
  update(
    answer: Pick<IDecideResponse, 'item' | 'decided' | 'items' | 'results_text'> & { done?: boolean }
  ): number[] {
    const changed = new Set<number>();
    for (const next of decidedAndChanged(answer)) {
      const at = this._items.findIndex(i => i.index === next.index);
      if (at < 0) {
        continue; // the server never adds items to a run; ignore strays
      }
      const merged = mergeItem(this._items[at], next);
      if (differs(this._items[at], merged)) {
        this._items[at] = merged;
        changed.add(next.index);
      }
    }
    if (typeof answer.results_text === 'string') {
      this._resultsText = answer.results_text;
    }
    return [...changed].sort((a, b) => a - b);
  }

  /** Counts for the panel's summary line. */
  counts(): {
    reads: number;
    pending: number;
    applied: number;
    rejected: number;
    denied: number;
    errors: number;
    undone: number;
  } {
    const c = { reads: 0, pending: 0, applied: 0, rejected: 0, denied: 0, errors: 0, undone: 0 };
    for (const item of this._items) {
      if (item.kind === 'read') {
        c.reads++;
      } else if (item.status === 'pending') {
        c.pending++;
      } else if (item.status === 'applied') {
        c.applied++;
      } else if (item.status === 'rejected') {
        c.rejected++;
      } else if (item.status === 'denied') {
        c.denied++; // refused by a rule, not by a person: said apart on the summary line
      } else if (item.status === 'undone') {
        c.undone++;
      }
      if (item.kind === 'error' || item.status === 'failed' || item.status === 'stale') {
        c.errors++;
      }
    }
    return c;
  }
}

/** What a run without commands was searched for, by dialect (`NO_BLOCKS` in labels.py). */
const EMPTY_NOTES: Record<RunState['dialect'], string> = {
  operator:
    'No OPERATOR_CMD blocks found (looked for blocks of the Operator dialect: a line ' +
    'OPERATOR_CMD, key: value lines, a line END_OPERATOR_CMD).',
  json: 'No JSON operations found (looked for a JSON operation object, or a list of them).',
  commands: 'No string commands found (looked for lines that start with a /command or bash).'
};

/**
 * The warning banner when the reply was cut to the scan window and the cut part
 * held `OPERATOR_CMD` markers (`cut_warning` in labels.py), else null.
 */
export function cutWarning(state: RunState): string | null {
  const unread = state.unreadMarkers;
  if (!unread) {
    return null;
  }
  const many = unread !== 1;
  return (
    `This reply is longer than the 200,000 characters that are scanned: the first ` +
    `${state.truncatedChars.toLocaleString('en-US')} characters were not read, and they hold ` +
    `${unread} OPERATOR_CMD marker${many ? 's' : ''} whose command${many ? 's' : ''} did not ` +
    `run. The results ask the model to send ${many ? 'them' : 'it'} again.`
  );
}

/** The panel's status line: counts by outcome, or what was looked for when nothing was found. */
export function statusLine(state: RunState): string {
  if (state.items.length === 0) {
    return EMPTY_NOTES[state.dialect] ?? EMPTY_NOTES.operator;
  }
  const c = state.counts();
  const parts = [`${state.items.length} command${state.items.length === 1 ? '' : 's'}`];
  if (c.pending) {
    parts.push(`${c.pending} waiting for approval`);
  }
  if (c.applied) {
    parts.push(`${c.applied} applied`);
  }
  if (c.rejected) {
    parts.push(`${c.rejected} rejected`);
  }
  if (c.denied) {
    parts.push(`${c.denied} denied by a rule`);
  }
  if (c.undone) {
    parts.push(`${c.undone} undone`);
  }
  if (c.errors) {
    parts.push(`${c.errors} with errors`);
  }
  if (state.truncatedChars && !state.unreadMarkers) {
    parts.push(
      `the first ${state.truncatedChars.toLocaleString('en-US')} characters were not scanned ` +
        '(no OPERATOR_CMD marker in them)'
    );
  }
  return parts.join(', ') + '.';
}

/**
 * What a card waiting for an earlier change says: a read, a cell run and a change each wait
 * for it in their own way.
 */
export function dependencyNote(kind: string, base: string): string {
  if (kind === 'read') {
    return `Runs after ${base} is decided (it reads what ${base} changes).`;
  }
  if (kind === 'run') {
    return (
      `Runs after ${base} is decided: this preview shows the cell as ${base} leaves it ` +
      `(if ${base} is rejected, the run is previewed again from the notebook as it is).`
    );
  }
  return (
    `Builds on ${base}: this preview assumes ${base} is applied. Decide ${base} first ` +
    `(if ${base} is rejected, this change is previewed again from the file, or not applied).`
  );
}

/** Outcomes of a run request in which nothing ran (the card still shows the kernel it saw). */
const NOT_RUN = ['stale', 'unavailable'];
/** How a run that happened ended, in words (`Outcome.status`; nothing to say of `ok`). */
const RAN_WORDS: Record<string, string> = {
  ok: '',
  error: 'the cell raised an error',
  timeout: 'timed out',
  interrupted: 'interrupted',
  kernel_died: 'the kernel died'
};

/**
 * Where a run card's cell runs: the kernel as previewed ("not started": it starts for this
 * run), or once the cell ran, the kernel it ran in with the count it got.
 */
export function kernelLine(execution: IExecution): string {
  const { kernel, request, outcome } = execution;
  const where = ` of ${request.notebook}`;
  if (outcome && !NOT_RUN.includes(outcome.status)) {
    const parts = kernel.where === 'live' ? ['the open notebook\u2019s kernel'] : [];
    const how = RAN_WORDS[outcome.status] ?? outcome.status;
    if (how) {
      parts.push(how);
    }
    if (outcome.execution_count) {
      parts.push(`execution count ${outcome.execution_count}`);
    }
    return `Ran in kernel ${kernel.name}${parts.length ? ` (${parts.join(', ')})` : ''}${where}`;
  }
  if (kernel.where === 'live') {
    return `Kernel ${kernel.name} (the open notebook\u2019s kernel)${where}`;
  }
  const state = kernel.state === 'not_started' ? 'not started yet: it starts for this run' : kernel.state;
  const count = kernel.execution_count ? `, execution count ${kernel.execution_count}` : '';
  return `Kernel ${kernel.name} (${state}${count})${where}`;
}
