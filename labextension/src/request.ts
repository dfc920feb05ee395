/**
 * Pure request building and error decoding for the jupyter-operator REST API.
 *
 * Kept free of JupyterLab imports so it can be unit tested in plain Node; the
 * client in `client.ts` sends what this module builds through
 * `ServerConnection.makeRequest` (which adds the token and XSRF headers).
 */

/** The API prefix under the server's base URL. */
export const API_PREFIX = 'jupyter-operator/api';

/** A request ready to hand to `ServerConnection.makeRequest`. */
export interface IRequestSpec {
  url: string;
  init: { method: string; body?: string; headers?: Record<string, string> };
}

/** An error the panel can show in plain words. */
export interface IPanelError {
  code: string;
  message: string;
}

/**
 * The URL of an API endpoint.
 *
 * Every path segment is percent-encoded: segments such as session ids come from
 * the server and must never be able to change the route. Written here rather
 * than with `URLExt.join` so that it stays importable without the Lab runtime.
 */
export function endpointUrl(
  baseUrl: string,
  segments: readonly string[],
  query?: Record<string, string | undefined>
): string {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  const path = segments.map(s => encodeURIComponent(s)).join('/');
  let url = `${base}${API_PREFIX}/${path}`;
  if (query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) {
        params.append(key, value);
      }
    }
    const text = params.toString();
    if (text) {
      url += `?${text}`;
    }
  }
  return url;
}

/** Build a GET (no body) or POST (JSON body) request for an endpoint. */
export function buildRequest(
  baseUrl: string,
  segments: readonly string[],
  body?: unknown,
  query?: Record<string, string | undefined>
): IRequestSpec {
  const url = endpointUrl(baseUrl, segments, query);
  if (body === undefined) {
    return { url, init: { method: 'GET' } };
  }
  return {
    url,
    init: {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json' }
    }
  };
}

/** Body of `POST scan`; the workspace is left out when none is chosen. */
export function scanBody(
  text: string,
  workspace?: string | null
): { text: string; workspace?: string } {
  return workspace ? { text, workspace } : { text };
}

/** Body of a decision; an empty or blank reason is not sent. */
export function decisionBody(
  decision: 'approve' | 'reject',
  id?: string,
  reason?: string | null,
  content?: string | null
): { id?: string; decision: string; reason?: string; content?: string } {
  const body: { id?: string; decision: string; reason?: string; content?: string } = { decision };
  if (id !== undefined) {
    body.id = id;
  }
  if (decision === 'approve' && typeof content === 'string') {
    body.content = content; // the person's edit, sent exactly (never trimmed)
  }
  const trimmed = reason?.trim();
  if (decision === 'reject' && trimmed) {
    body.reason = trimmed;
  }
  return body;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Turn a failed response into a code and a plain-words message.
 *
 * Understands the API's `{"error": {"code", "message"}}`, jupyter-server's own
 * `{"message"}` / `{"reason"}` errors, and anything else (an HTML error page, an
 * empty body) by falling back to the HTTP status.
 */
export function describeHttpError(status: number, bodyText: string): IPanelError {
  let data: unknown = null;
  try {
    data = bodyText ? JSON.parse(bodyText) : null;
  } catch {
    data = null;
  }
  if (isRecord(data)) {
    const error = data.error;
    if (isRecord(error) && typeof error.message === 'string') {
      return {
        code: typeof error.code === 'string' ? error.code : `HTTP_${status}`,
        message: error.message
      };
    }
    for (const key of ['message', 'reason']) {
      const value = data[key];
      if (typeof value === 'string' && value) {
        return { code: `HTTP_${status}`, message: value };
      }
    }
  }
  return { code: `HTTP_${status}`, message: statusMessage(status) };
}

function statusMessage(status: number): string {
  switch (status) {
    case 403:
      return 'The Jupyter server refused the request (403). Reload the page and log in again.';
    case 404:
      return 'The jupyter-operator server extension did not answer (404). Is it installed and enabled?';
    default:
      return status >= 500
        ? `The Jupyter server failed to handle the request (HTTP ${status}).`
        : `The Jupyter server rejected the request (HTTP ${status}).`;
  }
}

/** The error shown when the server cannot be reached at all. */
export const NETWORK_ERROR: IPanelError = {
  code: 'NETWORK',
  message: 'Could not reach the Jupyter server. Check that it is still running.'
};
