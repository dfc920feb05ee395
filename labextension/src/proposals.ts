/**
 * Changes MCP clients propose (coding agents calling the server's MCP tools): the tool calls of
 * one client that ask a person are one session of the REST API labelled with the client's
 * `name version`, one item per call.
 * The panel looks for them (`GET sessions`) every few seconds while the page is visible,
 * tells the person when one arrives, lists those not on display, and names the client on the
 * cards of each. The label is the client's own word: shown as text, control characters made
 * visible, never as markup.
 */
import { visibleText } from './diff';
import { IPendingSession, ISessionsResponse } from './types';

/** How often the panel looks for new proposals, in milliseconds. */
export const PROPOSAL_POLL_MS = 2500;

/** What a card and a notification call a session's source: `claude-code 2.1 via MCP`
 * (null for a pasted reply, which has no label). */
export function sourceLabel(label: string | null | undefined): string | null {
  const name = (label ?? '').trim();
  return name ? `${visibleText(name)} via MCP` : null;
}

/** Who proposed a history entry, as its row says it: `, proposed by codex 0.9 via MCP`
 * (empty for a pasted reply's change or a person's, which have no label). */
export function proposedBy(label: string | null | undefined): string {
  const source = sourceLabel(label);
  return source ? `, proposed by ${source}` : '';
}

/** The sentence of a notification for one arrived proposal. */
export function arrivalMessage(session: IPendingSession): string {
  const count = session.pending;
  const what = count === 1 ? 'a change' : `${count} changes`;
  return `${sourceLabel(session.label) ?? 'An MCP client'} proposes ${what}: review it in the Operator panel.`;
}

/** The labelled sessions of `listed` that wait for more than `seen` last counted in them (a
 * client's session gathers its calls: one more call is one more pending item), oldest first
 * (the list is newest first). */
export function arrivals(seen: ReadonlyMap<string, number>, listed: readonly IPendingSession[]): IPendingSession[] {
  return listed.filter(s => s.label && s.pending > (seen.get(s.session) ?? 0)).reverse();
}

/** Looks for pending MCP proposals and reports the new ones (see the module doc). */
export class ProposalWatch {
  /** Labelled sessions that still wait, newest first (as of the last look). */
  waiting: IPendingSession[] = [];
  /** Pending items last counted in each labelled session. */
  private _seen = new Map<string, number>();
  private _timer: ReturnType<typeof setInterval> | null = null;
  private _looking = false;

  constructor(
    private _list: () => Promise<ISessionsResponse>,
    /** Called after each look that found something new, or a change in what waits. */
    private _changed: (arrived: IPendingSession[], waiting: IPendingSession[]) => void
  ) {}

  /** Look now: what arrived since the last look is reported once. */
  async look(): Promise<IPendingSession[]> {
    if (this._looking) {
      return [];
    }
    this._looking = true;
    try {
      const listed = (await this._list()).sessions;
      const arrived = arrivals(this._seen, listed);
      const waiting = listed.filter(s => s.label);
      for (const session of waiting) {
        this._seen.set(session.session, session.pending);
      }
      const same =
        waiting.length === this.waiting.length &&
        waiting.every((s, i) => s.session === this.waiting[i].session && s.pending === this.waiting[i].pending);
      this.waiting = waiting;
      if (arrived.length || !same) {
        this._changed(arrived, waiting);
      }
      return arrived;
    } catch {
      return []; // the server restarts or the network blips: the next look tries again
    } finally {
      this._looking = false;
    }
  }

  /** Look every `ms` milliseconds while the page is visible. */
  start(ms = PROPOSAL_POLL_MS): void {
    this.stop();
    void this.look();
    this._timer = setInterval(() => {
      if (typeof document === 'undefined' || document.visibilityState !== 'hidden') {
        void this.look();
      }
    }, ms);
  }

  stop(): void {
    if (this._timer !== null) {
      clearInterval(this._timer);
      this._timer = null;
    }
  }
}
