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
  /** This reply's usage, as the endpoint reported it (`estimated` for offline models). */
  usage?: ITokenUsage | null;
  /** What this reply cost, when the model's price is known. */
  turn_cost?: number;
  /** What the run cost so far (null: no price known). */
  cost?: number | null;
  results_text?: string;
  message?: string;
  reason?: string;
  turns?: number;
}

/** One reply's tokens. */
export interface ITokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  estimated: boolean;
}

/** A cost as a person reads it: dollars, with enough digits to show a small one. */
export function costText(cost: number): string {
  if (cost === 0) {
    return '$0';
  }
  return cost >= 0.01 ? `$${cost.toFixed(2)}` : `$${cost.toPrecision(2)}`;
}

/**
 * One turn's tokens: "1,234 tokens (1,000 in, 234 out) · $0.0012", counts that were only
 * estimated labelled so, with their cost too ("~56 tokens (estimate) · ~$0.0001"), "no usage
 * reported" without any.
 */
export function usageText(usage: ITokenUsage | null | undefined, cost?: number | null): string {
  if (!usage) {
    return 'no usage reported';
  }
  const total = usage.total_tokens.toLocaleString('en-US');
  const priced = cost === undefined || cost === null ? '' : ` · ${costText(cost)}`;
  if (usage.estimated) {
    // Priced all the same (a cost budget counts it), and labelled as the estimate it is.
    return `~${total} tokens (estimate)${priced ? ` · ~${costText(cost as number)}` : ''}`;
  }
  const prompt = usage.prompt_tokens.toLocaleString('en-US');
  const completion = usage.completion_tokens.toLocaleString('en-US');
  return `${total} tokens (${prompt} in, ${completion} out)${priced}`;
}

/** A positive number typed in a budget field, undefined when blank; NaN when not one. */
export function budgetValue(text: string): number | undefined {
  const trimmed = text.trim();
  if (!trimmed) {
    return undefined;
  }
  const value = Number(trimmed);
  return Number.isFinite(value) && value > 0 ? value : NaN;
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

/**
 * Feed reply deltas; get the prose (text outside command blocks) to show.
 * A line is shown as it arrives once it can no longer become a marker line
 * (the same rule as the Python `ProseFilter`); only the undecided start of a
 * line is held back, so a very long line costs linear time.
 */
export class ProseFilter {
  private _head = '';
  private _line: 'prose' | 'hidden' | null = null;
  private _inside = false;

  private _decide(): 'prose' | 'hidden' | null {
    const lead = this._head.replace(/^[ \t]+/, '');
    if (!lead) {
      return null;
    }
    if (lead.startsWith(START) || lead.startsWith(END)) {
      return 'hidden';
    }
    if (START.startsWith(lead) || END.startsWith(lead)) {
      return null;
    }
    return this._inside ? 'hidden' : 'prose';
  }

  feed(delta: string): string {
    const out: string[] = [];
    let pos = 0;
    while (pos < delta.length) {
      const newline = delta.indexOf('\n', pos);
      const end = newline < 0 ? delta.length : newline + 1;
      const piece = delta.slice(pos, end);
      if (this._line === null) {
        this._head += piece;
        this._line = this._decide();
        if (this._line === 'prose') {
          out.push(this._head);
        }
      } else if (this._line === 'prose') {
        out.push(piece);
      }
      if (newline >= 0) {
        const kind = marker(this._head);
        if (kind === 'start') {
          this._inside = true;
        } else if (kind === 'end' && this._inside) {
          this._inside = false;
        } else if (this._line === null && !this._inside) {
          out.push(this._head);
        }
        this._head = '';
        this._line = null;
      }
      pos = end;
    }
    return out.join('');
  }
}
