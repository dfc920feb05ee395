import {
  buildRequest,
  decisionBody,
  describeHttpError,
  endpointUrl,
  scanBody
} from '../request';

describe('endpointUrl', () => {
  it('joins the base URL, the API prefix and the segments', () => {
    expect(endpointUrl('/hub/user/tester/', ['scan'])).toBe(
      '/hub/user/tester/jupyter-operator/api/scan'
    );
  });

  it('adds a missing trailing slash to the base URL', () => {
    expect(endpointUrl('http://h:1/base', ['spec'])).toBe('http://h:1/base/jupyter-operator/api/spec');
  });

  it('percent-encodes segments so a session id cannot change the route', () => {
    expect(endpointUrl('/', ['sessions', '../../api/contents?x', 'decide'])).toBe(
      '/jupyter-operator/api/sessions/..%2F..%2Fapi%2Fcontents%3Fx/decide'
    );
  });

  it('encodes query values and skips undefined ones', () => {
    expect(endpointUrl('/', ['history'], { workspace: 'a b&c', other: undefined })).toBe(
      '/jupyter-operator/api/history?workspace=a+b%26c'
    );
  });
});

describe('buildRequest', () => {
  it('builds a GET without a body', () => {
    const spec = buildRequest('/', ['workspaces']);
    expect(spec.init).toEqual({ method: 'GET' });
  });

  it('builds a JSON POST', () => {
    const spec = buildRequest('/b/', ['sessions', 's1', 'decide'], decisionBody('approve', 'w1'));
    expect(spec.url).toBe('/b/jupyter-operator/api/sessions/s1/decide');
    expect(spec.init.method).toBe('POST');
    expect(spec.init.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(JSON.parse(spec.init.body as string)).toEqual({ id: 'w1', decision: 'approve' });
  });
});

describe('request bodies', () => {
  it('leaves the workspace out of a scan when none is chosen', () => {
    expect(scanBody('text', '')).toEqual({ text: 'text' });
    expect(scanBody('text', null)).toEqual({ text: 'text' });
    expect(scanBody('text', 'proj')).toEqual({ text: 'text', workspace: 'proj' });
  });

  it('sends a trimmed reason with rejections only', () => {
    expect(decisionBody('reject', 'x', '  too risky \n')).toEqual({
      id: 'x',
      decision: 'reject',
      reason: 'too risky'
    });
    expect(decisionBody('reject', 'x', '   ')).toEqual({ id: 'x', decision: 'reject' });
    expect(decisionBody('approve', 'x', 'ignored')).toEqual({ id: 'x', decision: 'approve' });
    expect(decisionBody('reject', undefined, 'all')).toEqual({ decision: 'reject', reason: 'all' });
  });
});

describe('describeHttpError', () => {
  it('reads the API error shape', () => {
    const body = JSON.stringify({ error: { code: 'ERR_UNKNOWN_SESSION', message: 'No such session.' } });
    expect(describeHttpError(404, body)).toEqual({
      code: 'ERR_UNKNOWN_SESSION',
      message: 'No such session.'
    });
  });

  it("reads jupyter-server's own error message", () => {
    expect(describeHttpError(403, JSON.stringify({ message: 'Forbidden', reason: null }))).toEqual({
      code: 'HTTP_403',
      message: 'Forbidden'
    });
  });

  it('falls back to plain words for HTML or empty bodies', () => {
    const html = describeHttpError(502, '<html><body>Bad gateway</body></html>');
    expect(html.code).toBe('HTTP_502');
    expect(html.message).toMatch(/failed to handle the request/);
    expect(html.message).not.toContain('<');
    expect(describeHttpError(404, '').message).toMatch(/server extension/);
  });

  it('does not trust an error whose message is not a string', () => {
    const body = JSON.stringify({ error: { code: 'X', message: { html: '<b>' } } });
    expect(describeHttpError(400, body)).toEqual({
      code: 'HTTP_400',
      message: 'The Jupyter server rejected the request (HTTP 400).'
    });
  });
});
