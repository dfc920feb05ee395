/**
 * Pure helpers of the Ask mode: server-sent event frames and the prose filter.
 *
 * No DOM and no Lab imports, so jest tests them in plain Node.
 */

/** One event of an agent run, as the server sends it (`agent.events`). */
export interface IAgentEvent {
  kind: string;
  turn?: number;
  max_turns?: number;
  text?: string;
  index?: number;
  id?: string;
  action?: string;
  path?: string;
  session?: string | null;
  items?: unknown[];
  item?: unknown;
  tokens?: number;
  results_text?: string;
  message?: string;
  reason?: string;
  turns?: number;
}

/**
 * Split received text into complete `data:` frames; the rest waits for more.
 * Frames that are not JSON objects with a `kind` are dropped.
 */
export function parseFrames(buffer: string): { events: IAgentEvent[]; rest: string } {
  const frames = buffer.split('\n\n');
  const rest = frames.pop() ?? '';
  const events: IAgentEvent[] = [];
  for (const frame of frames) {
    const data = frame
      .split('\n')
      .filter(line => line.startsWith('data: '))
      .map(line => line.slice(6))
      .join('\n');
    if (!data) {
      continue;
    }
    try {
      const value = JSON.parse(data);
      if (value && typeof value === 'object' && typeof value.kind === 'string') {
        events.push(value as IAgentEvent);
      }
    } catch {
      // a malformed frame is skipped; the next one is independent
    }
  }
  return { events, rest };
}

const START = 'OPERATOR_CMD';
const END = 'END_OPERATOR_CMD';

function marker(line: string): 'start' | 'end' | null {
  const lead = line.replace(/^[ \t]+/, '');
  if (lead.startsWith(END)) {
    return 'end';
  }
  return lead.startsWith(START) ? 'start' : null;
}

function couldBeMarker(partial: string): boolean {
  const lead = partial.replace(/^[ \t]+/, '');
  return (
    START.startsWith(lead.slice(0, START.length)) ||
    END.startsWith(lead.slice(0, END.length)) ||
    lead.startsWith(START) ||
    lead.startsWith(END)
  );
}

/**
 * Feed reply deltas; get the prose (text outside command blocks) to show.
 * A partial line is shown at once unless it could still become a marker line
 * (the same rule as the Python `ProseFilter`).
 */
export class ProseFilter {
  private _partial = '';
  private _shown = 0;
  private _inside = false;

  feed(delta: string): string {
    const out: string[] = [];
    let pos = 0;
    for (;;) {
      const newline = delta.indexOf('\n', pos);
      if (newline < 0) {
        this._partial += delta.slice(pos);
        break;
      }
      const line = this._partial + delta.slice(pos, newline + 1);
      const shown = this._shown;
      this._partial = '';
      this._shown = 0;
      const kind = marker(line);
      if (kind === 'start') {
        this._inside = true;
      } else if (kind === 'end' && this._inside) {
        this._inside = false;
      } else if (!this._inside) {
        out.push(line.slice(shown));
      }
      pos = newline + 1;
    }
    if (!this._inside && this._partial && !couldBeMarker(this._partial)) {
      out.push(this._partial.slice(this._shown));
      this._shown = this._partial.length;
    }
    return out.join('');
  }
}
