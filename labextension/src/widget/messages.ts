/**
 * What the notebook cards and the kernel say to each other. The kernel keeps the
 * run as the widget's state (`run`: the run's items in the shape the server sends the
 * panel, plus what the notebook shows around them); the view sends requests as custom
 * messages, each with a number, and the kernel answers every one with a `reply` of the
 * same number once the run's new state is set. Nothing here touches the DOM.
 */
import { Decision, IEditContent, IExecutionRecord, IHistoryEntry, IScanResponse } from '../types';

/** The widget's `run` state (`RunWidget.run` in `jupyter_operator/widgets/run_widget.py`). */
export interface IRunWidgetState extends IScanResponse {
  /** The heading ("Operator", "Operator (dry run: nothing is written)"). */
  title: string;
  /** Muted notes under the heading (already-run ids, the dry-run note). */
  notes: string[];
  /** A warning banner (commands cut from the reply), or null. */
  warning: string | null;
  dry_run: boolean;
  /** Whether the kernel takes an edited content with an approval. */
  can_edit: boolean;
  /** The title over the results box. */
  results_title: string;
  /** Per item id: the preview the card shows (a decision names it; a changed one is stale). */
  previews: Record<string, string>;
}

/** A request of the view. */
export type WidgetRequest =
  | {
      kind: 'decide';
      id: string;
      index: number;
      decision: Decision;
      reason?: string;
      content?: string;
      and_run?: boolean;
      /** The preview the person saw (`previews[id]`). */
      preview: string | null;
    }
  | { kind: 'decide_all'; decision: Decision; reason?: string }
  | { kind: 'content'; id: string }
  | { kind: 'history' }
  | { kind: 'undo' | 'redo'; entry_id: string | null };

/** The kernel's answer to one request. */
export interface IReply {
  kind: 'reply';
  request: number;
  /** A sentence for the person when the request did nothing. */
  error?: string | null;
  /** The preview changed since the card was drawn: nothing was decided. */
  stale?: boolean;
  /** A one-line note of what was done (an undo, an already-decided item). */
  note?: string | null;
  content?: IEditContent;
  history?: IHistoryEntry[];
  executions?: IExecutionRecord[];
}

/** The part of an anywidget model requests go through. */
export interface IMessageChannel {
  send(content: unknown): void;
}

/** Requests waiting for their reply, by number. */
export class Requests {
  private _next = 1;
  private _waiting = new Map<number, (reply: IReply) => void>();

  constructor(private _channel: IMessageChannel) {}

  /** How many requests wait for a reply (the view is busy while any does). */
  get pending(): number {
    return this._waiting.size;
  }

  /** Send a request; the promise settles with the kernel's reply. */
  send(request: WidgetRequest): Promise<IReply> {
    const number = this._next++;
    return new Promise(resolve => {
      this._waiting.set(number, resolve);
      this._channel.send({ ...request, request: number });
    });
  }

  /** Take a message of the kernel; true when it answered a request. */
  receive(message: unknown): boolean {
    if (!isReply(message)) {
      return false;
    }
    const resolve = this._waiting.get(message.request);
    if (!resolve) {
      return false;
    }
    this._waiting.delete(message.request);
    resolve(message);
    return true;
  }

  /** Settle every waiting request (the view is going away, or the kernel restarted). */
  abandon(error: string): void {
    for (const [request, resolve] of this._waiting) {
      resolve({ kind: 'reply', request, error });
    }
    this._waiting.clear();
  }
}

function isReply(message: unknown): message is IReply {
  if (typeof message !== 'object' || message === null) {
    return false;
  }
  const m = message as Record<string, unknown>;
  return m.kind === 'reply' && typeof m.request === 'number';
}
