/**
 * Ask mode's requests: JSON calls to the agent API, and the run's event stream read as
 * server-sent events (from the first event not seen yet).
 */
import { ServerConnection } from '@jupyterlab/services';

import { IAgentEvent, parseFrames } from './askstream';
import { OperatorRequestError } from './client';
import { IAttached } from './mentions';
import { buildRequest, describeHttpError, IRequestSpec, NETWORK_ERROR } from './request';

/** `GET agent`: whether Ask mode has a model (never its key). */
export interface IAskInfo {
  available: boolean;
  model: string | null;
  endpoint: string;
  /** The model as a person reads it ("gpt-4o at api.openai.com", "scripted replies"). */
  label?: string | null;
  max_turns: number;
}

/** `GET agent/runs`: a run going on, or ended with a question not answered yet. */
export interface IWaitingRun {
  run: string;
  thread: string | null;
  finished: boolean;
  question: string | null;
  /** How many events the run sent so far (its answer's events follow them). */
  events: number;
  /** Where the run stands: its status line after a reload. */
  turn: number;
  max_turns: number;
  tokens: number;
  tokens_estimated: boolean;
  cost: number | null;
}

/** `POST agent/runs`: the run started. */
export interface IAskStarted {
  run: string;
  model: string;
  endpoint: string;
  label?: string;
  max_turns: number;
  /** The task the model got (the server writes a fix's). */
  task?: string;
  /** The files and cells mentioned with `@` that went with the task. */
  attachments?: IAttached[];
}

/** One request; a network failure becomes an OperatorRequestError. */
async function send(settings: ServerConnection.ISettings, spec: IRequestSpec): Promise<Response> {
  try {
    return await ServerConnection.makeRequest(spec.url, spec.init, settings);
  } catch {
    throw new OperatorRequestError(NETWORK_ERROR.code, NETWORK_ERROR.message);
  }
}

/** GET (no body) or POST a JSON body; the parsed answer, or an OperatorRequestError. */
export async function fetchJson<T>(
  settings: ServerConnection.ISettings,
  segments: string[],
  body?: unknown,
  query?: Record<string, string>
): Promise<T> {
  const response = await send(settings, buildRequest(settings.baseUrl, segments, body, query));
  const text = await response.text();
  if (!response.ok) {
    const error = describeHttpError(response.status, text);
    throw new OperatorRequestError(error.code, error.message);
  }
  return JSON.parse(text) as T;
}

/** Read the run's events from number `from` until the stream ends, calling `onEvent`. */
export async function followEvents(
  settings: ServerConnection.ISettings,
  run: string,
  from: number,
  onEvent: (event: IAgentEvent) => void
): Promise<void> {
  const segments = ['agent', 'runs', run, 'events'];
  const spec = buildRequest(settings.baseUrl, segments, undefined, { from: String(from) });
  const response = await send(settings, spec);
  if (!response.ok || !response.body) {
    const error = describeHttpError(response.status, await response.text());
    throw new OperatorRequestError(error.code, error.message);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      break;
    }
    buffer += decoder.decode(value, { stream: true });
    const parsed = parseFrames(buffer);
    buffer = parsed.rest;
    for (const event of parsed.events) {
      onEvent(event);
    }
  }
}
